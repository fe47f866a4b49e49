// HF TrainingArguments (transformers/training_args.py), as a JSON/YAML of its fields, and the TRL configs
// that extend it (SFTConfig, DPOConfig, GRPOConfig, PPOConfig in trl/trainer/*_config.py, plus TRL's
// ModelConfig: model_name_or_path, use_peft, lora_*, load_in_4bit). LLaMA-Factory reuses these rules.
#include "source.hpp"

namespace vramcalc::imports {
namespace {

void grad_accum(Importer& im, const Entry& e) {
    if (e.value == "auto") return im.ignore(e, "auto: filled in from the HF Trainer's arguments");
    if (auto v = im.integer(e)) im.set("grad_accum", *v, e);
}
void seq_len(Importer& im, const Entry& e) {
    if (e.kind == Entry::Kind::null) return im.ignore(e, "null: no truncation, the longest sample sets the length; set seq_len");
    if (auto v = im.integer(e)) im.set("seq_len", *v, e);
}
// The model's own dtype (TRL's ModelConfig torch_dtype/dtype, passed to from_pretrained): the Trainer keeps a
// 16-bit model so (it never upcasts), so weights, gradients and AdamW states are 16-bit (precision bf16/fp16);
// the bf16/fp16 flags then only say how it computes. finish_precision undoes it under DeepSpeed or FSDP.
// "auto" and float32 say how the model loads (load_dtype): the checkpoint's dtype, which the reader turns into
// the precision (default_precision: bf16 for a 16-bit checkpoint), or fp32 under the bf16/fp16 flags' autocast.
std::string model_dtype(const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "bfloat16" || v == "bf16") return "bf16";
    if (v == "float16" || v == "fp16" || v == "half") return "fp16";
    return "";
}
void dtype(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "auto") return im.set("load_dtype", "auto", e, "the checkpoint's dtype (config.json's torch_dtype), kept by the Trainer");
    const std::string p = model_dtype(e);
    if (p.empty()) return im.set("load_dtype", "float32", e, "the model loads in fp32: bf16 / fp16 say how it computes");
    im.set("precision", p, e, "the model loads in 16 bits and the Trainer keeps it so (no fp32 copy)");
}
bool auto_dtype(Importer& im) { return im.current().scenario.value("load_dtype", "") == "auto"; }
bool dtype_set(Importer& im) {
    const std::string p = im.current().scenario.value("precision", "");
    return p == "bf16" || p == "fp16" || auto_dtype(im);
}
void bf16(Importer& im, const Entry& e) {
    if (dtype_set(im)) return im.ignore(e, "the model's dtype (torch_dtype) sets the precision; bf16 autocasts its compute");
    if (lower(e.value) == "auto") return im.set("precision", "bf16-mixed", e, "auto: bf16 where the GPU has it");
    if (auto v = im.boolean(e)) {
        if (*v) im.set("precision", "bf16-mixed", e, "autocast with fp32 master weights (HF Trainer)");
        else im.ignore(e, "false: the precision comes from fp16 or the model's dtype");
    }
}
void fp16(Importer& im, const Entry& e) {
    if (dtype_set(im)) return im.ignore(e, "the model's dtype (torch_dtype) sets the precision; fp16 autocasts its compute");
    if (auto v = im.boolean(e)) {
        if (*v) im.set("precision", "fp16-mixed", e, "autocast with fp32 master weights and a loss scaler");
        else im.ignore(e, "false: the precision comes from bf16 or the model's dtype");
    }
}
void checkpointing(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e)) im.set("checkpointing", *v ? "full" : "none", e);
}
void attention(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "eager") im.set("attention", "eager", e);
    else if (v == "sdpa") im.set("attention", "sdpa", e);
    else if (v.find("flash") != std::string::npos) im.set("attention", "flash", e);
    else im.ignore(e, "an attention kernel the bill does not model");
}
void fsdp(Importer& im, const Entry& e) {
    const std::string v = lower(e.kind == Entry::Kind::list ? (e.items.empty() ? "" : e.items.front()) : e.value);
    if (v.empty() || v == "false") return im.ignore(e, "no FSDP");
    if (v.find("shard_grad_op") != std::string::npos) im.set("sharding", "fsdp-grad-op", e);
    else if (v.find("full_shard") != std::string::npos || v.find("hybrid_shard") != std::string::npos) im.set("sharding", "fsdp-full", e);
    else return im.ignore(e, "an FSDP mode the bill does not model");
    if (v.find("offload") != std::string::npos) im.set("offload", "optimizer+params", e, "FSDP's CPU offload moves parameters, gradients and optimizer states");
}
void model(Importer& im, const Entry& e) { im.model(e, e.value); }
void use_peft(Importer& im, const Entry& e) {
    const auto v = im.boolean(e);
    if (!v) return;
    if (!*v) return im.ignore(e, "false: full fine-tuning");
    if (im.has("method")) return im.ignore(e, "the 4/8-bit base already makes it qlora");
    im.set("method", "lora", e);
}
void load_in_4bit(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) {
        im.set("method", "qlora", e);
        if (!im.has("quantization")) im.set("quantization", "nf4", e, "bitsandbytes 4-bit; bnb_4bit_quant_type fp4 is the same size");
    } else if (v) im.ignore(e, "false");
}
void load_in_8bit(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) {
        im.set("method", "qlora", e, "LoRA on an 8-bit base");
        im.set("quantization", "int8", e);
    } else if (v) im.ignore(e, "false");
}
void double_quant(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("quantization", "nf4-dq", e);
    else if (v) im.ignore(e, "false");
}
void lora_rank(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) im.set("lora.rank", *v, e);
}
void lora_alpha(Importer& im, const Entry& e) {
    if (auto v = im.number(e)) im.set("lora.alpha", *v, e);
}
void lora_dropout(Importer& im, const Entry& e) {
    if (auto v = im.number(e)) im.set("lora.dropout", *v, e);
}
void lora_targets(Importer& im, const Entry& e) {
    if (e.kind == Entry::Kind::list) return im.set("lora.targets", e.items, e);
    if (e.kind == Entry::Kind::null) return im.ignore(e, "null: the model type's default targets");
    if (lower(e.value) == "all-linear" || lower(e.value) == "all") return im.set("lora.targets", "all-linear", e);
    im.ignore(e, "a pattern, not a list: give lora.targets as module names");
}

// TRL GRPO (GRPOConfig): the rollout's shape.
void grpo_group(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) {
        im.set("rlhf.algorithm", "grpo", e, "num_generations is GRPO's");
        im.set("rlhf.group_size", *v, e);
    }
}
void prompt_len(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) im.set("rlhf.prompt_len", *v, e);
}
void gen_len(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) im.set("rlhf.gen_len", *v, e);
}
void use_vllm(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e)) im.set("rlhf.rollout.engine", *v ? "vllm" : "hf", e);
}
void vllm_mode(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "colocate") im.set("rlhf.rollout.placement", "colocated", e);
    else if (v == "server") im.set("rlhf.rollout.placement", "separate", e);
    else im.ignore(e, "allowed: colocate, server");
}
void vllm_share(Importer& im, const Entry& e) {
    if (auto v = im.number(e)) im.set("rlhf.rollout.gpu_memory_utilization", *v, e);
}

// SFTConfig.loss_type: "nll" (transformers' loss on the full logits), "chunked_nll" (TRL's chunked lm_head +
// cross-entropy); others ("dft") change the loss's weighting of the same logits. Liger's kernels patch the model's
// loss to its fused linear cross-entropy (LigerFusedLinearCrossEntropyLoss: no full logits).
void sft_loss(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "chunked_nll") im.set("loss", "chunked-nll", e);
    else if (v == "nll") im.set("loss", "standard", e, "transformers' cross-entropy on the full logits");
    else im.ignore(e, "a loss on the full logits (as nll) or one this bill does not model");
}
void liger(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e)) {
        if (*v) im.set("loss", "fused", e, "Liger's fused linear cross-entropy");
        else im.ignore(e, "false: the trainer's own loss");
    }
}

const char* kSchedule = "the optimisation schedule: no effect on memory";
const char* kLogging = "logging, saving and evaluation: no effect on the training step's memory";

const Rule kHf[] = {
    {"per_device_train_batch_size", read_micro_batch},
    {"gradient_accumulation_steps", grad_accum},
    {"bf16", bf16},
    {"fp16", fp16},
    {"gradient_checkpointing", checkpointing},
    {"optim", read_optimizer},
    {"attn_implementation", attention},
    {"fsdp", fsdp},
    {"fsdp_config.*", nullptr, kNotModelled},
    {"deepspeed", nullptr, "a path to a DeepSpeed JSON: import that file too (its zero stage and offload)"},
    {"max_seq_length", seq_len},
    {"max_length", seq_len},
    {"model_name_or_path", model},
    {"use_peft", use_peft},
    {"load_in_4bit", load_in_4bit},
    {"load_in_8bit", load_in_8bit},
    {"use_bnb_nested_quant", double_quant},
    {"bnb_4bit_use_double_quant", double_quant},
    {"bnb_4bit_quant_type", nullptr, "nf4 and fp4 store the same 4 bits per weight"},
    {"lora_r", lora_rank},
    {"lora_alpha", lora_alpha},
    {"lora_dropout", lora_dropout},
    {"lora_target_modules", lora_targets},
    {"num_generations", grpo_group},
    {"max_prompt_length", prompt_len},
    {"max_completion_length", gen_len},
    {"use_vllm", use_vllm},
    {"vllm_mode", vllm_mode},
    {"vllm_gpu_memory_utilization", vllm_share},
    {"loss_type", sft_loss},
    {"use_liger_kernel", liger},
    {"torch_dtype", dtype},
    {"dtype", dtype},
    {"model_init_kwargs.torch_dtype", dtype},
    {"model_init_kwargs.dtype", dtype},
    {"tf32", nullptr, "TF32 matmuls: no effect on memory"},
    {"per_device_eval_batch_size", nullptr, "evaluation: the bill is the training step"},
    {"learning_rate", nullptr, kSchedule},
    {"lr_scheduler_type", nullptr, kSchedule},
    {"warmup_ratio", nullptr, kSchedule},
    {"warmup_steps", nullptr, kSchedule},
    {"num_train_epochs", nullptr, kSchedule},
    {"max_steps", nullptr, kSchedule},
    {"weight_decay", nullptr, kSchedule},
    {"max_grad_norm", nullptr, kSchedule},
    {"adam_beta1", nullptr, kSchedule},
    {"adam_beta2", nullptr, kSchedule},
    {"adam_epsilon", nullptr, kSchedule},
    {"seed", nullptr, kNoMemory},
    {"beta", nullptr, kSchedule},
    {"lr_scheduler_kwargs.*", nullptr, kSchedule},
    {"output_dir", nullptr, kLogging},
    {"overwrite_output_dir", nullptr, kLogging},
    {"logging_steps", nullptr, kLogging},
    {"save_steps", nullptr, kLogging},
    {"save_strategy", nullptr, kLogging},
    {"save_total_limit", nullptr, kLogging},
    {"save_only_model", nullptr, kLogging},
    {"eval_strategy", nullptr, kLogging},
    {"evaluation_strategy", nullptr, kLogging},
    {"eval_steps", nullptr, kLogging},
    {"do_train", nullptr, kLogging},
    {"do_eval", nullptr, kLogging},
    {"report_to", nullptr, kLogging},
    {"run_name", nullptr, kLogging},
    {"logging_dir", nullptr, kLogging},
    {"push_to_hub", nullptr, kLogging},
    {"hub_model_id", nullptr, kLogging},
    {"resume_from_checkpoint", nullptr, kLogging},
    {"ddp_timeout", nullptr, kNoMemory},
    {"dataloader_num_workers", nullptr, "host memory of data workers: not modelled"},
    {"dataset_name", nullptr, "the data: the bill counts seq_len tokens per sequence"},
    {"dataset_config", nullptr, kNoMemory},
    {"dataset_text_field", nullptr, kNoMemory},
    {"trust_remote_code", nullptr, kNoMemory},
    {"remove_unused_columns", nullptr, kNoMemory},
    {"packing", nullptr, "packed sequences fill seq_len: the bill counts full sequences"},
};

}  // namespace

std::string optimizer_from_name(std::string_view name) {
    const std::string n = lower(name);
    if (n.find("paged") != std::string::npos && n.find("8bit") != std::string::npos) return "paged-adamw-8bit";
    if (n.find("8bit") != std::string::npos && n.find("adam") != std::string::npos) return "adamw-8bit";
    if (n.find("lion") != std::string::npos) return "lion";
    if (n.find("adafactor") != std::string::npos) return "adafactor";
    // paged_adamw_32bit keeps the same two fp32 states as AdamW (paged to host only under pressure).
    if (n.find("adam") != std::string::npos) return "adamw";
    if (n == "sgd" || n.find("optim.sgd") != std::string::npos) return "sgd";
    return "";
}

void read_micro_batch(Importer& im, const Entry& e) {
    const auto v = im.integer(e);
    if (!v) return;
    // The Trainer's DataLoader builds a BatchSampler, which raises on a size below 1 (torch/utils/data/sampler.py).
    if (*v < 1) return im.refuse(e, "torch's DataLoader refuses it (\"batch_size should be a positive integer value\")");
    im.set("micro_batch", *v, e);
}

void read_optimizer(Importer& im, const Entry& e) {
    const std::string o = optimizer_from_name(e.value);
    if (o.empty()) return im.ignore(e, "an optimizer the bill does not model (adamw assumed)");
    im.set("optimizer", o, e);
    // How AdamW steps (adamw_impl): transformers' own AdamW loops over the parameters; the fused variants have
    // no transient; adamw_torch is torch's foreach default.
    if (o != "adamw") return;
    const std::string n = lower(e.value);
    if (n == "adamw_hf") im.set("adamw_impl", "for-loop", e);
    else if (n.find("fused") != std::string::npos) im.set("adamw_impl", "fused", e);
}

std::span<const Rule> hf_training_argument_rules() { return kHf; }

// DeepSpeed (its bf16 section) and FSDP's mixed precision (accelerate upcasts the parameters) keep fp32 master
// weights of a 16-bit model: back to *-mixed.
void finish_hf_precision(Importer& im, std::span<const Entry> entries) {
    if (!dtype_set(im)) return;
    for (const Entry& e : entries)
        if ((e.key == "deepspeed" || e.key.rfind("deepspeed.", 0) == 0 || e.key == "fsdp") && lower(e.value) != "false" && !e.value.empty()) {
            const std::string p = im.current().scenario.value("precision", "bf16") + "-mixed";
            return im.set_default("precision", p, "DeepSpeed or FSDP keeps fp32 master weights of the 16-bit model");
        }
}

// TrainingArguments.__post_init__ (transformers/training_args.py) raises on both.
void refuse_fp16_with_bf16(Importer& im, std::span<const Entry> entries) {
    const Entry* on[2] = {nullptr, nullptr};
    for (const Entry& e : entries) {
        const std::string v = lower(e.value);
        if (e.repeated_at != 0 || (v != "true" && v != "1")) continue;
        if (e.key == "bf16") on[0] = &e;
        if (e.key == "fp16") on[1] = &e;
    }
    if (on[0] && on[1])
        im.refuse(*on[1], "the HF Trainer refuses fp16 with bf16 (line " + std::to_string(on[0]->line) +
                              "): \"At most one of fp16 and bf16 can be True, but not both\"");
}

void import_hf_trainer(Importer& im, std::span<const Entry> entries) {
    im.set_default("framework", "hf", "the HF Trainer (TRL's trainers extend it)");
    // `deepspeed` may hold the DeepSpeed config itself (TrainingArguments accepts a dict): read with its rules.
    std::vector<Entry> own, ds;
    for (const Entry& e : entries) {
        if (e.key.rfind("deepspeed.", 0) == 0) {
            ds.push_back(e);
            ds.back().key = e.key.substr(10);
        } else {
            own.push_back(e);
        }
    }
    refuse_fp16_with_bf16(im, own);
    im.apply(own, {hf_training_argument_rules()});
    if (!ds.empty()) import_deepspeed(im, ds, "deepspeed.");
    finish_hf_precision(im, entries);
}

// TRL's trainers (trl/trainer/base_config.py and sft_config.py, model_config.py @f2cd5771) change four of the
// Trainer's defaults, which a TRL config that leaves them out runs with:
//  - gradient_checkpointing=True (BaseConfig; TRL PR #3510, v0.22);
//  - bf16 = not fp16 (BaseConfig.__post_init__): bf16 autocast;
//  - the model loads in float32 (ModelConfig dtype="float32", and SFTTrainer's model_init_kwargs without a dtype;
//    TRL PR #4778, v0.27), where transformers 5 alone would load the checkpoint's dtype;
//  - SFT: max_length=1024, and loss_type "chunked_nll" unless use_liger_kernel (TRL PR #5846, v1.7).
// GRPO's and DPO's own losses are not SFT's: the SFT defaults stay off when the config is theirs.
void finish_trl_defaults(Importer& im, std::span<const Entry> entries) {
    auto has = [&](std::initializer_list<std::string_view> keys) { return has_any(entries, keys); };
    if (!has({"gradient_checkpointing"}))
        im.set_default("checkpointing", "full", "TRL's gradient_checkpointing default is True (BaseConfig, TRL 0.22 on)");
    const bool dtype = has({"dtype", "torch_dtype", "model_init_kwargs.dtype", "model_init_kwargs.torch_dtype"});
    if (!dtype) im.set_default("load_dtype", "float32", "TRL loads the model in float32 unless dtype is given (ModelConfig, TRL 0.27 on)");
    if (!has({"bf16", "fp16"}) && !im.has("precision") && !auto_dtype(im))
        im.set_default("precision", "bf16-mixed", "TRL's bf16 default is True (bf16 = not fp16): autocast over the loaded model");
    const bool sft = !im.has("rlhf.algorithm") && !has({"beta", "max_prompt_length", "num_generations"});
    if (!sft) return;
    if (!has({"max_length", "max_seq_length"})) im.set_default("seq_len", 1024, "SFTConfig's max_length default");
    if (!has({"loss_type", "use_liger_kernel"}))
        im.set_default("loss", "chunked-nll", "SFTConfig's loss_type default chunked_nll (TRL 1.7 on): 256 tokens' logits at a time");
}

void import_trl(Importer& im, std::span<const Entry> entries) {
    import_hf_trainer(im, entries);
    finish_trl_defaults(im, entries);
}

}  // namespace vramcalc::imports
