// PEFT adapter_config.json (peft/tuners/lora/config.py, LoraConfig): the adapters of a LoRA run.
#include "source.hpp"

namespace vramcalc::imports {
namespace {

void peft_type(Importer& im, const Entry& e) {
    if (lower(e.value) == "lora") return im.set("method", "lora", e);
    im.ignore(e, "only LoRA adapters are modelled");
}
void targets(Importer& im, const Entry& e) {
    if (e.kind == Entry::Kind::list) return im.set("lora.targets", e.items, e);
    if (lower(e.value) == "all-linear") return im.set("lora.targets", "all-linear", e);
    if (e.kind == Entry::Kind::null) return im.ignore(e, "null: the model type's default targets");
    im.ignore(e, "a regular expression: give lora.targets as module names");
}
void modules_to_save(Importer& im, const Entry& e) {
    if (e.kind == Entry::Kind::null) return im.ignore(e, "null: nothing trains besides the adapters");
    bool embeddings = false;
    for (const auto& m : e.items) embeddings = embeddings || m.find("embed") != std::string::npos || m == "lm_head";
    if (embeddings) return im.set("lora.train_embeddings", true, e, "the embeddings or the head train in full");
    im.ignore(e, "modules trained in full besides the adapters: not modelled");
}

const Rule kPeft[] = {
    {"peft_type", peft_type},
    {"base_model_name_or_path", [](Importer& im, const Entry& e) { im.model(e, e.value); }},
    {"r", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("lora.rank", *v, e); }},
    {"lora_alpha", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.alpha", *v, e); }},
    {"lora_dropout", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.dropout", *v, e); }},
    {"target_modules", targets},
    {"modules_to_save", modules_to_save},
    {"use_dora", [](Importer& im, const Entry& e) { boolean_key(im, e, "lora.use_dora"); }},
    {"rank_pattern.*", nullptr, kNotModelled},
    {"alpha_pattern.*", nullptr, kNoMemory},
    {"layers_to_transform", nullptr, kNotModelled},
    {"layers_pattern", nullptr, kNotModelled},
    {"use_rslora", nullptr, "a different scaling: no effect on memory"},
    {"bias", nullptr, kNotModelled},
    {"fan_in_fan_out", nullptr, kNoMemory},
    {"inference_mode", nullptr, kNoMemory},
    {"init_lora_weights", nullptr, kNoMemory},
    {"task_type", nullptr, kNoMemory},
    {"revision", nullptr, kNoMemory},
    {"auto_mapping", nullptr, kNoMemory},
    {"peft_version", nullptr, kNoMemory},
    {"loftq_config.*", nullptr, kNoMemory},
    {"megatron_config", nullptr, kNoMemory},
    {"megatron_core", nullptr, kNoMemory},
    {"exclude_modules", nullptr, kNotModelled},
};

}  // namespace

void import_peft(Importer& im, std::span<const Entry> entries) {
    im.set_default("framework", "hf", "PEFT");
    im.apply(entries, {std::span<const Rule>(kPeft)});
}

}  // namespace vramcalc::imports
