// The advisor: each candidate is one change people make when a run does not fit (the list follows
// the usual order of practitioners' guides: precision, batch, checkpointing, loss, optimizer,
// sharding/offload, adapters, a smaller model), and its effect is computed by the estimator itself.
#include "vramcalc/advice.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

#include "time/speed.hpp"
#include "vramcalc/bill_format.hpp"
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
        out.push_back({"bf16 mixed precision", "Activations in 16 bits halve their size; weights keep an fp32 copy.", {{"precision", "bf16-mixed"}}});
    if (sc.precision == Precision::fp32 || sc.precision == Precision::bf16_mixed || sc.precision == Precision::fp16_mixed)
        out.push_back({"Pure bf16 (no fp32 copy)", "Weights, gradients and optimizer states in bf16: 8 instead of 16 bytes per parameter with AdamW.", {{"precision", "bf16"}}});
    if (sc.micro_batch > 1) {
        const std::int64_t mb = sc.micro_batch / 2;
        out.push_back({"Micro-batch " + std::to_string(mb) + " x " + std::to_string(sc.grad_accum * 2) + " accumulation",
                       "Same effective batch, half the activations; gradients persist between micro-batches.",
                       {{"micro_batch", mb}, {"grad_accum", sc.grad_accum * 2}}});
    }
    if (sc.micro_batch > 2)
        out.push_back({"Micro-batch 1 x " + std::to_string(sc.grad_accum * sc.micro_batch) + " accumulation",
                       "Same effective batch, the activations of one sequence at a time.",
                       {{"micro_batch", 1}, {"grad_accum", sc.grad_accum * sc.micro_batch}}});
    // A layer stack has no transformer layers to checkpoint (not modelled), no vocabulary and no attention kernel choice.
    const bool transformer = !sc.model.stack;
    if (transformer && (sc.checkpointing == Checkpointing::none || sc.checkpointing == Checkpointing::selective))
        out.push_back({"Gradient checkpointing", "Keeps only each layer's input and recomputes the layer in backward (one more forward pass).", {{"checkpointing", "full"}}});
    if (transformer && sc.loss == Loss::standard)
        out.push_back({"Chunked cross-entropy", "Never materialises the full fp32 logits (vocab x tokens).", {{"loss", "chunked"}}});
    if (transformer && sc.attention == Attention::eager)
        out.push_back({"SDPA / flash attention", "Does not keep the seq x seq attention scores.", {{"attention", "sdpa"}}});
    if (sc.method != Method::qlora && (sc.optimizer == Optimizer::adamw || sc.optimizer == Optimizer::lion))
        out.push_back({"8-bit AdamW", "Optimizer states in 8 bits with block-wise scales (bitsandbytes).", {{"optimizer", "adamw-8bit"}}});
    if (sc.num_gpus > 1 && sc.sharding != Sharding::zero3 && sc.sharding != Sharding::fsdp_full)
        out.push_back({"ZeRO-3 / FSDP full sharding", "Weights, gradients and optimizer states split across the GPUs.", {{"sharding", "zero3"}}});
    if (sc.offload == Offload::none && sc.method == Method::full)
        out.push_back({"Offload optimizer to CPU", "Optimizer states live in host memory (slower steps).", {{"offload", "optimizer"}}});
    if (sc.method == Method::full || sc.method == Method::freeze)
        out.push_back({"LoRA (rank 16, all linear layers)", "Trains small adapters; the base model is frozen and needs no gradients or optimizer states.", {{"method", "lora"}, {"lora", {{"rank", 16}, {"targets", "all-linear"}}}}});
    if (sc.method != Method::qlora)
        out.push_back({"QLoRA (4-bit NF4 base)", "The frozen base weights in 4 bits, adapters in 16/32 bits.", {{"method", "qlora"}, {"quantization", "nf4"}, {"lora", {{"rank", 16}, {"targets", "all-linear"}}}}});
}

// vLLM fills its budget (gpu_memory_utilization): what lies outside it (CUDA graphs, the context) must fit
// beside it, and its pool decides how many sequences run at once.
void vllm_candidates(const Scenario& sc, const Bill& b, std::vector<Candidate>& out) {
    if (!b.serving_budget) return;
    if (sc.gpu_memory_utilization > 0.9 && b.device_bytes > b.gpu.memory_bytes)
        out.push_back({"gpu_memory_utilization 0.9", "vLLM's default budget: leaves room beside it for the CUDA graphs and context.", {{"gpu_memory_utilization", 0.9}}});
    if (!sc.enforce_eager && b.device_bytes > b.gpu.memory_bytes)
        out.push_back({"enforce_eager (no CUDA graphs)", "No CUDA graphs outside the budget; decoding is slower.", {{"enforce_eager", true}}});
    const std::int64_t seqs = b.kv_pool_sequences.value_or(0);
    if (seqs >= 1 && seqs < b.serving_budget->requested_sequences && seqs != sc.batch / 2)
        out.push_back({"Batch " + std::to_string(seqs), "As many sequences at once as vLLM's KV pool holds.", {{"batch", seqs}}});
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
        out.push_back({"Batch " + std::to_string(sc.batch / 2), "Half the concurrent sequences, half the KV cache.", {{"batch", sc.batch / 2}}});
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

// One candidate's effect, computed without the solvers (they run only for what is shown).
struct Tried {
    std::size_t index = 0;  // into the candidate list (its order is the preference order)
    std::int64_t device_bytes = 0;
    std::int64_t sequences = 0;  // vLLM: the sequences its KV pool holds (its device bytes are its budget)
    bool ok = false;
    bool within = false;  // the bill's verdict is "fits" (bill_format.cpp verdict_of)
};

Tried tried_of(const Bill& b, std::size_t index) {
    return {index, b.device_bytes, b.kv_pool_sequences.value_or(0), true, verdict_of(b) == Verdict::fits};
}

// The scenario read with `patch` applied: `doc` is patched in place and its patched keys restored after.
// A copy of the whole scenario for every change tried cost the page tens of ms per edit when the model
// was a megabyte of inline layers (issue 42); the patches themselves are a few keys.
Result<Scenario> read_patched(json& doc, const json& patch, const Catalog& catalog) {
    std::vector<std::pair<std::string, std::optional<json>>> saved;
    for (const auto& [k, v] : patch.items()) saved.emplace_back(k, doc.contains(k) ? std::optional<json>(doc[k]) : std::nullopt);
    doc.merge_patch(patch);
    auto sc = scenario_from_json(doc, catalog);
    for (auto& [k, old] : saved) {
        if (old) doc[k] = std::move(*old);
        else doc.erase(k);
    }
    return sc;
}

Tried try_patch(json& scenario, const json& patch, const Catalog& catalog, std::size_t index) {
    auto sc = read_patched(scenario, patch, catalog);
    if (!sc.ok()) return {index, 0, 0, false, false};
    return tried_of(estimate_peak(*sc), index);
}

// A change helps when it frees device memory, when it gives a pool that fills its budget (vLLM) more
// sequences, or when it makes the scenario fit (a smaller batch for that pool).
bool helps(const Tried& t, const Tried& base) {
    if (!t.ok) return false;
    if (t.within && !base.within) return true;
    return t.device_bytes < base.device_bytes || (t.sequences > base.sequences && t.device_bytes <= base.device_bytes);
}

// Two changes conflict when they set the same top-level key (bf16-mixed and pure bf16; LoRA and QLoRA).
bool conflicts(const json& a, const json& b) {
    for (const auto& [k, v] : a.items())
        if (b.contains(k)) return true;
    return false;
}

Advice finish(json& scenario, const Catalog& catalog, const std::vector<Candidate>& cands,
              const std::vector<std::size_t>& parts, std::int64_t before, double speed_before) {
    Advice a;
    json patch = json::object();
    for (std::size_t i : parts) {
        const Candidate& c = cands[i];
        a.title += (a.title.empty() ? "" : " + ") + c.title;
        a.why += (a.why.empty() ? "" : " ") + c.why;
        a.changes.push_back(c.title);
        patch.merge_patch(c.patch);
        if (c.patch.contains("model")) a.keeps_model = false;
    }
    const Bill after = estimate(*read_patched(scenario, patch, catalog));
    a.patch = std::move(patch);
    a.device_bytes = after.device_bytes;
    a.saving_bytes = before - after.device_bytes;
    a.fits = after.fits;
    a.within_target = verdict_of(after) == Verdict::fits;                       // vLLM: its pool holds the batch
    a.max_batch = after.max_micro_batch.value_or(after.max_batch.value_or(0));  // estimate() solved it already
    if (after.speed && after.speed->tokens_per_s > 0 && speed_before > 0) a.speed_ratio = after.speed->tokens_per_s / speed_before;
    return a;
}

// What the plan says when no change that keeps the model reaches "fits".
std::string nothing_fits_note(const Scenario& sc, const Bill& b) {
    if (sc.workload == Workload::train)
        return "No change or combination of up to three changes fits this GPU with this model: use more GPUs "
               "(with sharding) or a smaller model.";
    if (b.serving_budget && b.fits)  // vLLM runs it and queues what its pool does not hold
        return "vLLM runs this, but no change here gives its KV pool room for the whole batch at once: fewer "
               "sequences at once, or more GPUs (tensor parallelism), would.";
    return "No change fits this GPU with this model: use more GPUs (tensor parallelism) or a smaller model.";
}

}  // namespace

AdvicePlan plan_changes(const json& given, const Catalog& catalog) {
    AdvicePlan plan;
    auto base = scenario_from_json(given, catalog);
    if (!base.ok() || !given.is_object()) return plan;
    json scenario = given;                  // patched in place by each change tried (read_patched), and restored
    Bill base_bill = estimate_peak(*base);  // the solvers' answers are not needed for the base
    detail::estimate_speed(*base, base_bill);
    const Tried base_tried = tried_of(base_bill, 0);
    const std::int64_t before = base_bill.device_bytes;
    const double speed_before = base_bill.speed ? base_bill.speed->tokens_per_s : 0;

    std::vector<Candidate> cands;
    if (base->workload == Workload::train) training_candidates(*base, cands);
    else {
        inference_candidates(*base, cands);
        vllm_candidates(*base, base_bill, cands);
    }
    smaller_model(scenario, catalog, cands);

    std::vector<Tried> singles;
    for (std::size_t i = 0; i < cands.size(); ++i) {
        const Tried t = try_patch(scenario, cands[i].patch, catalog, i);
        if (helps(t, base_tried)) singles.push_back(t);
    }
    const bool fits_now = base_tried.within;
    const bool single_reaches = std::any_of(singles.begin(), singles.end(), [&](const Tried& t) {
        return t.within && !cands[t.index].patch.contains("model");
    });

    // Combinations of the changes that keep the model, when no single one reaches the target.
    std::vector<std::vector<std::size_t>> combos;
    if (!fits_now && !single_reaches) {
        std::vector<std::size_t> keep;
        for (const auto& t : singles)
            if (!cands[t.index].patch.contains("model")) keep.push_back(t.index);
        for (std::size_t a = 0; a < keep.size(); ++a)
            for (std::size_t b = a + 1; b < keep.size(); ++b) {
                if (conflicts(cands[keep[a]].patch, cands[keep[b]].patch)) continue;
                json p = cands[keep[a]].patch;
                p.merge_patch(cands[keep[b]].patch);
                if (const Tried t = try_patch(scenario, p, catalog, 0); t.ok && t.within)
                    combos.push_back({keep[a], keep[b]});
            }
        if (combos.empty())
            for (std::size_t a = 0; a < keep.size(); ++a)
                for (std::size_t b = a + 1; b < keep.size(); ++b)
                    for (std::size_t c = b + 1; c < keep.size(); ++c) {
                        const json& pa = cands[keep[a]].patch;
                        const json& pb = cands[keep[b]].patch;
                        const json& pc = cands[keep[c]].patch;
                        if (conflicts(pa, pb) || conflicts(pa, pc) || conflicts(pb, pc)) continue;
                        json p = pa;
                        p.merge_patch(pb);
                        p.merge_patch(pc);
                        if (const Tried t = try_patch(scenario, p, catalog, 0); t.ok && t.within)
                            combos.push_back({keep[a], keep[b], keep[c]});
                    }
    }
    // The least intrusive combinations first (the candidates' order is practitioners' order), at most 3.
    std::stable_sort(combos.begin(), combos.end(), [](const auto& x, const auto& y) {
        std::size_t sx = 0, sy = 0;
        for (auto i : x) sx += i;
        for (auto i : y) sy += i;
        return std::tuple(x.size(), sx) < std::tuple(y.size(), sy);
    });
    if (combos.size() > 3) combos.resize(3);

    for (const auto& c : combos) plan.ranked.push_back(finish(scenario, catalog, cands, c, before, speed_before));
    for (const auto& t : singles) plan.ranked.push_back(finish(scenario, catalog, cands, {t.index}, before, speed_before));
    // Within the target first; then fewer changes; then the user's model kept; then the larger saving.
    std::stable_sort(plan.ranked.begin(), plan.ranked.end(), [](const Advice& x, const Advice& y) {
        if (x.within_target != y.within_target) return x.within_target;
        if (x.within_target && x.keeps_model != y.keeps_model) return x.keeps_model;
        if (x.within_target && x.changes.size() != y.changes.size()) return x.changes.size() < y.changes.size();
        if (x.keeps_model != y.keeps_model) return x.keeps_model;
        return x.saving_bytes > y.saving_bytes;
    });
    const bool any = std::any_of(plan.ranked.begin(), plan.ranked.end(), [](const Advice& a) { return a.within_target && a.keeps_model; });
    if (!fits_now && !any) plan.note = nothing_fits_note(*base, base_bill);
    return plan;
}

std::vector<Advice> advise(const json& scenario, const Catalog& catalog) { return plan_changes(scenario, catalog).ranked; }

json advice_to_json(const AdvicePlan& plan) {
    json rows = json::array();
    for (const auto& a : plan.ranked)
        rows.push_back({{"title", a.title}, {"why", a.why}, {"patch", a.patch}, {"changes", a.changes}, {"device_bytes", a.device_bytes}, {"saving_bytes", a.saving_bytes}, {"fits", a.fits}, {"within_target", a.within_target}, {"keeps_model", a.keeps_model}, {"max_batch", a.max_batch}, {"speed_ratio", a.speed_ratio}});
    json j = {{"changes", rows}};
    if (!plan.note.empty()) j["note"] = plan.note;
    return j;
}

}  // namespace vramcalc
