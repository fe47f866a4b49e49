// The JS API's C side: JSON text in, JSON text out. Linked into the page (window.vramcalc next to the
// UI) and into the headless vramcalc-api.js for docs sites that want numbers without the UI.
// web/api_post.js wraps these into vramcalc.estimate() and friends.
#include <string>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/advice.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/catalog_json.hpp"
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
    const vramcalc::Bill bill = vramcalc::estimate(*sc);
    json out_bill = vramcalc::bill_to_json(bill);
    // What to change when it does not fit within its target: the same ranked list as the page and the CLI.
    if (vramcalc::verdict_of(bill) != vramcalc::Verdict::fits) {
        const json read = json::parse(scenario_json ? scenario_json : "", nullptr, false);
        if (read.is_object()) out_bill["advice"] = vramcalc::advice_to_json(vramcalc::plan_changes(read, *vramcalc::builtin_catalog()));
    }
    return answer({{"ok", true}, {"bill", out_bill}});
}

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_solve_catalog(const char* scenario_json) {
    json out;
    auto sc = scenario(scenario_json, out);
    if (!sc) return answer(out);
    const auto rows = vramcalc::catalog_fits_to_json(vramcalc::solve_catalog(*sc, vramcalc::builtin_catalog()->gpus()));
    return answer({{"ok", true}, {"catalog", rows}});
}

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_presets() {
    json out = vramcalc::presets_to_json(*vramcalc::builtin_catalog());
    out["ok"] = true;
    return answer(out);
}

}  // extern "C"
