// torchtune recipe configs (recipes/configs/**.yaml): the model builder's name gives the model and the
// method (lora_llama3_1_8b, qlora_llama3_1_8b), its arguments the adapters.
#include "source.hpp"

namespace vramcalc::imports {
namespace {

// "torchtune.models.llama3_1.lora_llama3_1_8b" -> "llama3_1_8b" with the method it implies.
void model_component(Importer& im, const Entry& e) {
    std::string name = e.value.substr(e.value.rfind('.') == std::string::npos ? 0 : e.value.rfind('.') + 1);
    if (name.rfind("qlora_", 0) == 0) {
        im.set("method", "qlora", e, "a QLoRA builder (NF4 base)");
        name = name.substr(6);
    } else if (name.rfind("lora_", 0) == 0) {
        im.set("method", "lora", e, "a LoRA builder");
        name = name.substr(5);
    }
    // torchtune spells versions with '_' (llama3_1_8b, qwen2_5_7b): llama-3.1-8b, qwen2.5-7b.
    static const std::pair<const char*, const char*> kFamilies[] = {
        {"llama3_3_", "llama-3.3-"}, {"llama3_2_", "llama-3.2-"}, {"llama3_1_", "llama-3.1-"}, {"llama3_", "llama-3-"}, {"llama2_", "llama-2-"}, {"qwen2_5_", "qwen2.5-"}, {"qwen3_", "qwen3-"}, {"gemma2_", "gemma-2-"}, {"gemma_", "gemma-"}, {"mistral_", "mistral-"}, {"phi3_mini", "phi-3-mini-4k-instruct"}};
    std::string id = name;
    for (const auto& [from, to] : kFamilies)
        if (name.rfind(from, 0) == 0) {
            id = std::string(to) + name.substr(std::string(from).size());
            break;
        }
    for (auto& c : id)
        if (c == '_') c = '-';
    im.model(e, id);
}

void attn_modules(Importer& im, const Entry& e) {
    if (e.kind != Entry::Kind::list) return im.ignore(e, "not a list");
    std::vector<std::string> t;
    for (const auto& m : e.items) t.push_back(m == "output_proj" ? "o_proj" : m);  // torchtune's name for o_proj
    if (im.has("lora.targets") && im.current().scenario["lora"]["targets"].is_array())
        for (const auto& m : im.current().scenario["lora"]["targets"]) t.push_back(m.get<std::string>());
    im.set("lora.targets", t, e, "torchtune's output_proj is o_proj");
}
void lora_mlp(Importer& im, const Entry& e) {
    const auto v = im.boolean(e);
    if (!v || !*v) return v ? im.ignore(e, "false") : void();
    std::vector<std::string> t;
    if (im.has("lora.targets") && im.current().scenario["lora"]["targets"].is_array())
        for (const auto& m : im.current().scenario["lora"]["targets"]) t.push_back(m.get<std::string>());
    for (const char* m : {"gate_proj", "up_proj", "down_proj"}) t.push_back(m);  // torchtune's w1, w3, w2
    im.set("lora.targets", t, e, "the MLP's w1, w2, w3 are gate_proj, down_proj, up_proj");
}
void lora_output(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.ignore(e, "LoRA on the output projection: not modelled");
    else if (v) im.ignore(e, "false");
}
void dtype(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "bf16" || v == "fp32") im.set("precision", v, e, "torchtune trains in this dtype (no master copy)");
    else im.ignore(e, "allowed: bf16, fp32");
}
void checkpointing(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && !im.has("checkpointing")) im.set("checkpointing", *v ? "full" : "none", e);
    else if (v) im.ignore(e, "activation offloading sets it");
}
void offloading(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("checkpointing", "offload", e, "activations of each layer go to CPU memory");
    else if (v) im.ignore(e, "false");
}
void loss(Importer& im, const Entry& e) {
    const std::string v = e.value;
    if (v.find("LinearCrossEntropyLoss") != std::string::npos || v.find("Chunked") != std::string::npos)
        return im.set("loss", "chunked", e, "logits computed and reduced chunk by chunk");
    if (v.find("CrossEntropyLoss") != std::string::npos) return im.set("loss", "standard", e);
    im.ignore(e, "a loss the bill does not model");
}

const char* kRest = "logging, saving, data and schedule: no effect on memory";

const Rule kTorchtune[] = {
    {"model._component_", model_component},
    {"model.lora_attn_modules", attn_modules},
    {"model.apply_lora_to_mlp", lora_mlp},
    {"model.apply_lora_to_output", lora_output},
    {"model.lora_rank", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("lora.rank", *v, e); }},
    {"model.lora_alpha", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.alpha", *v, e); }},
    {"model.lora_dropout", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("lora.dropout", *v, e); }},
    {"batch_size", read_micro_batch},
    {"gradient_accumulation_steps", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("grad_accum", *v, e); }},
    {"tokenizer.max_seq_len", [](Importer& im, const Entry& e) {
         if (e.kind == Entry::Kind::null) return im.ignore(e, "null: the longest sample sets the length; set seq_len");
         if (auto v = im.integer(e)) im.set("seq_len", *v, e);
     }},
    {"dtype", dtype},
    {"enable_activation_offloading", offloading},
    {"enable_activation_checkpointing", checkpointing},
    {"compile", [](Importer& im, const Entry& e) { boolean_key(im, e, "compile"); }},
    {"optimizer_in_bwd", [](Importer& im, const Entry& e) { boolean_key(im, e, "optimizer_in_backward"); }},
    {"optimizer._component_", read_optimizer},
    {"loss._component_", loss},
    {"fsdp_cpu_offload", [](Importer& im, const Entry& e) {
         if (auto v = im.boolean(e); v && *v) im.set("offload", "optimizer+params", e);
         else if (v) im.ignore(e, "false");
     }},
    {"optimizer.*", nullptr, "optimizer hyper-parameters: no effect on memory"},
    {"tokenizer.*", nullptr, kNoMemory},
    {"checkpointer.*", nullptr, kRest},
    {"dataset.*", nullptr, kRest},
    {"lr_scheduler.*", nullptr, kRest},
    {"metric_logger.*", nullptr, kRest},
    {"profiler.*", nullptr, kRest},
    {"output_dir", nullptr, kRest},
    {"resume_from_checkpoint", nullptr, kRest},
    {"save_adapter_weights_only", nullptr, kRest},
    {"save_last_epoch_only", nullptr, kRest},
    {"epochs_to_save", nullptr, kRest},
    {"seed", nullptr, kRest},
    {"shuffle", nullptr, kRest},
    {"epochs", nullptr, kRest},
    {"max_steps_per_epoch", nullptr, kRest},
    {"clip_grad_norm", nullptr, kRest},
    {"log_every_n_steps", nullptr, kRest},
    {"log_peak_memory_stats", nullptr, kRest},
    {"log_level", nullptr, kRest},
    {"device", nullptr, kNoMemory},
};

}  // namespace

void import_torchtune(Importer& im, std::span<const Entry> entries) {
    im.set_default("framework", "torchtune", "a torchtune recipe");
    im.apply(entries, {std::span<const Rule>(kTorchtune)});
}

}  // namespace vramcalc::imports
