// Scenario -> Bill: the table of contents of the estimator. Each line of the bill is computed where
// bill_lines() says (bill/lines.cpp); this file only assembles them and asks the solvers.
//   training:  training/training.cpp (model states, activations, loss, step) + parallel/ + runtime/
//   RLHF:      training/rlhf.cpp (several models and the rollout engine over training())
//   inference: inference/inference.cpp (weights by format, KV cache, engine working memory)
#include "vramcalc/estimate.hpp"

#include "bill/rule_of_thumb.hpp"
#include "common/checked.hpp"
#include "inference/inference.hpp"
#include "runtime/runtime.hpp"
#include "solvers/solvers.hpp"
#include "training/rlhf.hpp"
#include "training/training.hpp"

namespace vramcalc {

Bill estimate_peak(const Scenario& s) {
    Bill b;
    const ParamBreakdown p = count_parameters(s.model);
    b.model_name = s.model.name;
    b.parameters = p.total;
    b.active_parameters = p.active;
    b.gpu = s.gpu;
    b.target_utilization = s.target_utilization;
    detail::rule_of_thumb(s, b);
    if (s.workload == Workload::infer) {  // engines place weights and KV per GPU and close the bill themselves
        detail::inference(s, b);
        return b;
    }
    if (s.rlhf.algorithm != RlhfAlgorithm::none)
        detail::rlhf_components(s, b);
    else
        detail::training(s, b);
    detail::close_torch_bill(b);
    return b;
}

Bill estimate(const Scenario& s) {
    Bill b = estimate_peak(s);
    // Absurd sizes saturate (checked.hpp) instead of wrapping; say so rather than print a cap as a figure.
    for (const auto& c : b.components)
        if (c.bytes >= detail::kSaturatedBytes) {
            b.warnings.push_back("byte counts saturated at 2^56 B (64 PiB): the sizes are absurd and the real figure is larger");
            break;
        }
    if (s.workload == Workload::infer) {
        const detail::InferenceLimits lim = detail::inference_limits(s);
        if (!s.model.count_only) {
            b.max_batch = b.max_concurrent_sequences = lim.max_concurrent_sequences;
            b.max_context = lim.max_context;
        }
        return b;
    }
    const std::int64_t cap = 1 << 16;
    const std::int64_t n = solve_max_batch(s, cap);
    // Only meaningful when memory grows with the batch (not for parameter-count-only models).
    if (n < cap) b.max_micro_batch = n;
    if (!s.model.count_only) {
        const std::int64_t len = solve_max_seq_len(s, std::int64_t{1} << 24);
        if (len < (std::int64_t{1} << 24)) b.max_seq_len = len;
    }
    return b;
}

}  // namespace vramcalc
