// Internal: settings that are legal one by one but surprising or contradictory together. Each adds a
// warning to the bill that names the fields, the values and the rule's source; none changes a number.
#pragma once

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

void contradiction_warnings(const Scenario& s, Bill& b);
// Parallel layouts and sharding (checks_parallel.cpp); called by contradiction_warnings.
void parallel_warnings(const Scenario& s, Bill& b);

}  // namespace vramcalc::detail
