// Internal: the training bill of one GPU: model states (model_states.cpp), saved activations
// (activations.cpp), logits and loss (loss.cpp), the multi-GPU share (parallel/parallel.cpp) and the
// step's peak (training_step.cpp). docs/methodology.md sections 2-5 and "Multi-GPU training".
#pragma once

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// Writes the training components of `s` into `b` (the torch totals are closed by the caller).
void training(const Scenario& s, Bill& b);

}  // namespace vramcalc::detail
