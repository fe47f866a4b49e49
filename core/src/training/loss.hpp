// Internal: the memory of the logits and the loss over the vocabulary for T tokens (docs/methodology.md,
// section 4 "Logits and loss").
#pragma once

#include <string>

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

struct LossMemory {
    double saved = 0, forward_peak = 0, backward_peak = 0;
    std::string detail;
};

// `c`: bytes of the compute dtype; `head_trained`: the output layer gets a weight gradient.
LossMemory loss_memory(const Scenario& s, const ModelSpec& m, double c, double T, bool head_trained);

}  // namespace vramcalc::detail
