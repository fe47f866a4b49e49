// The JS API's C side: JSON text in, JSON text out, in vramcalc-api.js: the headless module for docs
// sites that want numbers without the UI, which the page also loads as its window.vramcalc (on the first
// read of vramcalc.ready). web/api_post.js wraps these into vramcalc.estimate() and friends.
//
// Every entry point takes (pointer, byte length) of text that JS wrote into the heap with _malloc (never
// the stack: Emscripten 3.1.6's ccall copies 'string' arguments onto the 5 MiB stack unchecked, and a
// 1.25 MiB text killed the instance for good). The length is explicit, so a NUL inside the text is seen
// (and refused by the JSON parser) instead of silently ending it. Nothing escapes: every exception
// becomes {"ok": false, "errors": [...]}, which api_post.js turns into a JS Error with .problems.
#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/advice.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/catalog_json.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/import.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/serving_matrix.hpp"

namespace {

using json = nlohmann::json;

// The answer of the last call; valid until the next call (JS copies it at once).
std::string g_answer;

const char* answer(const json& j) {
    try {
        // Bill text may quote user strings (model names, unknown keys): never throw on invalid UTF-8.
        g_answer = j.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (...) {
        g_answer = R"x({"ok":false,"errors":[{"field":"","message":"the answer could not be written (out of memory?)"}]})x";
    }
    return g_answer.c_str();
}

json failure(const std::string& field, const std::string& message) {
    return {{"ok", false}, {"errors", json::array({{{"field", field}, {"message", message}}})}};
}

// The text JS handed in, checked against the one size limit (api_post.js checks it first too).
std::optional<std::string_view> input(const char* text, int length, json& out) {
    if (length < 0 || (length > 0 && !text)) {
        out = failure("scenario", "no text was passed (got length " + std::to_string(length) + ")");
        return std::nullopt;
    }
    if (static_cast<std::size_t>(length) > vramcalc::kMaxInputBytes) {
        out = failure("scenario", "the text is " + std::to_string(length) + " bytes, allowed: at most " +
                                      std::to_string(vramcalc::kMaxInputBytes) + " bytes (8 MiB)");
        return std::nullopt;
    }
    return std::string_view(text ? text : "", static_cast<std::size_t>(length));
}

// Parses the scenario; on failure fills `out` with {"ok": false, "errors": [...]}. The reader's warnings
// (unknown keys, keys the method ignores) go to `warnings`.
std::optional<vramcalc::Scenario> scenario(std::string_view text, json& out, std::vector<std::string>* warnings = nullptr) {
    const auto& cat = vramcalc::builtin_catalog();
    auto sc = vramcalc::scenario_from_text(text, *cat);
    if (!sc.ok()) {
        out = {{"ok", false}, {"errors", vramcalc::problems_to_json(sc.errors)}};
        return std::nullopt;
    }
    if (warnings) *warnings = sc.warnings;
    return *sc;
}

// The bill's warnings after the reader's: one list, as the CLI prints them (capped like the CLI's).
void add_reader_warnings(json& bill, const std::vector<std::string>& warnings) {
    if (warnings.empty()) return;
    constexpr std::size_t kMax = 20;
    json list = json::array();
    for (std::size_t i = 0; i < warnings.size() && i < kMax; ++i) list.push_back(warnings[i]);
    if (warnings.size() > kMax) list.push_back("... and " + std::to_string(warnings.size() - kMax) + " more");
    if (bill.contains("warnings") && bill["warnings"].is_array())
        for (const auto& w : bill["warnings"]) list.push_back(w);
    bill["warnings"] = std::move(list);
}

// Runs one entry point; whatever it throws becomes an error answer (the instance stays usable).
template <class F>
const char* guarded(F&& body) {
    try {
        return answer(body());
    } catch (const std::bad_alloc&) {
        return answer(failure("scenario", "out of memory while computing the answer"));
    } catch (const std::exception& e) {
        return answer(failure("scenario", std::string("internal error: ") + e.what()));
    } catch (...) {
        return answer(failure("scenario", "internal error"));
    }
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_estimate(const char* scenario_json, int length) {
    return guarded([&]() -> json {
        json out;
        const auto text = input(scenario_json, length, out);
        if (!text) return out;
        std::vector<std::string> warnings;
        auto sc = scenario(*text, out, &warnings);
        if (!sc) return out;
        const vramcalc::Bill bill = vramcalc::estimate(*sc);
        json out_bill = vramcalc::bill_to_json(bill);
        add_reader_warnings(out_bill, warnings);
        // Serving: context length x concurrency (the CLI's table; empty for training).
        if (const auto m = vramcalc::serving_matrix(*sc); !m.empty()) out_bill["serving_matrix"] = vramcalc::serving_matrix_to_json(m);
        // What to change when it does not fit within its target: the same ranked list as the page and the CLI.
        if (vramcalc::verdict_of(bill) != vramcalc::Verdict::fits) {
            std::string why;
            const auto read = vramcalc::parse_json_text(*text, why);
            if (read && read->is_object())
                out_bill["advice"] = vramcalc::advice_to_json(vramcalc::plan_changes(*read, *vramcalc::builtin_catalog()));
        }
        return {{"ok", true}, {"bill", out_bill}};
    });
}

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_solve_catalog(const char* scenario_json, int length) {
    return guarded([&]() -> json {
        json out;
        const auto text = input(scenario_json, length, out);
        if (!text) return out;
        auto sc = scenario(*text, out);
        if (!sc) return out;
        const auto rows = vramcalc::catalog_fits_to_json(vramcalc::solve_catalog(*sc, vramcalc::builtin_catalog()->gpus()));
        return {{"ok", true}, {"catalog", rows}};
    });
}

EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_presets() {
    return guarded([]() -> json {
        json out = vramcalc::presets_to_json(*vramcalc::builtin_catalog());
        out["ok"] = true;
        return out;
    });
}

// A config people already have (vllm/sglang/llama.cpp command line, DeepSpeed, accelerate, HF/TRL,
// LLaMA-Factory, axolotl, torchtune, PEFT) as scenario JSON plus the report (docs/imports.md).
EMSCRIPTEN_KEEPALIVE const char* vramcalc_api_import(const char* config_text, int length) {
    return guarded([&]() -> json {
        json out;
        const auto text = input(config_text, length, out);
        if (!text) return out;
#ifdef VRAMCALC_HAS_IMPORTS
        return vramcalc::import_answer(vramcalc::import_config(*text, *vramcalc::builtin_catalog()));
#else
        return failure("config", "this build has no config importer (it was built without yaml-cpp); the CLI (vramcalc import) imports configs");
#endif
    });
}

// The one size limit, for api_post.js to check before it allocates.
EMSCRIPTEN_KEEPALIVE int vramcalc_api_max_input_bytes() { return static_cast<int>(vramcalc::kMaxInputBytes); }

}  // extern "C"
