// import_config(): detects the format from the content and hands it to its importer. Command lines
// (vllm, sglang, llama.cpp) are recognised by their program; everything else is parsed as YAML (JSON is
// YAML too) with yaml-cpp and recognised by its keys.
#include <yaml-cpp/yaml.h>

#include "source.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc {
namespace imports {
namespace {

// The word before ':' on line `line` of `text` (the key a YAML error is about), or "".
std::string key_on_line(std::string_view text, int line) {
    int l = 1;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size() && l < line; ++i)
        if (text[i] == '\n') ++l, start = i + 1;
    const auto end = text.find('\n', start);
    std::string s(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    const auto colon = s.find(':');
    if (colon == std::string::npos) return "";
    s = s.substr(0, colon);
    const auto a = s.find_first_not_of(" \t-\"'{,");
    const auto b = s.find_last_not_of(" \t\"'");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// DeepSpeed reads its JSON with object_pairs_hook=dict_raise_error_on_duplicate_keys (deepspeed/runtime/
// config.py, config_utils.py @029f12b): a key written twice in any object refuses the file.
Result<Imported> deepspeed_duplicates(const std::vector<Entry>& repeated) {
    Result<Imported> r;
    std::string keys;
    for (const auto& e : repeated) keys += (keys.empty() ? "'" : ", '") + e.key + "'";
    r.errors.push_back({where(repeated.front()),
                        "Duplicate keys in DeepSpeed config: [" + keys + "] (DeepSpeed refuses a config with a key written twice)"});
    return r;
}

Result<Imported> import_document(std::string_view text, const Catalog& catalog) {
    if (json_nesting_depth(text) > kMaxJsonDepth) {
        Result<Imported> r;
        r.errors.push_back({"text", "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (real configs nest 3-4)"});
        return r;
    }
    Result<YamlEntries> doc;
    try {
        doc = yaml_entries(text);
    } catch (const YAML::Exception& ex) {
        const int line = ex.mark.line + 1;
        const std::string key = key_on_line(text, line);
        Result<Imported> r;
        r.errors.push_back({"line " + std::to_string(line) + (key.empty() ? "" : ", key " + key),
                            "not valid YAML or JSON: " + ex.msg});
        return r;
    }
    if (!doc.ok()) {
        Result<Imported> r;
        r.errors = std::move(doc.errors);
        return r;
    }
    const std::vector<Entry>& es = doc->entries;
    struct Format {
        const char* name;
        bool (*is)(const std::vector<Entry>&);
        void (*run)(Importer&, std::span<const Entry>);
    };
    static const Format kFormats[] = {
        {"peft", [](const std::vector<Entry>& e) { return has_key(e, "peft_type"); }, import_peft},
        {"deepspeed", [](const std::vector<Entry>& e) { return has_any(e, {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size"}); },
         [](Importer& im, std::span<const Entry> e) { import_deepspeed(im, e); }},
        {"accelerate", [](const std::vector<Entry>& e) { return has_any(e, {"distributed_type", "compute_environment"}); },
         import_accelerate},
        {"torchtune", [](const std::vector<Entry>& e) { return has_key(e, "model._component_"); }, import_torchtune},
        {"axolotl", [](const std::vector<Entry>& e) { return has_key(e, "base_model"); }, import_axolotl},
        {"llamafactory", [](const std::vector<Entry>& e) { return has_any(e, {"finetuning_type", "stage", "cutoff_len", "template"}); },
         import_llamafactory},
        {"trl", [](const std::vector<Entry>& e) { return has_any(e, {"model_name_or_path", "num_generations", "use_peft", "max_prompt_length", "dataset_name"}); },
         import_trl},
        {"hf-trainer", [](const std::vector<Entry>& e) { return has_any(e, {"per_device_train_batch_size", "gradient_accumulation_steps", "output_dir"}); },
         import_hf_trainer},
    };
    for (const auto& f : kFormats)
        if (f.is(es)) {
            if (std::string_view(f.name) == "deepspeed" && !doc->repeated.empty()) return deepspeed_duplicates(doc->repeated);
            Importer im(f.name, catalog);
            // Every settings-file format here configures training (the servers are command lines).
            im.set_default("workload", "train", std::string(f.name) + " configs set up training");
            f.run(im, es);
            return im.finish();
        }
    Result<Imported> r;
    std::string keys;
    for (std::size_t i = 0; i < es.size() && i < 6; ++i) keys += (i ? ", " : "") + es[i].key;
    r.errors.push_back({"line 1",
                        "not a format vramcalc imports (vllm/sglang/llama.cpp command lines, DeepSpeed, accelerate, "
                        "HF TrainingArguments, TRL, LLaMA-Factory, axolotl, torchtune, PEFT); its keys: " +
                            keys});
    return r;
}

}  // namespace
}  // namespace imports

Result<Imported> import_config(std::string_view text, const Catalog& catalog) {
    if (text.size() > kMaxInputBytes) {
        Result<Imported> r;
        r.errors.push_back({"text", "over the input size limit, allowed: at most " + std::to_string(kMaxInputBytes) + " bytes (8 MiB)"});
        return r;
    }
    bool command = false;
    auto r = imports::import_command_line(text, catalog, command);
    if (command) return r;
    return imports::import_document(text, catalog);
}

}  // namespace vramcalc
