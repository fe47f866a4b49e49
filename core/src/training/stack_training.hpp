// Internal: the step inputs of a layer-stack model (model.hpp ModelSpec::stack) for simulate_step.
#pragma once

#include <string>
#include <vector>

#include "training/activations.hpp"
#include "training/training_step.hpp"

namespace vramcalc::detail {

// Fills the activation, transient and loss inputs of `in`; returns the activations line's detail and
// appends what the stack does not model (checkpointing, LoRA's frozen base, compile) to `warnings`.
std::string stack_activation_inputs(const Scenario& s, const ModelSpec& m, const ActivationSetup& a, StepInputs& in,
                                    std::string& loss_detail, std::vector<std::string>& warnings);

}  // namespace vramcalc::detail
