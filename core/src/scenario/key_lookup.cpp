// Lookups over the scenario-key table (keys.cpp): find a row, its help, where it applies, typed reads
// with its range, the allowed values of enum keys.
#include "enums.hpp"
#include "rows.hpp"

namespace vramcalc {
namespace detail {
namespace {

bool listed(std::string_view list, std::string_view word) {
    while (!list.empty()) {
        const auto sp = list.find(' ');
        if (list.substr(0, sp) == word) return true;
        if (sp == std::string_view::npos) break;
        list.remove_prefix(sp + 1);
    }
    return false;
}

bool prefix_listed(std::string_view list, std::string_view value) {
    while (!list.empty()) {
        const auto sp = list.find(' ');
        if (value.rfind(list.substr(0, sp), 0) == 0) return true;
        if (sp == std::string_view::npos) break;
        list.remove_prefix(sp + 1);
    }
    return false;
}

std::string_view leaf(std::string_view name) {
    const auto dot = name.rfind('.');
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

}  // namespace

const KeyRow* find_key_row(std::string_view name) {
    for (const auto& r : key_rows())
        if (r.key.name == name) return &r;
    return nullptr;
}

const ScenarioKey& key_of(std::string_view name) {
    static const ScenarioKey none{.name = "", .type = KeyType::string, .workload = KeyWorkload::both};
    const KeyRow* r = find_key_row(name);
    return r ? r->key : none;
}

bool known_key(std::string_view name) {
    if (find_key_row(name)) return true;
    const auto dot = name.rfind('.');
    if (dot == std::string_view::npos) return false;
    for (const auto& r : key_rows())
        if (!r.key.alias.empty() && r.key.alias == name.substr(dot + 1) && r.key.name.substr(0, r.key.name.rfind('.')) == name.substr(0, dot))
            return true;
    return false;
}

void warn_unknown_keys(const json& obj, const std::string& path, std::vector<std::string>& warnings) {
    for (const auto& [k, v] : obj.items()) {
        const std::string name = path.empty() ? k : path + "." + k;
        if (!known_key(name) || (path.empty() && name.find('.') != std::string::npos))
            warnings.push_back("unknown scenario key \"" + name + "\" ignored");
    }
}

namespace {

// A number key given as null: in a scenario that is JS's NaN, Infinity or undefined after
// JSON.stringify, never "the default" (leave the key out for that). Config.json files keep their null.
bool null_number(FieldReader& r, std::string_view key, const ScenarioKey& k) {
    if (!r.is_null(key)) return false;
    const bool integer = k.type == KeyType::integer;
    const auto bound = [integer](double v) { return integer ? std::to_string(static_cast<std::int64_t>(v)) : describe(json(v)); };
    r.error(key, "got null, expected " + std::string(integer ? "an integer" : "a number") + " from " + bound(k.min) + " to " +
                     bound(k.max) +
                     " (JavaScript's NaN, Infinity and undefined become null in JSON; leave the key out for its default)");
    return true;
}

}  // namespace

std::int64_t read_integer(FieldReader& r, std::string_view name, std::int64_t fallback) {
    const ScenarioKey& k = key_of(name);
    if (null_number(r, leaf(name), k) || (!k.alias.empty() && null_number(r, k.alias, k))) return fallback;
    const auto lo = static_cast<std::int64_t>(k.min), hi = static_cast<std::int64_t>(k.max);
    if (k.alias.empty()) return r.integer_or({leaf(name)}, fallback, lo, hi);
    return r.integer_or({leaf(name), k.alias}, fallback, lo, hi);
}

double read_number(FieldReader& r, std::string_view name, double fallback) {
    const ScenarioKey& k = key_of(name);
    if (null_number(r, leaf(name), k)) return fallback;
    return r.number_or(leaf(name), fallback, k.min, k.max);
}

}  // namespace detail

std::span<const ScenarioKey> scenario_keys() {
    static const std::vector<ScenarioKey> keys = [] {
        std::vector<ScenarioKey> v;
        for (const auto& r : detail::key_rows()) v.push_back(r.key);
        return v;
    }();
    return keys;
}

const ScenarioKey* find_scenario_key(std::string_view name) {
    const detail::KeyRow* r = detail::find_key_row(name);
    return r ? &r->key : nullptr;
}

std::string_view scenario_key_help(std::string_view name) {
    const ScenarioKey* k = find_scenario_key(name);
    return k ? k->help : std::string_view();
}

bool applies_to(const ScenarioKey& k, const Scenario& s) {
    if (k.workload == KeyWorkload::train && s.workload != Workload::train) return false;
    if (k.workload == KeyWorkload::infer && s.workload != Workload::infer) return false;
    if (!k.frameworks.empty() && !detail::listed(k.frameworks, to_string(s.framework))) return false;
    if (!k.methods.empty() && !detail::listed(k.methods, to_string(s.method))) return false;
    if (!k.weights.empty() && !detail::prefix_listed(k.weights, s.weights)) return false;
    return true;
}

bool read_by_estimate(const ScenarioKey& k, const Scenario& s) {
    if (applies_to(k, s)) return true;
    // Training rows that inference reads as well: the tensor / pipeline split (inference/placement.cpp), the
    // degrees the reader checks against num_gpus (cp, ep: read.cpp) and the attention kernel (transformers'
    // eager scores, llama.cpp's flash attention).
    if (s.workload == Workload::infer && k.workload == KeyWorkload::train && k.methods.empty())
        for (std::string_view name : {"tp", "pp", "cp", "ep", "attention"})
            if (k.name == name) return true;
    // RLHF roles train with methods of their own (a LoRA critic reads the lora row): the method rows stay.
    if (s.workload == Workload::train && s.rlhf.algorithm != RlhfAlgorithm::none && !k.methods.empty()) return true;
    // The one inference row a training run reads: group_size sizes a GPTQ/AWQ-quantised base
    // (training/model_states.cpp).
    return s.workload == Workload::train && k.name == "group_size";
}

nlohmann::json applicable_keys(const nlohmann::json& doc, const Scenario& s) {
    if (!doc.is_object()) return doc;
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, value] : doc.items()) {
        const ScenarioKey* k = find_scenario_key(name);
        // Unknown keys stay (the reader names them); so do the record's keys (model_hub_id, extra).
        if (k && k->read && k->name.find('.') == std::string_view::npos && !read_by_estimate(*k, s)) continue;
        out[name] = value;
    }
    return out;
}

std::vector<std::string> frameworks_for(Workload w) {
    // Training: PyTorch stacks (training_step.cpp, recipes.cpp); inference: the engines inference.cpp models.
    if (w == Workload::train) return {"hf", "torchtune", "litgpt", "deepspeed", "megatron", "unsloth", "torchtitan"};
    return {"hf", "vllm", "llama.cpp", "torchtune"};
}

std::vector<std::string> allowed_values(std::string_view key) {
    const detail::KeyRow* r = detail::find_key_row(key);
    return r && r->bind.values ? r->bind.values() : std::vector<std::string>{};
}

}  // namespace vramcalc
