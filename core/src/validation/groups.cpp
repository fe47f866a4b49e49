// docs/validation.md's groups of a reference file's entries: by the source each names, and by workload, GPU
// count and confidence (the groups the issues' accuracy floors are stated for).
#include "vramcalc/validate.hpp"

namespace vramcalc {
namespace {

using json = nlohmann::json;

// Reference-entry fields for the workload groups of `validate --markdown` (a scenario without a workload
// key is a training one, as scenario_from_json reads it).
// A reading right after the model was built ("measured": {"stage": "load"}) is its own group, "load".
std::string workload_of(const json& e) {
    if (!e.contains("scenario") || !e["scenario"].is_object()) return "";
    if (measured_stage(e) == "load") return "load";
    const json& s = e["scenario"];
    return s.contains("workload") && s["workload"].is_string() ? s["workload"].get<std::string>() : "train";
}

long long gpus_of(const json& e) {
    const json& s = e["scenario"];
    return s.contains("num_gpus") && s["num_gpus"].is_number_integer() ? s["num_gpus"].get<long long>() : 1;
}
bool trusted(const json& e) {
    const std::string c = e.contains("confidence") && e["confidence"].is_string() ? e["confidence"].get<std::string>() : "";
    return c == "high" || c == "medium";
}

// Each entry's source, in order of first appearance, with the summary of its entries.
void group_by_source(ValidationGroups& f, const json& list, const ValidationReport& rep) {
    std::vector<std::vector<EntryResult>> groups;  // entry results per source (one per entry, in order)
    std::size_t n = 0;
    for (const json& e : list) {  // all objects: validate_reference rejected anything else
        const std::string src = e.contains("source") && e["source"].is_string() ? e["source"].get<std::string>()
                                                                                : "(no source given)";
        int idx = -1;
        for (std::size_t i = 0; i < f.sources.size(); ++i)
            if (f.sources[i].source == src) idx = static_cast<int>(i);
        if (idx < 0) {
            idx = static_cast<int>(f.sources.size());
            f.sources.push_back({src, 0, {}});
            groups.emplace_back();
        }
        ++f.sources[static_cast<std::size_t>(idx)].entries;
        groups[static_cast<std::size_t>(idx)].push_back(rep.entries[n++]);
        f.entry_source.push_back(idx);
    }
    for (std::size_t i = 0; i < groups.size(); ++i) f.sources[i].report = summarize(std::move(groups[i]));
}

void group_by_workload(ValidationGroups& f, const json& list, const ValidationReport& rep) {
    // The groups the issues' floors are stated for: training runs of confidence high or medium (one GPU,
    // several, both) and inference runs.
    struct Group {
        const char* label;
        bool (*in)(const json&);
    };
    static const Group kGroups[] = {
        {"training, confidence high or medium, any GPU count",
         [](const json& e) { return workload_of(e) == "train" && trusted(e); }},
        {"training, confidence high or medium, one GPU",
         [](const json& e) { return workload_of(e) == "train" && trusted(e) && gpus_of(e) == 1; }},
        {"training, confidence high or medium, several GPUs",
         [](const json& e) { return workload_of(e) == "train" && trusted(e) && gpus_of(e) > 1; }},
        {"inference, every confidence", [](const json& e) { return workload_of(e) == "infer"; }},
        {"right after the model is built (weights and adapters), every confidence",
         [](const json& e) { return workload_of(e) == "load"; }},
    };
    for (const auto& g : kGroups) {
        std::vector<EntryResult> sel;
        for (std::size_t i = 0; i < list.size(); ++i)
            if (list[i].contains("measured") && g.in(list[i])) sel.push_back(rep.entries[i]);
        const int entries = static_cast<int>(sel.size());
        const ValidationReport grp = summarize(std::move(sel));
        if (grp.count > 0 || grp.oom_total > 0) f.workloads.push_back({g.label, entries, grp});
    }
}

}  // namespace

const json& grouped_entries(const json& reference) {
    const json* list = &reference;
    if (reference.is_object())
        for (const char* k : {"entries", "runs", "cases"})
            if (reference.contains(k)) list = &reference[k];
    return *list;
}

ValidationGroups group_reference(const json& reference, const ValidationReport& report) {
    ValidationGroups g;
    group_by_source(g, grouped_entries(reference), report);
    group_by_workload(g, grouped_entries(reference), report);
    return g;
}

}  // namespace vramcalc
