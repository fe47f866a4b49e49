// A config people already run with (a `vllm serve` line, a DeepSpeed JSON, a LLaMA-Factory YAML, ...),
// pasted, dropped or opened, imported into the scenario (docs/imports.md). CMake picks this file where
// the build has the importer, import_config_none.cpp where it does not.
#include "ui.hpp"
#include "vramcalc/import.hpp"

namespace vramcalc::ui {

bool import_into(AppState& st, const std::string& name, const std::string& text) {
    const auto r = import_config(text, *st.catalog);
    if (!r.ok()) {
        set_status(st, name + ": " + r.error_text(), true);
        return false;
    }
    // The imported keys over the current scenario: what the config does not say (the GPU, or the model
    // when its name is no preset) stays as it was.
    nlohmann::json s = st.scenario;
    s.merge_patch(r->scenario);
    st.scenario = std::move(s);
    st.dirty = true;
    const auto& rep = r->report;
    std::string msg = "Imported " + rep.format + " config " + name + ": " + std::to_string(rep.read.size()) + " keys read, " +
                      std::to_string(rep.ignored.size()) + " ignored, " + std::to_string(rep.unknown.size()) + " unknown";
    for (std::size_t i = 0; i < rep.unknown.size() && i < 5; ++i) msg += (i ? ", " : " (") + rep.unknown[i].key;
    if (!rep.unknown.empty()) msg += rep.unknown.size() > 5 ? ", ...)" : ")";
    for (const auto& n : rep.notes)
        if (n.rfind("model ", 0) == 0) msg += ". " + n;
    set_status(st, msg, !rep.unknown.empty());
    return true;
}

}  // namespace vramcalc::ui
