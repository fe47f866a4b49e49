// Settings that are legal one by one but that no real tool accepts together: read errors (field, value,
// what is allowed), each with the tool's own rule and where it is. Settings a tool runs but with a
// surprising result are bill warnings instead (bill/checks.cpp, bill/checks_parallel.cpp).
#include <algorithm>
#include <array>
#include <string_view>

#include "enums.hpp"
#include "rows.hpp"

namespace vramcalc::detail {
namespace {

std::string fw(const Scenario& s) { return std::string("\"") + to_string(s.framework) + "\""; }

// vLLM's --block-size choices: vllm/config/cache.py `BlockSize = Literal[1, 8, 16, 32, 64, 128, 256]`
// (256 since 2025; argparse takes the choices from the Literal and refuses any other value).
constexpr std::array<std::int64_t, 7> kVllmBlockSizes{1, 8, 16, 32, 64, 128, 256};

// Expert and context parallelism against the model and the sequence.
void check_split_sizes(const Scenario& s, FieldReader& r) {
    const ModelSpec& m = s.model;
    // Megatron Core moe_layer.py: `assert num_moe_experts % ep_size == 0`; vLLM, torchtitan and DeepSpeed
    // MoE split the experts evenly the same way.
    if (s.ep > 1 && m.moe.experts > 0 && s.ep <= m.moe.experts && m.moe.experts % s.ep != 0)
        r.error("ep", std::to_string(s.ep) + " does not divide the model's " + std::to_string(m.moe.experts) +
                          " experts (each rank holds experts / ep "
                          "of them; Megatron Core asserts num_moe_experts % expert_model_parallel_size == 0): allowed ep is a divisor of " +
                          std::to_string(m.moe.experts));
    // Load-balanced ring attention cuts the sequence into 2 x cp chunks, rank i taking chunks i and
    // 2cp-1-i: Megatron's get_batch_on_this_cp_rank views it as (2*cp, seq/(2*cp)); torch's
    // _HeadTailLoadBalancer (torchtitan, accelerate) asserts seq_length % (cp_world_size * 2) == 0.
    if (s.workload == Workload::train && s.cp > 1 && s.seq_len % (2 * s.cp) != 0)
        r.error("cp", std::to_string(s.cp) + " with seq_len " + std::to_string(s.seq_len) +
                          ": context parallelism with load balancing cuts the sequence "
                          "into 2 x cp = " +
                          std::to_string(2 * s.cp) +
                          " equal chunks (torch's _HeadTailLoadBalancer asserts seq_length % "
                          "(cp * 2) == 0, Megatron's get_batch_on_this_cp_rank the same): allowed seq_len is a multiple of " +
                          std::to_string(2 * s.cp));
}

// tp against the attention heads (tp larger than the heads is check_layout's). Refused where the tool
// refuses it; the other frameworks get a bill warning (bill/checks_parallel.cpp).
void check_tp_heads(const Scenario& s, FieldReader& r) {
    const ModelSpec& m = s.model;
    if (s.tp <= 1 || m.heads <= 0 || s.tp > m.heads || m.count_only || m.stack) return;
    const char* rule = nullptr;
    if (s.framework == Framework::vllm)
        rule = "vLLM refuses it: \"Total number of attention heads must be divisible by tensor parallel size\"";
    else if (s.framework == Framework::megatron)
        rule = "Megatron-LM refuses it: its attention divides num_attention_heads by the tensor-parallel size (ensure_divisibility)";
    else if (s.framework == Framework::torchtitan)
        rule = "torchtitan's tensor-parallel plan shards whole heads (n_heads // tp) and cannot split them unevenly";
    if (rule && m.heads % s.tp != 0)
        r.error("tp", std::to_string(s.tp) + " does not divide the model's " + std::to_string(m.heads) + " attention heads with framework " + fw(s) + ": " +
                          rule + "; allowed tp is a divisor of " + std::to_string(m.heads));
    // vLLM's QKVParallelLinear: kv heads split when tp < kv heads (asserting kv_heads % tp == 0) and are
    // replicated when tp >= kv heads (asserting tp % kv_heads == 0).
    const std::int64_t kv = m.kv_heads;
    if (s.framework == Framework::vllm && m.heads % s.tp == 0 && kv > 0 &&
        (s.tp < kv ? kv % s.tp != 0 : s.tp % kv != 0))
        r.error("tp", std::to_string(s.tp) + " neither divides nor is a multiple of the model's " + std::to_string(kv) +
                          " KV heads: vLLM's "
                          "QKVParallelLinear splits KV heads evenly or replicates them whole; allowed tp divides " +
                          std::to_string(kv) +
                          " or is a multiple of it");
}

// Engine settings outside what the engine takes, and adapters that adapt nothing.
void check_engine_values(const Scenario& s, FieldReader& r) {
    if (s.workload == Workload::infer && s.framework == Framework::vllm &&
        std::find(kVllmBlockSizes.begin(), kVllmBlockSizes.end(), s.block_size) == kVllmBlockSizes.end())
        r.error("block_size", "got " + std::to_string(s.block_size) +
                                  ": vLLM's --block-size takes 1, 8, 16, 32, 64, 128 or 256 "
                                  "(vllm/config/cache.py BlockSize; 256 from 2025, CUDA attention backends use 16 or more)");
    // LitGPT adapter.py: blocks with block_idx >= adapter_start_layer get the prompt; none means llama-adapter
    // trains nothing, and torch.optim raises "optimizer got an empty parameter list".
    const std::int64_t layers = s.model.layers;
    if (s.workload == Workload::train && s.method == Method::llama_adapter && layers > 0 && !s.model.stack &&
        s.adapter_start_layer >= layers)
        r.error("adapter_start_layer", std::to_string(s.adapter_start_layer) + " is past the model's last layer (" + std::to_string(layers) +
                                           " layers, numbered 0 to " + std::to_string(layers - 1) +
                                           "): no layer gets an adapter, so "
                                           "llama-adapter trains nothing; allowed 0 to " +
                                           std::to_string(layers - 1));
}

}  // namespace

const std::vector<std::string>& gpu_archs() {
    // What the estimator knows a custom GPU by (runtime.cpp's CUDA context, checks.cpp's FP8 and bf16 rules):
    // NVIDIA's architectures from Pascal on and AMD's Instinct CDNA generations, as in the GPU catalog.
    static const std::vector<std::string> a{"pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell",
                                            "cdna2", "cdna3", "cdna4"};
    return a;
}

void check_contradictions(const Scenario& s, FieldReader& r) {
    check_split_sizes(s, r);
    check_tp_heads(s, r);
    check_engine_values(s, r);
}

void check_rollout_fit(const Scenario& s, FieldReader& fr) {
    const RlhfSetup& x = s.rlhf;
    // A colocated engine runs on the training GPUs: its tensor-parallel groups tile them (verl fsdp_workers.py
    // _build_rollout: `assert self.world_size % infer_tp == 0`; TRL's colocated vllm_tensor_parallel_size likewise).
    if (x.rollout && x.rollout_colocated && x.rollout_tp > s.num_gpus)
        fr.error("rollout.tp", std::to_string(x.rollout_tp) + " is more than the job's num_gpus " + std::to_string(s.num_gpus) +
                                   ": a colocated rollout "
                                   "engine runs on the training GPUs; allowed rollout tp 1 to " +
                                   std::to_string(s.num_gpus) +
                                   " (or placement \"separate\" for GPUs of its own)");
    else if (x.rollout && x.rollout_colocated && x.rollout_tp > 1 && s.num_gpus % x.rollout_tp != 0)
        fr.error("rollout.tp", std::to_string(x.rollout_tp) + " does not divide num_gpus " + std::to_string(s.num_gpus) +
                                   ": a colocated engine's "
                                   "tensor-parallel groups tile the training GPUs (verl: \"rollout world_size: " +
                                   std::to_string(s.num_gpus) +
                                   " is not divisible by infer_tp: " + std::to_string(x.rollout_tp) + "\"); allowed a divisor of " + std::to_string(s.num_gpus));
}

// Keys given where they do nothing: an inference engine's key in a training run, another method,
// framework or weight format (the key table's `workload`, `methods`, `frameworks`, `weights`). Said, never
// silently ignored. Training keys in an inference scenario are not said: inference reads some (attention).
void check_ignored_keys(const json& doc, const Scenario& s, std::vector<std::string>& warnings) {
    const auto either = [](std::string_view list) {  // "lora qlora" -> "lora or qlora"
        std::string out;
        for (char ch : list) out += ch == ' ' ? std::string(" or ") : std::string(1, ch);
        return out;
    };
    for (const auto& row : key_rows()) {
        const ScenarioKey& k = row.key;
        if (!k.read || k.name.find('.') != std::string_view::npos || !doc.contains(k.name) || doc[k.name].is_null()) continue;
        if (applies_to(k, s)) continue;
        const std::string name(k.name);
        ScenarioKey only_framework = k;  // which of the key's conditions fails, in the order they are listed
        only_framework.workload = KeyWorkload::both;
        only_framework.methods = only_framework.weights = {};
        if (k.workload == KeyWorkload::infer && s.workload == Workload::train) {
            // Only the keys no training code reads: the engines' own and the checkpoint's byte count (some
            // inference rows, such as group_size, also size a training run's quantised base).
            if (k.frameworks.empty() && name != "checkpoint_bytes" && name != "gpu_memory_utilization") continue;
            warnings.push_back(name + ": ignored with workload \"train\" (it applies to workload infer)");
        } else if (!k.methods.empty() && s.workload == Workload::train) {
            if (name == "quantization" && doc[k.name].is_string() && doc[k.name].get<std::string>() == "none") continue;
            warnings.push_back(name + ": ignored with method \"" + to_string(s.method) + "\" (it applies to method " + either(k.methods) +
                               (name == "quantization" ? "; for a quantized base use method \"qlora\")" : ")"));
        } else if (!applies_to(only_framework, s)) {
            warnings.push_back(name + ": ignored with framework " + fw(s) + " (it applies to framework " + either(k.frameworks) + ")");
        } else if (!k.weights.empty()) {
            warnings.push_back(name + ": ignored with weights \"" + s.weights + "\" (it applies to weights " + either(k.weights) +
                               "...)");
        }
    }
}

}  // namespace vramcalc::detail
