// Scenario -> Bill: the peak bill (assembly/peak.cpp assembles the per-workload bills), then the
// contradiction warnings, the max-batch / max-context solvers and the speed.
#include "vramcalc/estimate.hpp"

#include <algorithm>
#include <string>

#include "assembly/peak.hpp"
#include "bill/checks.hpp"
#include "common/checked.hpp"
#include "solvers/search.hpp"
#include "solvers/solvers.hpp"
#include "time/speed.hpp"

namespace vramcalc {
namespace {

// What the largest micro-batch rests on (the scenario's checkpointing and seq_len), and what the largest
// activation saver, full checkpointing, would make of it. A layer stack checkpoints nothing (not modelled).
void max_micro_batch_basis(const Scenario& s, Bill& b, std::int64_t cap) {
    if (s.model.stack) return;
    b.max_micro_batch_checkpointing = to_string(s.checkpointing);
    b.max_micro_batch_seq_len = s.seq_len;
    if (recomputes_layers(s.checkpointing) && s.checkpointing != Checkpointing::selective_op) return;
    Scenario saver = s;
    saver.checkpointing = Checkpointing::full;
    if (const std::int64_t n = solve_max_batch(saver, cap); n < cap) b.max_micro_batch_full_checkpointing = n;
}

}  // namespace

Bill estimate_peak(const Scenario& s) { return detail::peak_bill(s); }

Bill estimate(const Scenario& s) {
    Bill b = estimate_peak(s);
    detail::contradiction_warnings(s, b);
    // Absurd sizes saturate (checked.hpp) instead of wrapping; say so rather than print a cap as a figure.
    for (const auto& c : b.components)
        if (c.bytes >= detail::kSaturatedBytes) {
            b.warnings.push_back("byte counts saturated at 2^56 B (64 PiB): the sizes are absurd and the real figure is larger");
            break;
        }
    // The longest sequence memory allows, capped at what the model was trained for (max_position_embeddings);
    // inference caps its context in inference_limits (context_cap).
    auto capped = [&](std::int64_t len, const char* what) {
        const std::int64_t limit = s.model.max_positions;
        if (limit <= 0 || len <= limit) return len;
        b.notes.push_back(std::string(what) + " capped at the model's max_position_embeddings " + std::to_string(limit) +
                          " (memory alone would allow " + std::to_string(len) + " tokens)");
        return limit;
    };
    if (s.workload == Workload::infer) {
        const detail::InferenceLimits lim = detail::inference_limits(s);
        if (!s.model.count_only) {
            b.max_batch = b.max_concurrent_sequences = lim.max_concurrent_sequences;
            if (!s.model.stack) b.max_context = lim.max_context;
            if (const detail::ContextCap cap = detail::context_cap(s); !s.model.stack && lim.memory_context > lim.max_context) {
                // Raising max_model_len helps up to the model's own limit (vLLM refuses more: checks.cpp).
                const std::int64_t room = s.model.max_positions > 0 ? std::min(lim.memory_context, s.model.max_positions) : lim.memory_context;
                const bool raise = std::string(cap.name) == "max_model_len" && room > cap.tokens;
                b.notes.push_back("longest context capped at " + std::string(cap.name) + " " + std::to_string(cap.tokens) +
                                  " (memory alone would allow " + std::to_string(lim.memory_context) + " tokens" +
                                  (raise ? "; a larger max_model_len, up to " + std::to_string(room) + ", serves longer requests)" : ")"));
            }
        }
        detail::estimate_speed(s, b);
        return b;
    }
    const std::int64_t cap = 1 << 16;
    const std::int64_t n = solve_max_batch(s, cap);
    // Only meaningful when memory grows with the batch (not for parameter-count-only models).
    if (n < cap) {
        b.max_micro_batch = n;
        max_micro_batch_basis(s, b, cap);
        // What runs at all, beside what stays within the target (the allocator frees its cache and retries
        // before it fails, so a run may fill the GPU: runtime.cpp needed_bytes).
        // Galloping up from the answer within the target, which also runs.
        Scenario all = s;
        const double memory = static_cast<double>(s.gpu.memory_bytes);
        b.max_micro_batch_runs = s.target_utilization >= 1.0 ? n : detail::largest_fitting(
                                                                       cap, [&](std::int64_t m) {
                                                                           all.micro_batch = m;
                                                                           return static_cast<double>(estimate_peak(all).needed_bytes) <= memory;
                                                                       },
                                                                       n);
    }
    if (s.model.stack) b.notes.push_back("a layer stack has a fixed input shape (model.input): no sequence length to solve for");
    else if (!s.model.count_only) {
        const std::int64_t len = solve_max_seq_len(s, std::int64_t{1} << 24);
        if (len < (std::int64_t{1} << 24)) b.max_seq_len = capped(len, "longest seq_len");
    }
    detail::estimate_speed(s, b);
    return b;
}

}  // namespace vramcalc
