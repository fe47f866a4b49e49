// The common rule of thumb shown beside the detailed figure, for both workloads.
#include "bill/rule_of_thumb.hpp"

#include "common/checked.hpp"
#include "common/format.hpp"
#include "formats/weight_formats.hpp"

namespace vramcalc::detail {

void rule_of_thumb(const Scenario& s, Bill& b) {
    const double P = static_cast<double>(count_parameters(s.model).total);
    std::string f;
    if (s.workload == Workload::infer) {
        // "Parameters x bytes per parameter x 1.2": the 20 % covers KV cache and activations at modest
        // batch and context (EleutherAI, "Transformer Math 101", 2023: total inference memory is about
        // 1.2 x the model's memory).
        const double bpp = nominal_bytes_per_param(s.weights);
        b.rule_of_thumb_bytes = saturated_bytes(P * bpp * 1.2);
        f = printf_string("params x %.3g B (%s) x 1.2 (common rule of thumb)", bpp, s.weights.c_str());
    } else if (s.method == Method::full || s.method == Method::freeze) {
        // Mixed-precision Adam: 2 (weights) + 2 (gradients) + 12 (fp32 master, momentum, variance) bytes
        // per parameter (ZeRO paper, Rajbhandari et al. 2020, Sec. 3.1); activations not included.
        b.rule_of_thumb_bytes = saturated_bytes(P * 16);
        f = printf_string("params x 16 B (Adam, mixed precision: ZeRO paper Sec. 3.1; no activations)");
    } else if (s.method == Method::lora || (s.method != Method::qlora && s.quantization == Quantization::none)) {
        // LLaMA-Factory's hardware table: LoRA/freeze-tuning needs about 2 GB per billion parameters (16-bit base).
        b.rule_of_thumb_bytes = saturated_bytes(P * 2);
        f = printf_string("params x 2 B (LoRA, 16-bit frozen base: LLaMA-Factory README table)");  // adapters alike
    } else {
        // LLaMA-Factory's table: QLoRA 8-bit x GB, 4-bit x/2 GB per billion parameters.
        const double bpp = s.quantization == Quantization::int8 ? 1.0 : 0.5;
        b.rule_of_thumb_bytes = saturated_bytes(P * bpp);
        f = printf_string("params x %.2g B (QLoRA %s base: LLaMA-Factory README table)", bpp,
                      s.quantization == Quantization::int8 ? "8-bit" : "4-bit");
    }
    b.rule_of_thumb_formula = f;
}

}  // namespace vramcalc::detail
