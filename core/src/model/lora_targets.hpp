// Internal: which parameter groups a LoRA configuration puts adapters on. One rule for the adapter
// parameters (training.cpp) and their saved activations (activations.cpp).
#pragma once

#include <string>

#include "vramcalc/model.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// PEFT matches `target_modules` names against module names by suffix; our inventory names are the HF
// leaf names, so a name matches a group with that name, whatever role the tensor has. "all-linear" is
// every nn.Linear except the output layer (PEFT's rule). No targets given: PEFT's default for the model
// type (peft/utils/constants.py, TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING), which for every
// family we read is its query and value projections, or its fused qkv projection where it has one
// (q_proj/v_proj, c_attn, query_key_value, W_pack, qkv_proj, query/value, q/v).
bool lora_targets(const LoraSetup& l, const ParamGroup& g);

// The module names the targets resolve to on this model ("q_proj, v_proj"), for messages.
std::string lora_target_names(const LoraSetup& l, const ModelSpec& m);

}  // namespace vramcalc::detail
