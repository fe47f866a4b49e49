// The estimator: Scenario -> Bill. Every figure is computed from a formula whose source is named
// next to it (see also docs/methodology.md).
#pragma once

#include <cstdint>

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc {

// The bill for one scenario (the scenario must come from scenario_from_json, i.e. be valid).
Bill estimate(const Scenario& s);

// The largest micro_batch (training) or batch (inference) whose device_bytes stay within
// target_utilization x GPU memory; 0 when even 1 does not fit. Capped at `cap`.
std::int64_t solve_max_batch(const Scenario& s, std::int64_t cap = 1 << 16);

}  // namespace vramcalc
