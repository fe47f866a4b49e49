// vramcalc-import.js: the core's importer of other tools' configs (docs/imports.md) and yaml-cpp for the
// page, a separate module that page.js loads on the first paste, drop or open of such a config, so that
// they cost the page's own wasm nothing until then (about 78 KB gzip). import_run answers with the
// core's import_answer, as the JS API's import does: {"ok": false, "errors": [...]} names the line and key.
// It also turns a PyTorch print(model) into a layer stack (repr_run), for the page's layer-stack editor.
#include <string>
#include <string_view>
#include <vector>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/import.hpp"
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
