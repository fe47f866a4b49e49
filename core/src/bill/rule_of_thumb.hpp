// Internal: the common rule of thumb for a scenario (params x bytes x 1.2 for inference; 16 B/param for
// Adam training; LoRA/QLoRA per-billion figures), with its formula and source in words.
#pragma once

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

void rule_of_thumb(const Scenario& s, Bill& b);

}  // namespace vramcalc::detail
