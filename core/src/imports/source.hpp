// Internal: what every importer shares. An Entry is one key of the file (a flag of a command line, or a
// leaf of a YAML/JSON document flattened to a dotted path); a Rule maps one key onto scenario keys, or
// says why it is ignored; an Importer applies a table of rules and fills the scenario and the report.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/import.hpp"

namespace vramcalc::imports {

using json = nlohmann::json;

struct Entry {
    enum class Kind { scalar,
                      null,
                      list,
                      other };
    std::string key;    // flag ("--tp") or dotted path ("zero_optimization.stage")
    std::string value;  // scalar text; a flag without a value: ""
    Kind kind = Kind::scalar;
    std::vector<std::string> items;  // Kind::list: the scalar items
    int line = 0;
    bool has_value = true;  // command-line flags: false when none followed
    int repeated_at = 0;    // the same key again on this line, and that one counts (0: not repeated)
};

class Importer;
using Handler = void (*)(Importer& im, const Entry& e);

// One key's rule. `key` matches exactly, or a whole subtree when it ends in ".*" ("profiler.*").
// handler nullptr: recognised and ignored for the reason `why`.
struct Rule {
    const char* key;
    Handler handler;
    const char* why = "";
};

// Reasons shared by the tables (docs/imports.md explains each).
inline constexpr const char* kNoMemory = "no effect on memory";
inline constexpr const char* kNotModelled = "read, not modelled: the bill does not depend on it yet";

// Whether the file has `key`, or a key nested under it ("deepspeed" matches "deepspeed.zero_optimization").
bool has_key(std::span<const Entry> es, std::string_view key);
bool has_any(std::span<const Entry> es, std::initializer_list<std::string_view> keys);

class Importer {
public:
    Importer(std::string format, const Catalog& catalog);

    // Applies the first matching rule of `tables` (in order) to each entry; no rule: unknown.
    void apply(std::span<const Entry> entries, std::initializer_list<std::span<const Rule>> tables);

    // Sets scenario key `target` ("lora.rank", "rlhf.rollout.tp") from entry `e` and records it as read. A number
    // outside the scenario key's range (scenario_keys.hpp) is not set: it is reported as ignored, with a warning.
    void set(const std::string& target, json value, const Entry& e, std::string note = "");
    // Sets a key without an entry of its own (a default of the importing tool), recorded as a note.
    void set_default(const std::string& target, json value, const std::string& why);
    void ignore(const Entry& e, std::string why);
    void note(std::string text);
    // A value the tool would take but the scenario cannot (out of range, repeated): a note starting
    // "warning:" that names the line and the key (every front end shows the notes), and a warning of the result.
    void warn(const Entry& e, const std::string& text);
    // A value the tool itself refuses: an error naming the line and the key, and `why` in the tool's words.
    void refuse(const Entry& e, const std::string& why);
    bool has(const std::string& target) const;

    // Typed values of `e`; a wrong type is an error naming the line and the key (nullopt).
    std::optional<std::int64_t> integer(const Entry& e);
    std::optional<double> number(const Entry& e);
    std::optional<bool> boolean(const Entry& e);
    std::string text(const Entry& e) const { return e.value; }

    // The model: a preset when `name` (hub id, path, GGUF file name) resolves to one, else a note.
    void model(const Entry& e, const std::string& name);

    const Imported& current() const { return out_; }
    // How many keys each list of the report holds (read, ignored, unknown), and `prefix` put back in front
    // of the keys reported since those counts (a nested config read with another format's rules).
    std::array<std::size_t, 3> report_sizes() const;
    void prefix_keys_since(const std::array<std::size_t, 3>& sizes, const std::string& prefix);
    Result<Imported> finish();
    Problems& errors() { return errors_; }

private:
    void error(const Entry& e, const std::string& expected);
    const Catalog& catalog_;
    Imported out_;
    Problems errors_;
    std::vector<std::string> warnings_;
};

// A boolean entry set as the scenario key `key` (an unreadable value is reported by Importer::boolean).
inline void boolean_key(Importer& im, const Entry& e, const char* key) {
    if (auto v = im.boolean(e)) im.set(key, *v, e);
}

// The preset id a hub id, a path or a GGUF file name names, or "" (model_match.cpp).
std::string match_model_preset(std::string_view name, const Catalog& catalog);

// Lower case, ASCII.
std::string lower(std::string_view s);
json import_to_json_keys(const std::vector<ImportedKey>& keys);

// Where a report names a key: "line 3, key --tp".
std::string where(const Entry& e);

// A YAML/JSON document as entries (yaml_tree.cpp): map keys flattened to dotted paths, lists of scalars kept
// as one entry, a key repeated in one map reported once per earlier copy (repeated_at: the copy that counts).
// Aliases make shared subtrees that a walk expands: the walk visits at most kMaxYamlNodes values and
// kMaxYamlDepth levels, else an error names the limit. Real configs hold a few hundred values; the limit keeps
// any input under 1 MB within 100 ms (yaml-cpp parses about 2 us per value, the import about 4 us per key), and
// a text with more lines and commas than the limit is refused before yaml-cpp parses it.
inline constexpr std::size_t kMaxYamlNodes = 10000;
// yaml-cpp scans a plain scalar at about 16 MB/s: a settings file (real ones are under 20 KB) is at most this long.
inline constexpr std::size_t kMaxYamlBytes = std::size_t{256} << 10;
inline constexpr int kMaxYamlDepth = 64;
struct YamlEntries {
    std::vector<Entry> entries;
    std::vector<Entry> repeated;  // the earlier copies of keys written twice in one map (also in entries)
};
Result<YamlEntries> yaml_entries(std::string_view text);

// Importers, one per source format (one file each).
Result<Imported> import_command_line(std::string_view text, const Catalog& catalog, bool& recognised);
void import_vllm(Importer& im, std::span<const Entry> flags, const Entry* positional_model);
void import_sglang(Importer& im, std::span<const Entry> flags);
void import_llamacpp(Importer& im, std::span<const Entry> flags);
void import_deepspeed(Importer& im, std::span<const Entry> entries, const std::string& prefix = "");
void import_accelerate(Importer& im, std::span<const Entry> entries);
void import_hf_trainer(Importer& im, std::span<const Entry> entries);  // HF TrainingArguments (and TRL configs: import_trl)
void import_trl(Importer& im, std::span<const Entry> entries);         // TRL configs: the Trainer's keys with TRL's defaults
void import_llamafactory(Importer& im, std::span<const Entry> entries);
void import_axolotl(Importer& im, std::span<const Entry> entries);
void import_torchtune(Importer& im, std::span<const Entry> entries);
void import_peft(Importer& im, std::span<const Entry> entries);

// Rules several formats share (hf_trainer.cpp): HF TrainingArguments keys.
std::span<const Rule> hf_training_argument_rules();
// An optimizer name of HF's `optim`, axolotl's `optimizer` or torchtune's component: the scenario value or "".
std::string optimizer_from_name(std::string_view name);
// The handler of such a key: sets `optimizer`, or reports a name the bill does not model.
void read_optimizer(Importer& im, const Entry& e);
// A 16-bit model (torch_dtype) trains without an fp32 copy unless DeepSpeed or FSDP adds one (hf_trainer.cpp).
void finish_hf_precision(Importer& im, std::span<const Entry> entries);
// transformers' TrainingArguments raises "At most one of fp16 and bf16 can be True, but not both".
void refuse_fp16_with_bf16(Importer& im, std::span<const Entry> entries);
// A per-GPU batch size fed to torch's DataLoader (HF, axolotl, torchtune): below 1 is refused as torch does.
void read_micro_batch(Importer& im, const Entry& e);

}  // namespace vramcalc::imports
