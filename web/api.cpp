// The JS API's C side: JSON text in, JSON text out. Linked into the page (window.vramcalc next to the
// UI) and into the headless vramcalc-api.js for docs sites that want numbers without the UI.
// web/api_post.js wraps these into vramcalc.estimate() and friends.
#include <string>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/estimate.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {

using json = nlohmann::json;

// The answer of the last call; valid until the next call (JS copies it at once).
std::string g_answer;

const char* answer(const json& j) {
    g_answer = j.dump();
    return g_answer.c_str();
}

json problems(const vramcalc::Problems& errors) {
    json list = json::array();
    for (const auto& p : errors) list.push_back({{"field", p.field}, {"message", p.message}});
    return list;
}

// Parses the scenario; on failure fills `out` with {"ok": false, "errors": [...]}.
std::optional<vramcalc::Scenario> scenario(const char* text, json& out) {
    const auto& cat = vramcalc::builtin_catalog();
    auto sc = vramcalc::scenario_from_text(text ? text : "", *cat);
    if (!sc.ok()) {
        out = {{"ok", false}, {"errors", problems(sc.errors)}};
        return std::nullopt;
    }
    return *sc;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_estimate(const char* scenario_json) {
    json out;
    auto sc = scenario(scenario_json, out);
    if (!sc) return answer(out);
    return answer({{"ok", true}, {"bill", vramcalc::bill_to_json(vramcalc::estimate(*sc))}});
}

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_solve_catalog(const char* scenario_json) {
    json out;
    auto sc = scenario(scenario_json, out);
    if (!sc) return answer(out);
    json rows = json::array();
    for (const auto& f : vramcalc::solve_catalog(*sc, vramcalc::builtin_catalog()->gpus()))
        rows.push_back({{"gpu", f.gpu.id},
                        {"name", f.gpu.name},
                        {"memory_bytes", f.gpu.memory_bytes},
                        {"fits", f.fits},
                        {"device_bytes", f.device_bytes},
                        {"max_batch", f.max_batch},
                        {"max_seq_len", f.max_seq_len}});
    return answer({{"ok", true}, {"catalog", rows}});
}

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_presets() {
    const auto& cat = *vramcalc::builtin_catalog();
    json models = json::array(), gpus = json::array();
    for (const auto& m : cat.models())
        models.push_back({{"id", m.id}, {"name", m.name}, {"hub_id", m.hub_id}, {"family", m.family}, {"parameters", m.params.total}});
    for (const auto& g : cat.gpus())
        gpus.push_back({{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"memory_bytes", g.memory_bytes}});
    return answer({{"ok", true}, {"models", models}, {"gpus", gpus}});
}

}  // extern "C"
