// LLaMA-Factory YAML recipes (src/llamafactory/hparams/: model_args.py, finetuning_args.py, data_args.py)
// with the HF TrainingArguments keys it passes through.
#include "source.hpp"

namespace vramcalc::imports {
namespace {

void method(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "lora" || v == "full" || v == "freeze") {
        if (v == "lora" && im.has("method")) return im.ignore(e, "quantization_bit already makes it qlora");
        return im.set("method", v, e);
    }
    im.ignore(e, "a method the bill does not model (allowed: lora, full, freeze)");
}
void stage(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "sft" || v == "pt") return im.ignore(e, "supervised training: the plain training step");
    if (v == "dpo" || v == "ppo") return im.set("rlhf.algorithm", v, e);
    im.ignore(e, "a stage the bill does not model as its own (kto, rm: read as the plain training step)");
}
void quant_bit(Importer& im, const Entry& e) {
    const auto v = im.integer(e);
    if (!v) return;
    if (*v == 4) {
        im.set("method", "qlora", e);
        im.set("quantization", "nf4-dq", e, "LLaMA-Factory's double_quantization defaults to true");
    } else if (*v == 8) {
        im.set("method", "qlora", e, "LoRA on an 8-bit base");
        im.set("quantization", "int8", e);
    } else {
        im.ignore(e, "a bit width the bill does not model (allowed: 4, 8)");
    }
}
void double_quant(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && !*v && im.has("quantization")) im.set("quantization", "nf4", e);
    else if (v) im.ignore(e, "the default");
}
void lora_target(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "all") return im.set("lora.targets", "all-linear", e);
    std::vector<std::string> list;
    for (std::size_t start = 0; start <= e.value.size();) {
        const auto comma = e.value.find(',', start);
        const std::string item = e.value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) list.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    im.set("lora.targets", list, e);
}
void flash_attn(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "fa2" || v == "fa3") im.set("attention", "flash", e);
    else if (v == "sdpa") im.set("attention", "sdpa", e);
    else if (v == "disabled") im.set("attention", "eager", e);
    else im.ignore(e, "auto: sdpa (the bill's default)");
}
void no_checkpointing(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("checkpointing", "none", e);
    else if (v) im.ignore(e, "false: checkpointing stays on");
}
void liger(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("loss", "fused", e, "Liger's fused linear cross-entropy");
    else if (v) im.ignore(e, "false");
}
// bf16 / fp16 / pure_bf16: LLaMA-Factory sets model_args.compute_dtype from them (hparams/parser.py) and loads
// the model in it (model/patcher.py patch_config: init_kwargs["torch_dtype"] = compute_dtype @01a6700), then
// upcasts only the trained weights to fp32 unless pure_bf16 (model/adapter.py init_adapter @01d87b8): a LoRA
// base stays 16-bit, which is the scenario's bf16/fp16 (the hf framework keeps the adapters in fp32).
// import_llamafactory turns full and freeze runs back into *-mixed (fp32 trained weights under autocast).
void half(Importer& im, const Entry& e, const char* precision) {
    if (auto v = im.boolean(e); v && *v)
        im.set("precision", precision, e, std::string("the model loads in ") + precision + " (compute_dtype); trained weights are upcast to fp32");
    else if (v) im.ignore(e, "false");
}
void pure_bf16(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("precision", "bf16", e, "bf16 throughout: no fp32 copy of the trained weights");
    else if (v) im.ignore(e, "false");
}
bool pure(std::span<const Entry> entries) {
    for (const Entry& e : entries)
        if (e.key == "pure_bf16" && e.repeated_at == 0 && (lower(e.value) == "true" || e.value == "1")) return true;
    return false;
}
// The precision LLaMA-Factory trains in, once the method is known (the recipe may name it after bf16).
void finish_precision(Importer& im, std::span<const Entry> entries) {
    const json& s = im.current().scenario;
    const std::string method = s.value("method", "lora"), precision = s.value("precision", "");
    const bool adapters = method == "lora" || method == "qlora";
    if (precision.empty()) {
        // Neither bf16 nor fp16: compute_dtype = infer_optim_dtype(the checkpoint's torch_dtype) (extras/misc.py).
        if (adapters) im.set_default("precision", "bf16", "LLaMA-Factory loads the base in the checkpoint's dtype (bf16 for the presets)");
        else im.set_default("precision", "fp32", "trained weights upcast to fp32 and no autocast (neither bf16 nor fp16)");
    } else if (!adapters && (precision == "bf16" || precision == "fp16") && !pure(entries)) {
        im.set_default("precision", precision + "-mixed",
                       method + " tuning: LLaMA-Factory upcasts the trained weights to fp32 (model/adapter.py) and the Trainer autocasts");
    }
}

void cutoff(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) im.set("seq_len", *v, e, "the longest a sample is cut to");
}

const char* kData = "the data set and its template: the bill counts cutoff_len tokens per sequence";

const Rule kLlamaFactory[] = {
    {"finetuning_type", method},
    {"stage", stage},
    {"quantization_bit", quant_bit},
    {"double_quantization", double_quant},
    {"lora_rank", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("lora.rank", *v, e); }},
    {"lora_alpha", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.alpha", *v, e); }},
    {"lora_dropout", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.dropout", *v, e); }},
    {"lora_target", lora_target},
    {"cutoff_len", cutoff},
    {"flash_attn", flash_attn},
    {"disable_gradient_checkpointing", no_checkpointing},
    {"enable_liger_kernel", liger},
    {"freeze_trainable_layers", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("trainable_layers", *v, e); }},
    {"pref_beta", nullptr, "the DPO loss's beta: no effect on memory"},
    {"pref_loss", nullptr, kNoMemory},
    {"reward_model", nullptr, kNotModelled},
    {"dataset", nullptr, kData},
    {"eval_dataset", nullptr, kData},
    {"template", nullptr, kData},
    {"max_samples", nullptr, kData},
    {"overwrite_cache", nullptr, kData},
    {"preprocessing_num_workers", nullptr, kData},
    {"dataset_dir", nullptr, kData},
    {"val_size", nullptr, kData},
    {"packing", nullptr, "packed sequences fill cutoff_len: the bill counts full sequences"},
    {"plot_loss", nullptr, kNoMemory},
    {"use_unsloth", nullptr, kNotModelled},
    {"use_dora", [](Importer& im, const Entry& e) { boolean_key(im, e, "lora.use_dora"); }},
    {"bf16", [](Importer& im, const Entry& e) { half(im, e, "bf16"); }},
    {"fp16", [](Importer& im, const Entry& e) { half(im, e, "fp16"); }},
    {"pure_bf16", pure_bf16},
    {"gradient_checkpointing", nullptr,
     "LLaMA-Factory turns checkpointing on itself unless disable_gradient_checkpointing "
     "(model/model_utils/checkpointing.py); this Trainer key does not turn it off"},
    {"image_max_pixels", nullptr, kNotModelled},
    {"video_max_pixels", nullptr, kNotModelled},
};

}  // namespace

void import_llamafactory(Importer& im, std::span<const Entry> entries) {
    im.set_default("framework", "hf", "LLaMA-Factory trains with the HF Trainer");
    refuse_fp16_with_bf16(im, entries);
    im.apply(entries, {std::span<const Rule>(kLlamaFactory), hf_training_argument_rules()});
    // Its own defaults (finetuning_args.py, model_args.py), where the recipe leaves them out.
    if (!im.has("method")) im.set_default("method", "lora", "LLaMA-Factory's finetuning_type defaults to lora");
    if (!im.has("checkpointing"))
        im.set_default("checkpointing", "full", "LLaMA-Factory turns gradient checkpointing on unless disable_gradient_checkpointing");
    finish_precision(im, entries);
}

}  // namespace vramcalc::imports
