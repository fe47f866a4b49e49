#include "bill/lines.hpp"

#include <cassert>

#include "common/checked.hpp"

namespace vramcalc {

const std::vector<BillLine>& bill_lines() {
    static const std::vector<BillLine> lines = {
        {"weights", "weights", "bytes", "2. Model states / 7. Inference",
         "training/model_states.cpp model_states(); formats/weight_formats.cpp weight_bytes()", 0x4285F4},
        {"master_weights", "fp32 master weights", "bytes", "2. Model states", "training/model_states.cpp model_states()", 0x785EF0},
        {"lora", "LoRA adapters", "bytes", "2. Model states", "training/model_states.cpp lora_or_qlora()", 0x00ACC1},
        {"gradients", "gradients", "bytes", "5. The step and the peak", "training/training_step.cpp simulate_step()", 0xFB8C00},
        {"optimizer", "optimizer states", "bytes", "2. Model states", "training/model_states.cpp; formats/recipes.cpp optimizer_bytes_per_param()", 0xE53935},
        {"activations", "activations", "bytes", "3. Activations / 7. Inference",
         "training/activations.cpp layer_saved_tensors(); inference/forward.cpp layer_forward_bytes()", 0x43A047},
        {"logits", "logits and loss", "bytes", "4. Logits and loss", "training/loss.cpp loss_memory(); inference/torch_engine.cpp", 0x9CCC65},
        {"temporaries", "temporaries", "bytes", "5. The step and the peak", "training/training_step.cpp simulate_step()", 0xFFCA28},
        {"gathered_params", "gathered parameters", "bytes", "Multi-GPU training", "parallel/parallel.cpp apply_parallel_training()", 0x5C6BC0},
        {"comm_buffers", "communication buffers", "bytes", "Multi-GPU training", "parallel/parallel.cpp apply_parallel_training()", 0x26A69A},
        {"kv_cache", "KV cache", "bytes", "7. Inference", "inference/kv_cache.cpp kv_bytes_for_tokens(); inference/*_engine.cpp", 0x8E24AA},
        {"compute_buffer", "compute buffer", "bytes", "7. Inference", "inference/llamacpp_engine.cpp llamacpp_engine()", 0xD81B60},
        {"cuda_graphs", "CUDA graphs", "bytes", "7. Inference", "inference/vllm_engine.cpp vllm_engine()", 0x6D4C41},
        {"allocator_slack", "allocator overhead", "bytes", "6. Allocated, reserved, device", "runtime/runtime.cpp reserved_from_allocated()", 0x8D6E63},
        {"cuda_context", "CUDA context", "bytes", "6. Allocated, reserved, device", "runtime/runtime.cpp cuda_context()", 0x78909C},
    };
    return lines;
}

const BillLine* find_bill_line(const std::string& id) {
    const auto dot = id.rfind('.');
    const std::string base = dot == std::string::npos ? id : id.substr(dot + 1);
    for (const auto& l : bill_lines())
        if (base == l.id) return &l;
    return nullptr;
}

namespace detail {

void add_line(Bill& b, const std::string& id, double bytes, std::string detail) {
    assert(find_bill_line(id) && "bill line id missing from bill_lines()");
    if (bytes <= 0) return;
    b.components.push_back({id, saturated_bytes(bytes), std::move(detail)});
}

std::int64_t component_sum(const Bill& b) {
    std::int64_t sum = 0;
    for (const auto& c : b.components) sum += c.bytes;
    return sum;
}

}  // namespace detail
}  // namespace vramcalc
