// The estimator: Scenario -> Bill. Every figure is computed from a formula whose source is named
// next to it (see also docs/methodology.md).
#pragma once

#include <cstdint>
#include <vector>

#include "vramcalc/bill.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc {

// The bill for one scenario (the scenario must come from scenario_from_json, i.e. be valid).
Bill estimate(const Scenario& s);

// The same bill without the max-batch / max-context solvers (max_* left empty): one pass, for callers that
// evaluate many points (memory curves, searches).
Bill estimate_peak(const Scenario& s);

// The largest micro_batch (training) or batch (inference) whose device_bytes stay within
// target_utilization x GPU memory; 0 when even 1 does not fit. Capped at `cap`.
std::int64_t solve_max_batch(const Scenario& s, std::int64_t cap = 1 << 16);

// The longest seq_len (training) at the scenario's micro_batch within target utilisation; 0 if none.
std::int64_t solve_max_seq_len(const Scenario& s, std::int64_t cap = std::int64_t{1} << 24);

// Every GPU of a catalog at once: does the scenario fit, and the largest batch / context on each.
struct CatalogFit {
    GpuSpec gpu;
    bool fits = false;
    Verdict verdict = Verdict::does_not_fit;  // the three states of the GPU's own bill (verdict_of)
    std::int64_t device_bytes = 0;
    std::int64_t max_batch = 0;                 // micro_batch (training) or batch (inference); capped at 65536
    std::int64_t max_seq_len = 0;               // training only; capped at 2^24
    std::int64_t max_concurrent_sequences = 0;  // inference: sequences of prompt_len + gen_len at once
    std::int64_t max_context = 0;               // inference: longest prompt + generated tokens at `batch`
    double tokens_per_s = 0;                    // the scenario's speed on this GPU (Bill::speed), 0 if unknown
    double time_for_dataset_s = 0;              // the scenario's dataset_tokens at that speed, 0 if not set
};
std::vector<CatalogFit> solve_catalog(const Scenario& s, const std::vector<GpuSpec>& gpus);

}  // namespace vramcalc
