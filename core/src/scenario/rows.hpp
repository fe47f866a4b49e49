// Internal: the rows of the scenario-key table with what binds each to the Scenario struct, shared by
// the table (keys.cpp), the reader (read.cpp, read_rlhf.cpp) and the writer (write.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/json_reader.hpp"
#include "vramcalc/catalog.hpp"
#include "vramcalc/scenario_keys.hpp"

namespace vramcalc::detail {

inline constexpr std::int64_t kMaxTokens = std::int64_t{1} << 27;  // 134M tokens per sequence
inline constexpr std::int64_t kMaxCount = std::int64_t{1} << 20;   // batches, GPUs, accumulation steps

// Everything a top-level key's reader needs: the document, the scenario filled so far (its absent keys
// hold default_scenario's values) and where problems go.
struct ReadContext {
    const json& doc;
    const Catalog& catalog;
    Scenario& s;
    FieldReader& r;  // reads top-level keys of `doc`
    Result<Scenario>& out;
};

struct KeyBinding {
    // Reads the key into the scenario (absent: leaves the default). nullptr: not read.
    void (*read)(ReadContext& c, const ScenarioKey& k) = nullptr;
    // Writes the key of `s` into `out`. nullptr: not written (nested rows, record-only keys).
    void (*write)(const Scenario& s, json& out, const ScenarioKey& k) = nullptr;
    // Whether `s` holds what the reader would fall back to (`d`, fallback_for(s)).
    bool (*at_default)(const Scenario& s, const Scenario& d) = nullptr;
    // Enum keys: the allowed values.
    std::vector<std::string> (*values)() = nullptr;
};

struct KeyRow {
    ScenarioKey key;
    KeyBinding bind;
};

std::span<const KeyRow> key_rows();
const KeyRow* find_key_row(std::string_view name);
// Whether the table has `name` ("lora.rank") or it is a row's alias ("lora.r").
bool known_key(std::string_view name);
// Keys of `obj` (the object at `path`, e.g. "lora") that the table does not know: warnings, as at the top level.
void warn_unknown_keys(const json& obj, const std::string& path, std::vector<std::string>& warnings);

// The row of a key the code names; a missing row is a programming error caught by the tests.
const ScenarioKey& key_of(std::string_view name);

// Typed reads of one key of `r`'s object, with the range, alias and messages of row `name`
// (the key read is the last segment of the dotted name).
std::int64_t read_integer(FieldReader& r, std::string_view name, std::int64_t fallback);
double read_number(FieldReader& r, std::string_view name, double fallback);

// What the reader falls back to for each absent key of `s`: default_scenario(s.framework, s.workload)
// with the defaults that follow earlier keys (the base format of s.method).
Scenario fallback_for(const Scenario& s);

// The special readers and writers the table binds (read.cpp, read_rlhf.cpp, write.cpp).
void read_model(ReadContext& c, const ScenarioKey& k);
void read_gpu(ReadContext& c, const ScenarioKey& k);
void read_lora(ReadContext& c, const ScenarioKey& k);
void read_weights(ReadContext& c, const ScenarioKey& k);
void read_group_size(ReadContext& c, const ScenarioKey& k);
void read_quantization(ReadContext& c, const ScenarioKey& k);
void read_rlhf(ReadContext& c, const ScenarioKey& k);
void write_model(const Scenario& s, json& out, const ScenarioKey& k);
void write_gpu(const Scenario& s, json& out, const ScenarioKey& k);
void write_lora(const Scenario& s, json& out, const ScenarioKey& k);
void write_rlhf(const Scenario& s, json& out, const ScenarioKey& k);

// Settings no real tool accepts together: read errors naming the field, the value and what is allowed
// (contradictions.cpp). check_rollout_fit reads the rlhf object's rollout against the job.
void check_contradictions(const Scenario& s, FieldReader& r);

// The cross-field checks of a read scenario (cross_fields.cpp): parallel layout, expert groups per engine, layer
// stacks and hybrid models, then check_contradictions.
void check_cross_fields(const Scenario& s, FieldReader& r);
void check_rollout_fit(const Scenario& s, FieldReader& rlhf);
// Keys of `doc` that the estimate of `s` does not read (another workload, method, framework or weight
// format): one warning each.
void check_ignored_keys(const json& doc, const Scenario& s, std::vector<std::string>& warnings);
// The custom GPU architectures the estimator knows ("volta", "ampere", "cdna3", ...).
const std::vector<std::string>& gpu_archs();

// The text an inline config.json is kept as (Scenario::model_config): compact JSON, never throws.
std::string compact_json(const json& j);

// A model given as a preset id, an inline config object or (where allowed) a parameter count, as
// `model_ref` and `model_config` record it; written back as it was given.
json model_json(const ModelSpec& m, const std::string& ref, const std::string& config);

}  // namespace vramcalc::detail
