// Scenario -> Bill at the peak: the table of contents of the estimator. Each line of the bill is computed
// where bill_lines() says (bill/lines.cpp); this file only assembles them.
//   training:  assembly/training.cpp (model states, activations, loss, step) + parallel/ + runtime/
//   RLHF:      assembly/rlhf.cpp (several models and the rollout engine over training())
//   inference: inference/inference.cpp (weights by format, KV cache, engine working memory)
#include "assembly/peak.hpp"

#include "assembly/rlhf.hpp"
#include "assembly/training.hpp"
#include "bill/rule_of_thumb.hpp"
#include "inference/inference.hpp"
#include "inference/placement.hpp"
#include "runtime/runtime.hpp"

namespace vramcalc::detail {

Bill peak_bill(const Scenario& s) {
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
