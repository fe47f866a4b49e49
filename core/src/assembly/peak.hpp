// Internal: the bill of one scenario at its peak, assembled from the per-workload bills (training,
// RLHF, inference) without asking the solvers. vramcalc::estimate_peak (solvers/estimate.cpp) returns it.
#pragma once

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

Bill peak_bill(const Scenario& s);

}  // namespace vramcalc::detail
