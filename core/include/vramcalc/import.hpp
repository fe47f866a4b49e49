// Import: the configs people already have (a `vllm serve` line, a DeepSpeed JSON, a LLaMA-Factory YAML,
// ...) turned into scenario JSON plus a report of what was read, what was ignored and why, and what was
// not recognised. Text in, values out: the CLI and the page read the files. The format is detected from
// the content; docs/imports.md has the mapping table of every format.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/catalog.hpp"
#include "vramcalc/diagnostics.hpp"

namespace vramcalc {

// One key (or flag) of the imported file.
struct ImportedKey {
    std::string key;     // as written: "--max-model-len", "zero_optimization.stage", "lora_rank"
    std::string value;   // its text ("" for a flag without a value)
    int line = 0;        // 1-based line in the text; 0 when unknown
    std::string target;  // read: the scenario key it set ("max_model_len", "lora.rank")
    std::string note;    // ignored: why; read: how it was mapped where that is not one to one
};

struct ImportReport {
    std::string format;                // vllm, sglang, llama.cpp, deepspeed, accelerate, hf-trainer, trl,
                                       // llamafactory, axolotl, torchtune, peft
    std::vector<ImportedKey> read;     // mapped onto scenario keys
    std::vector<ImportedKey> ignored;  // recognised but not modelled, or no effect on memory (note says which)
    std::vector<ImportedKey> unknown;  // not recognised: always reported, never dropped silently
    std::vector<std::string> notes;    // what the scenario still needs (a model that is not a preset, ...)
};

struct Imported {
    nlohmann::json scenario;  // scenario keys (shared/spec/scenario.md); "model" absent when not resolved
    ImportReport report;
};

// Detects the format and imports it. Errors (text that is not any supported format, malformed YAML or
// JSON, a value of the wrong type) name the line and the key.
Result<Imported> import_config(std::string_view text, const Catalog& catalog);

// {"format", "scenario", "read": [{key, value, line, target, note}], "ignored": [...], "unknown": [...], "notes": [...]}
nlohmann::json import_to_json(const Imported& imported);

// The one answer every front end gives for an import (the JS API, the page's import module, the UI):
// import_to_json's object plus "ok": true, or {"ok": false, "errors": [{"field", "message"}]}.
nlohmann::json import_answer(const Result<Imported>& result);

}  // namespace vramcalc
