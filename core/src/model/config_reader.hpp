// The model readers the scenario and the catalog call: the config.json reader (model_from_config) and the
// layer-stack reader (layer_stack_from_json, model_from_layer_stack) themselves (config_reader.cpp)
// everywhere but on the page, where they are the answers the page's model reader module gave for that
// config or stack (model_reader_page.cpp; web/import_module.cpp): the page's own wasm carries neither the
// readers nor the family descriptions, about 28 KB of its gzip code.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

Result<ModelSpec> read_model_config(const nlohmann::json& config, const std::string& name, const std::string& field_prefix);
// A layer stack's JSON ({"input", "layers", ...}) as the model named `name`; from its compact text (a preset's).
Result<ModelSpec> read_layer_stack_model(const nlohmann::json& stack, const std::string& name, const std::string& field_prefix);
Result<ModelSpec> read_layer_stack_text(std::string_view text, const std::string& name, const std::string& field_prefix);
// False on the page: its catalog then leaves its layer-stack presets to be read on first use (catalog.cpp).
bool reads_models_itself();

}  // namespace vramcalc::detail
