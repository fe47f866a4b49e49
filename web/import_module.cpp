// vramcalc-import.js: the core's importer of other tools' configs (docs/imports.md) and yaml-cpp for the
// page, a separate module that page.js loads on the first paste, drop or open of such a config, so that
// they cost the page's own wasm nothing until then (about 78 KB gzip). import_run answers with
// import_to_json's object plus "ok": true, or {"ok": false, "error": "..."} naming the line and key.
#include <string>
#include <string_view>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/import.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/presets.hpp"

namespace {
std::string g_reply;
}

extern "C" EMSCRIPTEN_KEEPALIVE const char* import_run(const char* text, int length) {
    nlohmann::json out;
    if (length < 0 || static_cast<std::size_t>(length) > vramcalc::kMaxInputBytes) {
        out = {{"ok", false}, {"error", "the config is " + std::to_string(length) + " bytes; at most " +
                                            std::to_string(vramcalc::kMaxInputBytes) + " are read"}};
    } else {
        const auto r = vramcalc::import_config(std::string_view(text, static_cast<std::size_t>(length)),
                                               *vramcalc::builtin_catalog());
        if (r.ok()) {
            out = vramcalc::import_to_json(*r);
            out["ok"] = true;
        } else {
            out = {{"ok", false}, {"error", r.error_text()}};
        }
    }
    g_reply = out.dump();
    return g_reply.c_str();
}
