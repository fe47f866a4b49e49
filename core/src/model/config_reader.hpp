// The config.json reader the scenario and the catalog call: model_from_config itself (config_reader.cpp)
// everywhere but on the page, where it is the answer the page's model reader module gave for that config
// (config_reader_page.cpp; web/import_module.cpp): the page's own wasm carries neither the reader nor the
// family descriptions, 17 KB of its gzip code.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

Result<ModelSpec> read_model_config(const nlohmann::json& config, const std::string& name, const std::string& field_prefix);

}  // namespace vramcalc::detail
