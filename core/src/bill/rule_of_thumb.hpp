// Internal: the common rule of thumb for a scenario (params x bytes x 1.2 for inference; 16 B/param for
// Adam training; LoRA/QLoRA per-billion figures), with its formula and source in words.
#pragma once

#include <cstdint>

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// `inference_gpus`: the GPUs an inference engine splits the weights over (tp x pp; placement.cpp split_of).
void rule_of_thumb(const Scenario& s, Bill& b, std::int64_t inference_gpus = 1);

}  // namespace vramcalc::detail
