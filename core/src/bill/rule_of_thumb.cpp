// The common rule of thumb shown beside the detailed figure, for both workloads, per GPU as the bill is:
// a model split over GPUs (tensor / pipeline parallel) or sharded by ZeRO / FSDP divides the rule as it
// divides the bill, so the two compare like with like.
#include "bill/rule_of_thumb.hpp"

#include <algorithm>

#include "common/checked.hpp"
#include "common/format.hpp"
#include "formats/weight_formats.hpp"

namespace vramcalc::detail {

namespace {

// Training's per-GPU share of 16 B per parameter (2 weights + 2 gradients + 12 Adam states) under each
// ZeRO stage, over Nd data-parallel ranks (ZeRO paper, Rajbhandari et al. 2020, Sec. 5 and Figure 1:
// P_os 4 + 12/Nd, P_os+g 2 + 14/Nd, P_os+g+p 16/Nd). FSDP's FULL_SHARD is stage 3, SHARD_GRAD_OP stage 2.
double adam_bytes_per_param(Sharding sh, double nd) {
    switch (sh) {
        case Sharding::zero1:
            return 4 + 12 / nd;
        case Sharding::zero2:
        case Sharding::fsdp_grad_op:
            return 2 + 14 / nd;
        case Sharding::zero3:
        case Sharding::fsdp_full:
            return 16 / nd;
        case Sharding::none:
            break;
    }
    return 16;
}

bool shards_weights(Sharding sh) { return sh == Sharding::zero3 || sh == Sharding::fsdp_full; }

const char* stage_name(Sharding sh) {
    switch (sh) {
        case Sharding::zero1:
            return "ZeRO-1";
        case Sharding::zero2:
            return "ZeRO-2";
        case Sharding::fsdp_grad_op:
            return "FSDP SHARD_GRAD_OP";
        case Sharding::zero3:
            return "ZeRO-3";
        case Sharding::fsdp_full:
            return "FSDP FULL_SHARD";
        case Sharding::none:
            break;
    }
    return "";
}

}  // namespace

void rule_of_thumb(const Scenario& s, Bill& b, std::int64_t inference_gpus) {
    const double P = static_cast<double>(count_parameters(s.model).total);
    std::string f;
    if (s.workload == Workload::infer) {
        // "Parameters x bytes per parameter x 1.2": the 20 % covers KV cache and activations at modest
        // batch and context (EleutherAI, "Transformer Math 101", 2023: total inference memory is about
        // 1.2 x the model's memory). Split over the GPUs as the engine splits the weights.
        const double bpp = nominal_bytes_per_param(s.weights);
        const double gpus = static_cast<double>(std::max<std::int64_t>(1, inference_gpus));
        b.rule_of_thumb_bytes = saturated_bytes(P * bpp * 1.2 / gpus);
        f = printf_string("params x %.3g B (%s) x 1.2%s (common rule of thumb)", bpp, s.weights.c_str(),
                          gpus > 1 ? printf_string(" / %.0f GPUs", gpus).c_str() : "");
        if (s.framework == Framework::vllm)
            f.insert(f.size() - 1, "; it does not count vLLM's KV pool, which fills gpu_memory_utilization");
        b.rule_of_thumb_formula = f;
        return;
    }
    // Training: the model's share on one GPU. Tensor and pipeline parallelism split it over tp x pp GPUs;
    // ZeRO / FSDP shard it further over the data-parallel ranks that remain (num_gpus / (tp x pp)).
    const double mp = static_cast<double>(std::max<std::int64_t>(1, s.tp * s.pp));
    const double nd = std::max(1.0, static_cast<double>(s.num_gpus) / mp);
    const bool sharded = s.sharding != Sharding::none && nd > 1;
    std::string per = mp > 1 ? printf_string(" / %.0f (tp x pp)", mp) : std::string();
    if (s.method == Method::full || s.method == Method::freeze) {
        // Mixed-precision Adam: 2 (weights) + 2 (gradients) + 12 (fp32 master, momentum, variance) bytes
        // per parameter (ZeRO paper, Rajbhandari et al. 2020, Sec. 3.1); activations not included.
        const double bpp = sharded ? adam_bytes_per_param(s.sharding, nd) : 16;
        b.rule_of_thumb_bytes = saturated_bytes(P * bpp / mp);
        if (sharded)
            f = printf_string("params x %.3g B per GPU (Adam, mixed precision, %s over %.0f GPUs: ZeRO paper Sec. 5; no activations)%s", bpp,
                              stage_name(s.sharding), nd, per.c_str());
        else
            f = "params x 16 B (Adam, mixed precision: ZeRO paper Sec. 3.1; no activations)" + per;
    } else {
        double bpp = 0;
        if (s.method == Method::lora || (s.method != Method::qlora && s.quantization == Quantization::none)) {
            // LLaMA-Factory's hardware table: LoRA/freeze-tuning needs about 2 GB per billion parameters (16-bit base).
            bpp = 2;
            f = "params x 2 B (LoRA, 16-bit frozen base: LLaMA-Factory README table)";  // adapters alike
        } else {
            // LLaMA-Factory's table: QLoRA 8-bit x GB, 4-bit x/2 GB per billion parameters.
            bpp = s.quantization == Quantization::int8 ? 1.0 : 0.5;
            f = printf_string("params x %.2g B (QLoRA %s base: LLaMA-Factory README table)", bpp,
                              s.quantization == Quantization::int8 ? "8-bit" : "4-bit");
        }
        // ZeRO-3 and FSDP FULL_SHARD shard the frozen base too; the other stages keep it whole on each GPU.
        const double shards = sharded && shards_weights(s.sharding) ? nd : 1;
        b.rule_of_thumb_bytes = saturated_bytes(P * bpp / shards / mp);
        if (shards > 1) f += printf_string(" / %.0f GPUs (%s shards the base)", shards, stage_name(s.sharding));
        f += per;
    }
    b.rule_of_thumb_formula = f;
}

}  // namespace vramcalc::detail
