// Internal: the module layout a framework builds from a checkpoint, where it differs from the Hugging
// Face class the preset describes (LitGPT builds its own GPT class).
#pragma once

#include "vramcalc/model.hpp"

namespace vramcalc::detail {

ModelSpec litgpt_layout(const ModelSpec& hf);

}  // namespace vramcalc::detail
