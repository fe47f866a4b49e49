// A config people already run with (a `vllm serve` line, a DeepSpeed JSON, a LLaMA-Factory YAML, ...),
// pasted, dropped or opened, imported into the scenario (docs/imports.md) by the platform: the desktop app
// runs the importer in-process (desktop/converters_import.cpp); the page leaves it out of its wasm for size
// and loads it as a separate module (web/import_module.cpp) on the first such paste, drop or open.
#include "ui.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc::ui {

bool import_into(AppState& st, const std::string& name, const std::string& text) {
    // The status first: the desktop answers at once (through App::on_imported, which replaces it), the
    // page once its importer module has loaded.
    set_status(st, "Importing " + name + " (loading the config importer)...");
    if (st.platform->import_config(name, text)) return true;
    set_status(st, name + ": this build does not import other tools' configs (the CLI's vramcalc import does); a config.json or a scenario file works", true);
    return false;
}

std::optional<nlohmann::json> read_json_input(AppState& st, const std::string& name, const std::string& text, bool& refused) {
    refused = false;
    std::string why;
    auto j = parse_json_text(text, why);
    if (j) return j;
    // JSON is what starts with { or [ (after blanks); a YAML file or a command line is the importer's.
    const auto first = text.find_first_not_of(" \t\r\n");
    const bool json_like = first != std::string::npos && (text[first] == '{' || text[first] == '[');
    if (json_like || text.size() > kMaxInputBytes || text.find('\0') != std::string::npos) {
        refused = true;
        set_status(st, name + ": " + why, true);
    }
    return std::nullopt;
}

std::string answer_errors(const nlohmann::json& answer, const char* if_none) {
    std::string why;
    if (answer.is_object() && answer.contains("errors") && answer["errors"].is_array())
        for (const auto& e : answer["errors"]) {
            if (!why.empty()) why += "; ";
            const std::string field = widgets::text_at(e, "field", "");
            why += (field.empty() ? "" : field + ": ") + widgets::text_at(e, "message", "");
        }
    return why.empty() ? if_none : why;
}

void import_answered(AppState& st, const std::string& name, const nlohmann::json& answer) {
    if (answer.is_object() && answer.value("ok", false)) {
        apply_import(st, name, answer);
        return;
    }
    set_status(st, name + ": " + answer_errors(answer, "the importer gave no answer"), true);
}

void apply_import(AppState& st, const std::string& name, const nlohmann::json& imported) {
    // The imported keys over the current scenario: what the config does not say (the GPU, or the model
    // when its name is no preset) stays as it was. A config of another kind of run (a training recipe
    // over a serving scenario, or back) keeps only the model and the GPU: the other run's engine,
    // parallelism and batch are not this one's.
    const nlohmann::json patch = imported.value("scenario", nlohmann::json::object());
    nlohmann::json s = st.scenario;
    if (patch.contains("workload") && patch["workload"] != s.value("workload", nlohmann::json("train"))) {
        nlohmann::json kept = nlohmann::json::object();
        for (const char* k : {"model", "gpu"})
            if (s.contains(k)) kept[k] = s[k];
        s = std::move(kept);
    }
    s.merge_patch(patch);
    st.scenario = std::move(s);
    st.dirty = true;
    const auto count = [&](const char* k) { return std::to_string(imported.contains(k) ? imported[k].size() : 0); };
    std::string msg = "Imported " + imported.value("format", std::string("?")) + " config " + name + ": " + count("read") +
                      " keys read, " + count("ignored") + " ignored, " + count("unknown") + " unknown";
    const nlohmann::json unknown = imported.value("unknown", nlohmann::json::array());
    for (std::size_t i = 0; i < unknown.size() && i < 5; ++i) msg += (i ? ", " : " (") + unknown[i].value("key", std::string());
    if (!unknown.empty()) msg += unknown.size() > 5 ? ", ...)" : ")";
    for (const auto& n : imported.value("notes", nlohmann::json::array()))
        if (n.is_string() && n.get<std::string>().rfind("model ", 0) == 0) msg += ". " + n.get<std::string>();
    set_status(st, msg, !unknown.empty());
}

}  // namespace vramcalc::ui
