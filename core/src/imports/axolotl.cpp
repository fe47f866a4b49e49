// axolotl YAML (its config schema, src/axolotl/utils/schemas/config.py).
#include "source.hpp"

namespace vramcalc::imports {
namespace {

void adapter(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "lora" || v == "qlora") return im.set("method", v, e);
    if (e.kind == Entry::Kind::null) return im.ignore(e, "no adapter: full fine-tuning");
    im.ignore(e, "an adapter the bill does not model (allowed: lora, qlora)");
}
void in_4bit(Importer& im, const Entry& e) {
    // axolotl builds its BitsAndBytesConfig with bnb_4bit_use_double_quant=True (src/axolotl/loaders/model.py).
    if (auto v = im.boolean(e); v && *v) im.set("quantization", "nf4-dq", e, "axolotl's 4-bit config uses double quantisation");
    else if (v) im.ignore(e, "false");
}
void in_8bit(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("quantization", "int8", e);
    else if (v) im.ignore(e, "false");
}
void target_linear(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("lora.targets", "all-linear", e);
    else if (v) im.ignore(e, "false: lora_target_modules");
}
void sequence_len(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) im.set("seq_len", *v, e);
}
// axolotl loads the model in bf16 when bf16 is set (normalize_config: cfg.torch_dtype, utils/config/__init__.py;
// loaders/model.py passes it as torch_dtype) and the HF Trainer keeps it so; finish_hf_precision undoes it under
// DeepSpeed or FSDP (fp32 master weights).
void bf16(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "auto" || v == "true") return im.set("precision", "bf16", e, "the model loads in bf16 (cfg.torch_dtype)");
    im.ignore(e, "false");
}
void checkpointing(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);  // "offload" / "unsloth": checkpointed layer inputs kept in host memory
    if (v == "offload" || v == "unsloth") return im.set("checkpointing", "offload", e, "layer inputs offloaded to CPU memory");
    if (auto b = im.boolean(e)) im.set("checkpointing", *b ? "full" : "none", e);
}
void flash(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("attention", "flash", e);
    else if (v) im.ignore(e, "false");
}
void sdp(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("attention", "sdpa", e);
    else if (v) im.ignore(e, "false");
}

const char* kData = "the data: the bill counts sequence_len tokens per sequence";
const char* kLog = "logging and saving: no effect on memory";

const Rule kAxolotl[] = {
    {"base_model", [](Importer& im, const Entry& e) { im.model(e, e.value); }},
    {"adapter", adapter},
    {"load_in_4bit", in_4bit},
    {"load_in_8bit", in_8bit},
    {"lora_r", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("lora.rank", *v, e); }},
    {"lora_alpha", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.alpha", *v, e); }},
    {"lora_dropout", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.dropout", *v, e); }},
    {"lora_target_linear", target_linear},
    {"peft_use_dora", [](Importer& im, const Entry& e) { boolean_key(im, e, "lora.use_dora"); }},
    {"lora_target_modules", [](Importer& im, const Entry& e) {
         if (e.kind == Entry::Kind::list) im.set("lora.targets", e.items, e);
         else im.ignore(e, "not a list of module names");
     }},
    {"sequence_len", sequence_len},
    {"micro_batch_size", read_micro_batch},
    {"gradient_accumulation_steps", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("grad_accum", *v, e); }},
    {"optimizer", read_optimizer},
    {"bf16", bf16},
    {"fp16", [](Importer& im, const Entry& e) { if (auto v = im.boolean(e); v && *v) im.set("precision", "fp16", e, "the model loads in fp16"); else if (v) im.ignore(e, "false"); }},
    {"gradient_checkpointing", checkpointing},
    {"flash_attention", flash},
    {"sdp_attention", sdp},
    {"deepspeed", nullptr, "a path to a DeepSpeed JSON: import that file too"},
    {"fsdp", nullptr, kNotModelled},
    {"fsdp_config.*", nullptr, kNotModelled},
    {"model_type", nullptr, kNoMemory},
    {"tokenizer_type", nullptr, kNoMemory},
    {"strict", nullptr, kNoMemory},
    {"tf32", nullptr, "TF32 matmuls: no effect on memory"},
    {"sample_packing", nullptr, "packed sequences fill sequence_len: the bill counts full sequences"},
    {"pad_to_sequence_len", nullptr, "every batch padded to sequence_len: the bill counts full sequences"},
    {"datasets", nullptr, kData},
    {"dataset_prepared_path", nullptr, kData},
    {"val_set_size", nullptr, kData},
    {"special_tokens.*", nullptr, kNoMemory},
    {"chat_template", nullptr, kNoMemory},
    {"output_dir", nullptr, kLog},
    {"lora_model_dir", nullptr, kLog},
    {"resume_from_checkpoint", nullptr, kLog},
    {"logging_steps", nullptr, kLog},
    {"evals_per_epoch", nullptr, kLog},
    {"saves_per_epoch", nullptr, kLog},
    {"wandb_project", nullptr, kLog},
    {"wandb_entity", nullptr, kLog},
    {"wandb_watch", nullptr, kLog},
    {"wandb_name", nullptr, kLog},
    {"wandb_log_model", nullptr, kLog},
    {"hub_model_id", nullptr, kLog},
    {"num_epochs", nullptr, kNoMemory},
    {"lr_scheduler", nullptr, kNoMemory},
    {"learning_rate", nullptr, kNoMemory},
    {"warmup_steps", nullptr, kNoMemory},
    {"warmup_ratio", nullptr, kNoMemory},
    {"weight_decay", nullptr, kNoMemory},
    {"max_grad_norm", nullptr, kNoMemory},
};

}  // namespace

void import_axolotl(Importer& im, std::span<const Entry> entries) {
    im.set_default("framework", "hf", "axolotl trains with the HF Trainer");
    refuse_fp16_with_bf16(im, entries);
    im.apply(entries, {std::span<const Rule>(kAxolotl)});
    finish_hf_precision(im, entries);
    if (!im.has("method")) im.set_default("method", "full", "no adapter: full fine-tuning");
}

}  // namespace vramcalc::imports
