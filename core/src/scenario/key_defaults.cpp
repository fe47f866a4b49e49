// The defaults and ranges the key table shows (scenario_keys.hpp), derived from default_scenario and
// default_rlhf through each row's writer, so that the table's help cannot disagree with the estimator.
#include <cmath>
#include <utility>

#include "enums.hpp"
#include "rows.hpp"

namespace vramcalc {
namespace {

using detail::json;

// The value of dotted `name` ("lora.rank") in what its top-level row writes for `s`; null where the
// writer writes no plain value there (an object, a list, an absent key, an empty model name).
// object_is_true: an object counts as `true` (rlhf's roles and rollout: true = present with its defaults).
json written_value(std::string_view name, const Scenario& s, bool object_is_true = false) {
    const auto dot = name.find('.');
    const std::string top(name.substr(0, dot));
    const detail::KeyRow* row = detail::find_key_row(top);
    if (!row || !row->bind.write) return nullptr;
    json out = json::object();
    row->bind.write(s, out, row->key);
    json v = out.contains(top) ? out[top] : json();
    for (std::string_view rest = dot == std::string_view::npos ? "" : name.substr(dot + 1); !rest.empty();) {
        const auto d = rest.find('.');
        const std::string part(rest.substr(0, d));
        if (!v.is_object() || !v.contains(part)) return nullptr;
        json next = v[part];
        v = std::move(next);
        rest = d == std::string_view::npos ? "" : rest.substr(d + 1);
    }
    if (object_is_true && v.is_object()) return true;
    if (!v.is_primitive() || (v.is_string() && v.get<std::string>().empty())) return nullptr;
    return v;
}

Framework framework_named(std::string_view n) {
    for (const auto& [f, name] : detail::enum_table<Framework>())
        if (n == name) return f;
    return Framework::hf;
}

bool in_rlhf(std::string_view name) { return name.rfind("rlhf.", 0) == 0; }

// A value as help shows it: strings without quotes, whole numbers without a fraction.
std::string json_shown(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<std::int64_t>(d));
    }
    return v.dump();
}

// "<first>; a, b: <v2>; c: <v3>": the value of the first context, then each other value with the
// contexts that have it (contexts without a value are left out); name_first: the first value's contexts
// are named too, where there is more than one value.
std::string grouped(const std::vector<std::pair<std::string, json>>& values, bool name_first) {
    std::vector<std::pair<json, std::string>> groups;  // value, the contexts that have it
    for (const auto& [ctx, v] : values) {
        if (v.is_null()) continue;
        auto it = groups.begin();
        while (it != groups.end() && it->first != v) ++it;
        if (it == groups.end()) groups.push_back({v, ctx});
        else it->second += ", " + ctx;
    }
    std::string text;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (i) text += "; ";
        if (i || (name_first && groups.size() > 1)) text += groups[i].second + ": ";
        text += json_shown(groups[i].first);
    }
    return text;
}

Workload context_workload(const ScenarioKey& k) { return k.workload == KeyWorkload::infer ? Workload::infer : Workload::train; }

// The frameworks whose default the text shows, the key's context (its first framework, else hf) first.
std::vector<std::string> context_frameworks(const ScenarioKey& k) {
    std::vector<std::string> out;
    const std::string first(k.frameworks.substr(0, k.frameworks.find(' ')));
    out.push_back(first.empty() ? "hf" : first);
    for (const auto& f : frameworks_for(context_workload(k))) {
        if (f == out.front()) continue;
        Scenario s;
        s.workload = context_workload(k);
        s.framework = framework_named(f);
        if (k.frameworks.empty() || applies_to(ScenarioKey{.frameworks = k.frameworks}, s)) out.push_back(f);
    }
    return out;
}

// rlhf's keys: the default of each algorithm, for a policy at the hf training defaults.
std::string rlhf_text(const ScenarioKey& k) {
    if (k.name == "rlhf.algorithm") return "";
    std::vector<std::pair<std::string, json>> values;
    for (RlhfAlgorithm a : {RlhfAlgorithm::ppo, RlhfAlgorithm::dpo, RlhfAlgorithm::grpo}) {
        Scenario s = default_scenario(Framework::hf, Workload::train);
        s.rlhf = default_rlhf(a, s);
        values.push_back({to_string(a), written_value(k.name, s, true)});
    }
    return grouped(values, true);
}

}  // namespace

std::string scenario_key_default(std::string_view name, Framework f, Workload w) {
    if (in_rlhf(name)) return "";  // the rlhf object is absent by default; its keys' defaults follow its algorithm
    const json v = written_value(name, default_scenario(f, w));
    return v.is_null() ? "" : v.dump();
}

std::string scenario_key_default_text(std::string_view name) {
    const ScenarioKey* k = find_scenario_key(name);
    if (!k) return "";
    std::string text;
    if (in_rlhf(name)) {
        text = rlhf_text(*k);
    } else if (name == "workload" || name == "framework") {
        text = json_shown(written_value(name, Scenario{}));
    } else {
        std::vector<std::pair<std::string, json>> values;
        for (const auto& f : context_frameworks(*k))
            values.push_back({f, written_value(name, default_scenario(framework_named(f), context_workload(*k)))});
        if (values.front().second.is_null() && !k->default_note.empty()) {  // no value in the key's context
            values.front().second = std::string(k->default_note);           // lora.targets: "the model type's default"
            return grouped(values, false);
        }
        text = values.front().second.is_null() ? "" : grouped(values, false);
    }
    if (k->default_note.empty()) return text;
    return text.empty() ? std::string(k->default_note) : text + " (" + std::string(k->default_note) + ")";
}

KeyRange key_range(std::string_view name) {
    const ScenarioKey* k = find_scenario_key(name);
    if (!k || (k->type != KeyType::integer && k->type != KeyType::number)) return {};
    return {k->min, k->max};
}

}  // namespace vramcalc
