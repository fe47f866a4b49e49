// App: owns the AppState, turns scenario changes into Results (once per change, never per frame) and
// takes the platform's asynchronous answers (dropped/opened files, fetched Hub configs, URL hashes).
#include <algorithm>
#include <chrono>

#include "ui.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/scenario_keys.hpp"
#include "vramcalc/url_state.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc::ui {

using json = nlohmann::json;

json default_scenario() {
    return {{"model", "llama-3.1-8b"}, {"workload", "train"}, {"framework", "hf"}, {"method", "lora"}, {"precision", "bf16"}, {"gpu", "h100-80gb"}, {"micro_batch", 4}, {"seq_len", 2048}};
}

App::App(const Catalog& catalog, Platform& platform) {
    st_.catalog = &catalog;
    st_.platform = &platform;
    st_.scenario = default_scenario();
    const std::string saved = platform.load_setting("scenario");
    if (!saved.empty()) {
        json j = parse_json_or_discarded(saved);
        if (j.is_object() && j.contains("model")) st_.scenario = std::move(j);
    }
    const std::string base = platform.load_setting("hub_base");
    if (!base.empty()) st_.hub_base = base;
}

void App::set_scenario(json scenario) {
    st_.scenario = std::move(scenario);
    st_.dirty = true;
}

bool App::load_url_state(const std::string& hash) {
    if (hash.empty() || hash == "#") return true;
    auto decoded = decode_url_state(hash);
    if (!decoded.ok()) {
        st_.load_error = "The link's scenario could not be read, so the previous one is kept:\n" + decoded.error_text();
        st_.dirty = true;  // refresh the summary so that it carries the error too
        return false;
    }
    st_.load_error.clear();
    set_scenario(*decoded);
    return true;
}

std::string App::url_state() const { return encode_state(st_); }

// The link carries the keys the scenario's estimate reads (a vLLM link no method, lora or seq_len left from a
// training scenario); the page keeps the rest, so switching back restores them.
std::string encode_state(const AppState& st) {
    return encode_url_state(st.results.ok ? applicable_keys(st.scenario, st.results.scenario) : st.scenario);
}

void App::on_file(const std::string& name, const std::string& bytes) {
    if (bytes.empty()) {
        set_status(st_, "No file was read: drop a config.json or a scenario file on the window instead.", true);
        return;
    }
    bool refused = false;
    auto read = read_json_input(st_, name, bytes, refused);
    if (refused) return;
    if (!read || !read->is_object() || (!read->contains("model") && !read->contains("model_type"))) {
        import_into(st_, name, bytes);  // another tool's config: a command line, YAML, DeepSpeed JSON, ...
        return;
    }
    json& j = *read;
    if (j.contains("model")) {  // a scenario file
        set_scenario(std::move(j));
        set_status(st_, "Opened scenario " + name);
    } else {  // a config.json: keep the rest of the scenario
        st_.scenario["model"] = std::move(j);
        st_.dirty = true;
        set_status(st_, "Using model config " + name);
    }
}

void App::on_paste(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return;
    const auto hash = text.find("#v=");
    if (hash != std::string::npos && text.find_first_of(" \t\r\n", first) == std::string::npos) {  // one word: a link
        if (load_url_state(text.substr(hash))) set_status(st_, "Opened the pasted link.");
        return;
    }
    on_file("pasted text", text);
}

void App::on_file_refused(const std::string& name, const std::string& why) { set_status(st_, name + ": " + why, true); }

void App::on_fetched(bool ok, const std::string& url, const std::string& body, const std::string& error) {
    if (!ok) {
        set_status(st_, "Could not fetch " + url + ": " + error, true);
        return;
    }
    bool refused = false;
    auto j = read_json_input(st_, url, body, refused);
    if (refused) return;
    if (!j || !j->is_object()) {
        set_status(st_, url + " did not return a JSON object (is the model gated or private?)", true);
        return;
    }
    st_.scenario["model"] = std::move(*j);
    st_.dirty = true;
    set_status(st_, "Fetched " + url);
}

void App::on_checkpoint(const std::string& report_json) { checkpoint_answer(st_, report_json); }

void App::on_imported(const std::string& name, const std::string& result_json) {
    const json r = parse_json_or_discarded(result_json);
    if (r.is_discarded()) {
        set_status(st_, name + ": the importer's answer was not JSON", true);
        return;
    }
    import_answered(st_, name, r);
}

void App::on_repr(const std::string& answer_json) {
    repr_answered(st_, parse_json_or_discarded(answer_json));
}

void App::update() {
    if (!st_.dirty) return;
    st_.dirty = false;
    recompute(st_);
    st_.scenario_text_stale = true;  // the "Scenario JSON" editor writes its text when it is next shown
    // A hash past what a link may carry (a large inline stack or config) would open on an error, and a
    // megabyte in the address bar cost the page a quarter of a second per change: the address bar then
    // carries no scenario, and a reload restores it from the saved setting below.
    const bool too_long = st_.results.ok && st_.results.scenario.model_config.size() > kUrlStateMaxChars;  // base64 is longer still
    const std::string hash = too_long ? std::string() : url_state();
    st_.platform->set_url_state(hash.size() <= kUrlStateMaxChars ? hash : std::string());
    st_.platform->save_setting("scenario", st_.scenario.dump());
}

void set_status(AppState& st, std::string message, bool error) {
    st.status = std::move(message);
    st.status_is_error = error;
    st.status_edits = st.edits;
    st.link_copied_at = -1;
}

void apply_patch(AppState& st, const json& patch) {
    st.scenario.merge_patch(patch);
    st.dirty = true;
    ++st.edits;
}

namespace {

// What the form shows while the scenario has errors: every other key as the user set it, and defaults
// for the rest, so that one bad value (a link's micro_batch=abc, a model the workload does not allow)
// marks its own field and blanks no other. The keys in error are dropped until the rest resolves; if it
// never does (a model that refuses the default workload), the rest is shown as it is with the default
// model, and failing that the default scenario.
json form_values(const json& scenario, const Problems& errors, const Catalog& catalog) {
    json rest = scenario;
    Problems problems = errors;
    for (int round = 0; round < 3; ++round) {
        bool dropped = false;
        for (const auto& e : problems) {
            if (e.field.empty() || e.field.find_first_of("~ ") != std::string::npos) continue;
            std::string ptr = "/" + e.field;
            std::replace(ptr.begin(), ptr.end(), '.', '/');
            const json::json_pointer p(ptr);
            if (!rest.contains(p)) continue;
            rest[p.parent_pointer()].erase(p.back());
            dropped = true;
        }
        if (!dropped) break;
        auto sc = scenario_from_json(rest, catalog);
        if (sc.ok()) return scenario_to_json(*sc);
        problems = sc.errors;
    }
    rest["model"] = default_scenario()["model"];  // a model the workload refuses: the rest with the default model
    if (auto sc = scenario_from_json(rest, catalog); sc.ok()) return scenario_to_json(*sc);
    auto defaults = scenario_from_json(default_scenario(), catalog);
    return defaults.ok() ? scenario_to_json(*defaults) : json::object();
}

}  // namespace

void recompute(AppState& st) {
    const auto t0 = std::chrono::steady_clock::now();
    Results r;
    auto sc = scenario_from_json(st.scenario, *st.catalog);
    r.warnings = sc.warnings;
    if (!sc.ok()) {
        r.errors = sc.error_text();
        r.field_errors = sc.errors;
        r.scenario_json = form_values(st.scenario, sc.errors, *st.catalog);
        st.results = std::move(r);
        st.platform->set_summary("The scenario has problems: " + st.results.errors + checkpoint_summary(st));
        return;
    }
    r.ok = true;
    r.scenario = *sc;
    r.bill = estimate(r.scenario);
    r.bill_json = bill_to_json(r.bill);
    // The form reads resolved values (widgets.cpp current()); an inline model's config is not one of them,
    // and printing up to a megabyte of layers back into JSON on every change cost the page tens of ms.
    Scenario form = r.scenario;
    form.model_config.clear();
    r.scenario_json = scenario_to_json(form);
    r.catalog = solve_catalog(r.scenario, st.catalog->gpus());
    r.advice = plan_changes(st.scenario, *st.catalog);
    r.curves = memory_curves(r.scenario, r.bill);
    if (r.scenario.framework == Framework::vllm || r.scenario.framework == Framework::llamacpp) r.serving = serving_matrix(r.scenario);
    r.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    st.results = std::move(r);
    std::string answers;
    for (const std::string& line : fit_lines(st.results)) answers += "\n" + line;
    for (const std::string& line : speed_lines(st.results)) answers += "\n" + line;
    if (st.results.bill.rule_of_thumb_bytes > 0) answers += "\n" + rule_of_thumb_line(st.results.bill);
    st.platform->set_summary((st.load_error.empty() ? "" : st.load_error + "\n") + bill_summary(st.results.bill) + answers +
                             serving_summary(st.results.serving) + checkpoint_summary(st));
}

}  // namespace vramcalc::ui
