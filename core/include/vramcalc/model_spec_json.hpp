// A ModelSpec worked out in one program and read in another: the page's model presets, which the native
// CLI reads from their config.json at build time (`vramcalc presets --specs`), and the config.json models and
// layer stacks of the page's scenarios, which its model reader module reads (web/import_module.cpp). The
// page's own wasm then carries neither the config.json reader with its family descriptions nor the
// layer-stack reader (docs/architecture.md, "The web page's size and first paint").
//
// Not a user format: one flat JSON array holding every field of the spec in the order of one field list
// (model/model_spec_json.cpp), which the writer and the reader share; a model given by its layers carries its
// LayerStack (each layer after shape inference) the same way.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

nlohmann::json model_spec_to_json(const ModelSpec& m);
// The spec written by model_spec_to_json, or an error when `j` is not one (another release's layout).
Result<ModelSpec> model_spec_from_json(const nlohmann::json& j);

// model_from_config's whole answer (spec or errors, and warnings) as {"spec", "errors", "warnings"}, and back.
nlohmann::json model_result_to_json(const Result<ModelSpec>& r);
Result<ModelSpec> model_result_from_json(const nlohmann::json& j);

}  // namespace vramcalc
