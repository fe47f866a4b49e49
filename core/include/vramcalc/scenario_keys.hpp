// One table of scenario keys: every key of the scenario JSON (shared/spec/scenario.md and
// docs/scenario-extensions.md) with its type, range, default, help text and where it applies.
// The JSON reader (known keys, range checks and their messages), the writer (scenario_to_json), the URL
// codec's key order and the UI's help all come from it; the table itself is core/src/scenario/keys.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/scenario.hpp"

namespace vramcalc {

enum class KeyType {
    integer,  // JSON integer within [min, max]
    number,   // JSON number within [min, max]
    boolean,
    enumeration,  // one of allowed_values(name)
    string,
    model,   // preset id, inline config.json object, or {"name", "parameters"}
    gpu,     // preset id or {"name", "memory_gib" | "memory_bytes", "arch", "bf16"}
    object,  // a nested object: its keys are the rows named "<name>.<key>"
    list,    // lora.targets: a list of module names or "all-linear"
};

enum class KeyWorkload { both,
                         train,
                         infer };

struct ScenarioKey {
    std::string_view name{};                   // JSON key; keys of nested objects are dotted ("lora.rank")
    KeyType type = KeyType::string;            // what the JSON value is
    KeyWorkload workload = KeyWorkload::both;  // the workload whose estimate reads it
    std::string_view frameworks{};             // space-separated frameworks that read it ("vllm"); empty: all
    std::string_view methods{};                // space-separated training methods that read it ("lora qlora"); empty: all
    std::string_view weights{};                // space-separated weight-format prefixes that read it ("gptq- awq-"); empty: all
    double min = 0, max = 0;                   // integer and number keys: the allowed range, inclusive
    // What the default means where its value alone does not say ("none" for dataset_tokens 0), or, for a
    // key default_scenario holds no plain value of (model, a custom GPU's fields, objects), the whole
    // default in words. Never the value itself: scenario_key_default_text derives that.
    std::string_view default_note{};
    std::string_view help{};       // what it does to memory (UI tooltips)
    std::string_view alias{};      // another accepted spelling ("r" for lora.rank), or empty
    bool shown_at_default = true;  // scenario_to_json writes it even at its default where it applies
    bool read = true;              // false: kept for the record (model_hub_id, extra), not read
};

// Every key, top-level keys in the order scenario_to_json and links write them, each followed by the
// keys of its object ("lora", "lora.rank", ...).
std::span<const ScenarioKey> scenario_keys();

// The row of `name` ("micro_batch", "lora.rank"), or nullptr.
const ScenarioKey* find_scenario_key(std::string_view name);

// The help text of `name`, or "" when the key has none.
std::string_view scenario_key_help(std::string_view name);

// The default of `name` in default_scenario(f, w) as the writer writes it, as JSON text ("8", "0.05",
// "\"bf16-mixed\"", "true"); "" where default_scenario holds no plain value for it (model, a custom GPU's
// fields, objects and lists, the keys of the absent rlhf object, lora.use_dora: the writer leaves it out).
std::string scenario_key_default(std::string_view name, Framework f, Workload w);

// The default as help shows it: the value in the key's context (its first framework, else hf; its
// workload), then the frameworks whose default differs ("8; unsloth: 16"), then the note in parentheses;
// rlhf's keys by algorithm ("ppo, dpo: 1; grpo: 8"); the note alone where there is no value.
std::string scenario_key_default_text(std::string_view name);

// The allowed range of an integer or number key, inclusive (the reader's bounds); {0, 0} for other keys.
struct KeyRange {
    double min = 0, max = 0;
};
KeyRange key_range(std::string_view name);

// Whether the estimate of `s` reads `k` (its workload, framework, method and weight format match).
bool applies_to(const ScenarioKey& k, const Scenario& s);

// Whether the estimate of `s` (its bill and its solvers) reads `k`: applies_to, and the training rows
// inference reads too (tp, pp, cp, ep, attention), the method rows in an RLHF run (its roles have methods
// of their own), and group_size in training (a GPTQ/AWQ base).
bool read_by_estimate(const ScenarioKey& k, const Scenario& s);

// The scenario JSON `doc`, which reads as `s`, without the top-level keys of the table that s's estimate
// does not read (a vLLM scenario's method, lora, seq_len, sharding): what a link carries. Reading the result
// gives the same bill, less the warnings that name the keys it left out. Unknown keys and the record's keys
// (model_hub_id, extra) stay.
nlohmann::json applicable_keys(const nlohmann::json& doc, const Scenario& s);

// The frameworks whose memory the estimator models for workload `w` (for framework choosers).
std::vector<std::string> frameworks_for(Workload w);

// Allowed values of each enum-valued key ("precision", "weights", "rlhf.algorithm"), for messages and UIs.
std::vector<std::string> allowed_values(std::string_view key);

}  // namespace vramcalc
