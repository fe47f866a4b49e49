// Internal: the one writer of bill lines, and the sum the peak figures are made of.
#pragma once

#include <cstdint>
#include <string>

#include "vramcalc/bill.hpp"

namespace vramcalc::detail {

// Appends a component (skipped when `bytes` <= 0). Byte counts computed in double precision are
// saturated, never wrapped (common/checked.hpp). `id` must be in the registry (bill_lines()).
void add_line(Bill& b, const std::string& id, double bytes, std::string detail);

// The sum of the components' integers (each at most kSaturatedBytes, so no overflow): components always
// add up to the totals exactly, also for saturated absurd inputs.
std::int64_t component_sum(const Bill& b);

}  // namespace vramcalc::detail
