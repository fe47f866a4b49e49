// vramcalc-import.js: the core's importer of other tools' configs (docs/imports.md) and yaml-cpp for the
// page, a separate module that page.js loads on the first paste, drop or open of such a config, so that
// they cost the page's own wasm nothing until then (about 78 KB gzip). import_run answers with the
// core's import_answer, as the JS API's import does: {"ok": false, "errors": [...]} names the line and key.
#include <string>
#include <string_view>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/import.hpp"
#include "vramcalc/presets.hpp"

namespace {
std::string g_reply;
}

extern "C" EMSCRIPTEN_KEEPALIVE const char* import_run(const char* text, int length) {
    // import_config checks the size limit itself (json_text.hpp's kMaxInputBytes).
    const auto r = vramcalc::import_config(std::string_view(text, static_cast<std::size_t>(length)), *vramcalc::builtin_catalog());
    g_reply = vramcalc::import_answer(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return g_reply.c_str();
}
