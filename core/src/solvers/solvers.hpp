// Internal: the inference solvers (the public training and catalog solvers are in vramcalc/estimate.hpp).
#pragma once

#include <cstdint>

#include <vector>

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// The most sequences of prompt_len + gen_len at once, and the longest prompt_len + gen_len at `batch`,
// on the scenario's GPU.
struct InferenceLimits {
    std::int64_t max_concurrent_sequences = 0;
    std::int64_t max_context = 0;
};
InferenceLimits inference_limits(const Scenario& s);

// The context x concurrency matrix of an inference scenario (Bill::serving_matrix).
std::vector<Bill::ServingRow> serving_matrix(const Scenario& s);

}  // namespace vramcalc::detail
