// Scenario -> Bill at the peak: the table of contents of the estimator. Each line of the bill is computed
// where bill_lines() says (bill/lines.cpp); this file only assembles them.
//   training:  assembly/training.cpp (model states, activations, loss, step) + parallel/ + runtime/
//   RLHF:      assembly/rlhf.cpp (several models and the rollout engine over training())
//   inference: inference/inference.cpp (weights by format, KV cache, engine working memory)
#include "assembly/peak.hpp"

#include <optional>

#include "assembly/rlhf.hpp"
#include "assembly/training.hpp"
#include "bill/rule_of_thumb.hpp"
#include "inference/inference.hpp"
#include "inference/placement.hpp"
#include "runtime/runtime.hpp"

namespace vramcalc::detail {
namespace {

// The scenario as the framework loads the model, in `load_dtype`. transformers 5 loads a checkpoint in its own
// dtype (from_pretrained dtype="auto", transformers PR #34919), so under the Trainer's AMP a LoRA's frozen base
// stays in the checkpoint's 16 bits and only the fp32 adapters are "mixed": that is precision bf16 under
// the Trainer's autocast (activations.hpp trainer_autocast). transformers 4 loaded an fp32 model, and TRL's
// ModelConfig asks for float32 (TRL PR #4778, v0.27): such a base stays fp32.
// A full fine-tune keeps the precision it names (*-mixed: the user passed dtype=torch.float32).
// Nothing where the scenario already says how the model is loaded (most calls: no copy on the solvers' path).
std::optional<Scenario> as_loaded(const Scenario& s) {
    const bool mixed = s.precision == Precision::bf16_mixed || s.precision == Precision::fp16_mixed;
    const double loaded = loaded_weight_bytes(s.load_dtype, s.model);
    if (s.workload != Workload::train || s.framework != Framework::hf || s.method != Method::lora || !mixed || loaded != 2)
        return std::nullopt;
    Scenario t = s;
    t.precision = s.precision == Precision::bf16_mixed ? Precision::bf16 : Precision::fp16;
    return t;
}

}  // namespace

Bill peak_bill(const Scenario& asked) {
    const std::optional<Scenario> loaded = as_loaded(asked);
    const Scenario& s = loaded ? *loaded : asked;
    Bill b;
    const ParamBreakdown p = count_parameters(s.model);
    b.model_name = s.model.name;
    b.parameters = p.total;
    b.active_parameters = p.active;
    b.gpu = s.gpu;
    b.target_utilization = s.target_utilization;
    // Inference splits the weights over the engine's tensor x pipeline degrees (placement.cpp).
    const detail::Split split = s.workload == Workload::infer ? detail::split_of(s) : detail::Split{};
    detail::rule_of_thumb(s, b, split.tp * split.pp);
    if (s.workload == Workload::infer) {  // engines place weights and KV per GPU and close the bill themselves
        detail::inference(s, b);
        if (b.needed_bytes == 0) b.needed_bytes = b.device_bytes;  // engines without an allocator replay
        return b;
    }
    if (s.rlhf.algorithm != RlhfAlgorithm::none)
        detail::rlhf_components(s, b);
    else
        detail::training(s, b);
    detail::close_torch_bill(b);
    return b;
}

}  // namespace vramcalc::detail
