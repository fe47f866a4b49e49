// vramcalc-import.js: the core's importer of other tools' configs (docs/imports.md) and yaml-cpp for the
// page, a separate module that page.js loads on the first paste, drop or open of such a config, so that
// they cost the page's own wasm nothing until then (about 78 KB gzip). import_run answers with the
// core's import_answer, as the JS API's import does: {"ok": false, "errors": [...]} names the line and key.
// It also turns a PyTorch print(model) into a layer stack (repr_run), for the page's layer-stack editor, and
// is the page's model reader (model_run): the page's own wasm has no config.json or layer-stack reader
// (core/src/model/config_reader.hpp), so each config.json or layer stack a scenario names is read here.
#include <string>
#include <string_view>
#include <vector>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/hf_config.hpp"
#include "vramcalc/import.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/model_spec_json.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc/torch_repr.hpp"

namespace {
std::string g_reply;
}

extern "C" EMSCRIPTEN_KEEPALIVE const char* import_run(const char* text, int length) {
    // import_config checks the size limit itself (json_text.hpp's kMaxInputBytes).
    const auto r = vramcalc::import_config(std::string_view(text, static_cast<std::size_t>(length)), *vramcalc::builtin_catalog());
    g_reply = vramcalc::import_answer(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return g_reply.c_str();
}

// `input_json`: the per-sample input shape as a JSON array of positive integers, e.g. [3, 224, 224].
extern "C" EMSCRIPTEN_KEEPALIVE const char* repr_run(const char* text, int length, const char* input_json) {
    const nlohmann::json in = nlohmann::json::parse(input_json, nullptr, false);
    std::vector<vramcalc::i64> input;
    if (in.is_array())
        for (const auto& d : in)
            if (d.is_number_integer()) input.push_back(d.get<vramcalc::i64>());
    vramcalc::Result<vramcalc::ReprImport> r;
    if (input.empty() || !in.is_array() || input.size() != in.size()) r.errors.push_back({"input", "the input shape is a list of positive sizes, e.g. 3, 224, 224"});
    else r = vramcalc::layer_stack_from_torch_repr(std::string_view(text, static_cast<std::size_t>(length)), input);
    g_reply = vramcalc::repr_answer(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return g_reply.c_str();
}

// model_from_config(config, name, field_prefix), or for a layer stack (told apart as the scenario reader does)
// model_from_layer_stack of layer_stack_from_json's stack, as model_result_to_json's text (model_spec_json.hpp).
// The page hands over JSON it already read (compact), so text that is not JSON is an error here.
extern "C" EMSCRIPTEN_KEEPALIVE const char* model_run(const char* config, int length, const char* name, const char* field_prefix) {
    const nlohmann::json j = vramcalc::parse_json_or_discarded(std::string_view(config, static_cast<std::size_t>(length)));
    vramcalc::Result<vramcalc::ModelSpec> r;
    if (j.is_discarded()) r.errors.push_back({field_prefix, "not JSON"});
    else if (!vramcalc::is_layer_stack_json(j)) r = vramcalc::model_from_config(j, name, field_prefix);
    else r = vramcalc::model_from_layer_stack_json(j, name, field_prefix);
    g_reply = vramcalc::model_result_to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return g_reply.c_str();
}
