// Hugging Face config.json -> ModelSpec.
//
// Supported model_type values (the HF classes whose parameters are counted exactly):
//   llama, mistral, mixtral, qwen (Qwen v1), qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2,
//   phi, phi3, gpt_neox, stablelm, falcon (and RefinedWeb*), bloom, gpt2, opt, bert, t5, mt5,
//   deepseek_v2, deepseek_v3, baichuan.
// Any other model_type with the standard decoder keys is read as a Llama-style decoder, with a warning.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

// `field_prefix` is prepended to field names in error messages (e.g. "scenario.model").
Result<ModelSpec> model_from_config(const nlohmann::json& config, const std::string& name,
                                    const std::string& field_prefix = "config");
Result<ModelSpec> model_from_config_text(std::string_view text, const std::string& name = "config.json");

// The model_type values with a dedicated layout.
const std::vector<std::string>& supported_model_types();

}  // namespace vramcalc
