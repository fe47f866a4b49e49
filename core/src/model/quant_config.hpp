// Internal: config.json's quantization_config read into ModelSpec::quant and each tensor group's
// checkpoint_16bit (model/quant_config.cpp).
#pragma once

#include <string>
#include <vector>

#include "io/json_reader.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

// Reads `config`'s quantization_config (or its text_config's) after the family has built m.params. A
// quantization_config it cannot read leaves m.quant empty and says so in `warnings`.
void read_quantization_config(ModelSpec& m, const json& config, std::vector<std::string>& warnings);

}  // namespace vramcalc::detail
