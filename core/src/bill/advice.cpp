// The advisor: each candidate is one change people make when a run does not fit (the list follows
// the usual order of practitioners' guides: precision, batch, checkpointing, loss, optimizer,
// sharding/offload, adapters, a smaller model), and its effect is computed by the estimator itself.
#include "vramcalc/advice.hpp"

#include <algorithm>

#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace vramcalc {
namespace {

using json = nlohmann::json;

struct Candidate {
    std::string title, why;
    json patch;
};

std::string str(const json& s, const char* key, const char* fallback) {
    auto it = s.find(key);
    return it != s.end() && it->is_string() ? it->get<std::string>() : fallback;
}

void training_candidates(const Scenario& sc, std::vector<Candidate>& out) {
    if (sc.precision == Precision::fp32)
        out.push_back({"bf16 mixed precision", "Activations in 16 bits halve their size; weights keep an fp32 copy.",
                       {{"precision", "bf16-mixed"}}});
    if (sc.precision == Precision::fp32 || sc.precision == Precision::bf16_mixed || sc.precision == Precision::fp16_mixed)
        out.push_back({"Pure bf16 (no fp32 copy)", "Weights, gradients and optimizer states in bf16: 8 instead of 16 bytes per parameter with AdamW.",
                       {{"precision", "bf16"}}});
    if (sc.micro_batch > 1) {
        const std::int64_t mb = sc.micro_batch / 2;
        out.push_back({"Micro-batch " + std::to_string(mb) + " x " + std::to_string(sc.grad_accum * 2) + " accumulation",
                       "Same effective batch, half the activations; gradients persist between micro-batches.",
                       {{"micro_batch", mb}, {"grad_accum", sc.grad_accum * 2}}});
    }
    if (sc.checkpointing == Checkpointing::none || sc.checkpointing == Checkpointing::selective)
        out.push_back({"Gradient checkpointing", "Keeps only each layer's input and recomputes the layer in backward (one more forward pass).",
                       {{"checkpointing", "full"}}});
    if (sc.loss == Loss::standard)
        out.push_back({"Chunked cross-entropy", "Never materialises the full fp32 logits (vocab x tokens).", {{"loss", "chunked"}}});
    if (sc.attention == Attention::eager)
        out.push_back({"SDPA / flash attention", "Does not keep the seq x seq attention scores.", {{"attention", "sdpa"}}});
    if (sc.method != Method::qlora && (sc.optimizer == Optimizer::adamw || sc.optimizer == Optimizer::lion))
        out.push_back({"8-bit AdamW", "Optimizer states in 8 bits with block-wise scales (bitsandbytes).",
                       {{"optimizer", "adamw-8bit"}}});
    if (sc.num_gpus > 1 && sc.sharding != Sharding::zero3 && sc.sharding != Sharding::fsdp_full)
        out.push_back({"ZeRO-3 / FSDP full sharding", "Weights, gradients and optimizer states split across the GPUs.",
                       {{"sharding", "zero3"}}});
    if (sc.offload == Offload::none && sc.method == Method::full)
        out.push_back({"Offload optimizer to CPU", "Optimizer states live in host memory (slower steps).", {{"offload", "optimizer"}}});
    if (sc.method == Method::full || sc.method == Method::freeze)
        out.push_back({"LoRA (rank 16, all linear layers)", "Trains small adapters; the base model is frozen and needs no gradients or optimizer states.",
                       {{"method", "lora"}, {"lora", {{"rank", 16}, {"targets", "all-linear"}}}}});
    if (sc.method != Method::qlora)
        out.push_back({"QLoRA (4-bit NF4 base)", "The frozen base weights in 4 bits, adapters in 16/32 bits.",
                       {{"method", "qlora"}, {"quantization", "nf4"}, {"lora", {{"rank", 16}, {"targets", "all-linear"}}}}});
}

void inference_candidates(const Scenario& sc, std::vector<Candidate>& out) {
    auto weights = [&](const char* w, const char* title, const char* why) {
        if (sc.weights != w) out.push_back({title, why, {{"weights", w}}});
    };
    weights("fp8", "FP8 weights", "One byte per weight with per-channel scales (Hopper/Ada kernels).");
    weights("awq-int4", "AWQ 4-bit weights", "4-bit weights plus a 16-bit scale and zero per group of 128 inputs.");
    weights("gguf-q4_k_m", "GGUF Q4_K_M (llama.cpp)", "4.5-bit Q4_K blocks with Q6_K for some tensors, the common local default.");
    if (sc.kv_dtype == KvDtype::automatic || sc.kv_dtype == KvDtype::fp16 || sc.kv_dtype == KvDtype::bf16)
        out.push_back({"FP8 KV cache", "Halves the KV cache per token.", {{"kv_dtype", "fp8"}}});
    if (sc.batch > 1)
        out.push_back({"Batch " + std::to_string(sc.batch / 2), "Half the concurrent sequences, half the KV cache.",
                       {{"batch", sc.batch / 2}}});
}

// The next smaller preset of the same family (by total parameters), if any.
void smaller_model(const json& s, const Catalog& cat, std::vector<Candidate>& out) {
    const ModelPreset* here = cat.find_model(str(s, "model", ""));
    if (!here) return;
    const ModelPreset* best = nullptr;
    for (const auto& m : cat.models())
        if (m.family == here->family && m.params.total < here->params.total &&
            (!best || m.params.total > best->params.total))
            best = &m;
    if (best)
        out.push_back({"Smaller model: " + best->name, "Fewer parameters in every line of the bill.", {{"model", best->id}}});
}

}  // namespace

std::vector<Advice> advise(const json& scenario, const Catalog& catalog) {
    std::vector<Advice> out;
    auto base = scenario_from_json(scenario, catalog);
    if (!base.ok()) return out;
    const Bill before = estimate(*base);

    std::vector<Candidate> cands;
    if (base->workload == Workload::train) training_candidates(*base, cands);
    else inference_candidates(*base, cands);
    smaller_model(scenario, catalog, cands);

    for (auto& c : cands) {
        json changed = scenario;
        changed.merge_patch(c.patch);
        auto sc = scenario_from_json(changed, catalog);
        if (!sc.ok()) continue;
        const Bill after = estimate(*sc);
        Advice a;
        a.title = std::move(c.title);
        a.why = std::move(c.why);
        a.patch = std::move(c.patch);
        a.device_bytes = after.device_bytes;
        a.saving_bytes = before.device_bytes - after.device_bytes;
        a.fits = after.fits;
        a.max_batch = after.max_micro_batch.value_or(after.max_batch.value_or(0));  // estimate() solved it already
        if (a.saving_bytes > 0) out.push_back(std::move(a));
    }
    std::stable_sort(out.begin(), out.end(), [](const Advice& x, const Advice& y) { return x.saving_bytes > y.saving_bytes; });
    return out;
}

}  // namespace vramcalc
