#include "assembly/rlhf.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/checked.hpp"
#include "assembly/training.hpp"
#include "vramcalc/units.hpp"
#include "parallel/parallel.hpp"

namespace vramcalc::detail {

bool rlhf_static_component(const std::string& id) {
    return id == "weights" || id == "master_weights" || id == "lora" || id == "optimizer" ||
           id == "gathered_params" || id == "comm_buffers";
}

namespace {

struct Phase {
    std::string name;
    std::vector<Component> lines;
    double bytes() const {
        double t = 0;
        for (const auto& c : lines) t += static_cast<double>(c.bytes);
        return t;
    }
};

Component line(const std::string& id, double bytes, std::string detail) {
    return {id, saturated_bytes(bytes), std::move(detail)};
}

double weight_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

// The RLHF bill of one GPU: the static lines of every model (weights, optimizer states, ...) and, of the
// phases that take turns (policy update, critic update, frozen forwards, rollout), the largest.
struct RlhfBill {
    const Scenario& s;
    Bill& b;
    const RlhfSetup& x = s.rlhf;
    const bool ppo = x.algorithm == RlhfAlgorithm::ppo;
    const bool dpo = x.algorithm == RlhfAlgorithm::dpo;
    const std::string policy = ppo ? "actor" : "policy";
    const Layout L = layout_of(s);
    std::vector<Component> statics{};
    std::vector<Phase> phases{};

    // A trained role: its own training bill, split into static lines and its update phase.
    Bill trained(const std::string& role, const Scenario& rs) {
        Bill rb;
        rb.gpu = rs.gpu;
        training(rs, rb);
        Phase ph{role + " update", {}};
        for (const auto& c : rb.components) {
            if (rlhf_static_component(c.id)) statics.push_back({role + "." + c.id, c.bytes, c.detail});
            else ph.lines.push_back({role + "." + c.id, c.bytes, c.detail});
        }
        phases.push_back(std::move(ph));
        b.cpu_bytes += rb.cpu_bytes;
        b.torch_uncounted_bytes += rb.torch_uncounted_bytes;
        for (const auto& w : rb.warnings) b.warnings.push_back(role + ": " + w);
        return rb;
    }

    // A frozen model: weights (sharded like a ZeRO-3/FSDP model when the role is) and a no-grad forward
    // whose largest transient is the fp32 log-probabilities over the vocabulary.
    void frozen(const std::string& role, const RlhfRole& r, bool scores_tokens, bool policy_lora) {
        const ModelSpec& m = r.same_model ? s.model : r.model;
        if (role == "reference" && r.same_model && policy_lora) {
            b.warnings.push_back(
                "reference: the LoRA policy with its adapters disabled (PEFT disable_adapter): "
                "no second copy of the weights");
        } else {
            const double P = static_cast<double>(count_parameters(m).total);
            const bool sharded = r.sharding == Sharding::zero3 || r.sharding == Sharding::fsdp_full;
            const double share = (sharded ? 1.0 / static_cast<double>(L.shard()) : 1.0) / static_cast<double>(L.tp * L.pp);
            const double w = P * weight_bytes(r.precision) * share;
            statics.push_back(line(role + ".weights", w,
                                   std::to_string(static_cast<long long>(P)) + " frozen params x " +
                                       std::to_string(static_cast<int>(weight_bytes(r.precision))) + " B" +
                                       (sharded ? ", sharded over " + std::to_string(L.shard()) + " ranks" : "")));
        }
        const double rows = static_cast<double>(dpo ? 2 * s.micro_batch : s.micro_batch) * static_cast<double>(s.seq_len);
        // A causal LM's log-probs: logits in 16 bit plus their fp32 log-softmax; a reward model scores the
        // last token only (a scalar head).
        const double vocab = static_cast<double>(m.vocab);
        const double bytes = scores_tokens ? rows * vocab * (2 + 4) / static_cast<double>(L.tp) : rows * 4;
        phases.push_back({role + " forward", {line(role + ".logits", bytes, scores_tokens ? "log-probs over the vocabulary, no grad" : "scalar scores")}});
    }

    // The rollout engine: colocated vLLM's preallocated pool, or the policy generating itself.
    void rollout() {
        const ModelSpec& m = s.model;
        const double P = static_cast<double>(count_parameters(m).total);
        const double sequences = static_cast<double>(x.rollout_batch > 0 ? x.rollout_batch : s.micro_batch) *
                                 static_cast<double>(x.group_size);
        const double tokens = sequences * static_cast<double>(x.prompt_len + x.gen_len);
        const double kv_need = m.count_only ? 0 : kv_bytes_per_token(m, 2, false) * tokens / static_cast<double>(x.rollout_tp);
        std::vector<Component> lines;
        if (x.rollout_engine == RolloutEngine::hf) {
            // The policy generates itself (transformers generate): its KV cache and last-position logits.
            lines.push_back(line("rollout.kv_cache", kv_need, std::to_string(static_cast<long long>(sequences)) + " sequences x " + std::to_string(x.prompt_len + x.gen_len) + " tokens, 16-bit KV"));
            lines.push_back(line("rollout.logits", sequences * static_cast<double>(m.vocab) * 4, "last-position logits, fp32"));
        } else if (x.rollout_colocated) {
            // vLLM preallocates gpu_memory_utilization x the GPU's memory for its weights, activations and KV
            // block pool (vLLM docs, gpu_memory_utilization); its own 16-bit weight copy is split over its tp.
            const double budget = x.rollout_gpu_memory_utilization * static_cast<double>(s.gpu.memory_bytes);
            const double w = P * 2 / static_cast<double>(x.rollout_tp);
            lines.push_back(line("rollout.weights", w, "the rollout engine's own 16-bit weights (tp " + std::to_string(x.rollout_tp) + ")"));
            lines.push_back(line("rollout.kv_cache", std::max(0.0, budget - w),
                                 "vLLM KV block pool: gpu_memory_utilization " +
                                     std::to_string(x.rollout_gpu_memory_utilization).substr(0, 4) + " x GPU minus its weights"));
            if (kv_need > budget - w)
                b.warnings.push_back("rollout: " + std::to_string(static_cast<long long>(sequences)) + " sequences of " +
                                     std::to_string(x.prompt_len + x.gen_len) + " tokens need " +
                                     std::to_string(static_cast<long long>(kv_need / kGiB)) +
                                     " GiB of KV cache, more than vLLM's pool: it will run fewer at a time");
        } else {
            b.warnings.push_back(
                "rollout engine on GPUs of its own: not on these GPUs (it needs gpu_memory_utilization x "
                "its GPU, with " +
                std::to_string(static_cast<long long>(P * 2 / static_cast<double>(x.rollout_tp) / kGiB)) +
                " GiB of weights per GPU)");
        }
        if (!lines.empty()) {
            if (x.rollout_released || x.rollout_engine == RolloutEngine::hf) phases.push_back({"rollout", lines});
            else
                for (auto& c : lines) statics.push_back(std::move(c));
        }
    }

    void peak(const Bill& pb) {
        // The peak: all static lines plus the largest phase.
        const Phase* worst = nullptr;
        for (const auto& ph : phases)
            if (!worst || ph.bytes() > worst->bytes()) worst = &ph;
        b.components = statics;
        if (worst) {
            for (const auto& c : worst->lines) b.components.push_back(c);
            b.peak_phase = worst->name + (worst->name == policy + " update" && !pb.peak_phase.empty() ? " (" + pb.peak_phase + ")" : "");
        }
    }
};

}  // namespace

void rlhf_components(const Scenario& s, Bill& b) {
    RlhfBill r{s, b, s.rlhf};
    // ---- the policy (actor): trained on the scenario's own settings ----
    Scenario ps = s;
    ps.rlhf = RlhfSetup{};
    // DPO runs chosen and rejected sequences of each example in one forward (TRL DPOTrainer
    // concatenated_forward): twice the micro-batch.
    if (r.dpo) ps.micro_batch = s.micro_batch * 2;
    const Bill pb = r.trained(r.policy, ps);
    b.trainable_parameters = pb.trainable_parameters;
    b.timeline = pb.timeline;
    b.layout = pb.layout;
    const bool policy_lora = s.method == Method::lora || s.method == Method::qlora;

    // ---- critic (PPO): a trained model with a value head ----
    if (s.rlhf.critic.present && r.ppo) {
        Scenario cs = ps;
        if (!s.rlhf.critic.same_model) cs.model = s.rlhf.critic.model;
        cs.method = s.rlhf.critic.method;
        cs.precision = s.rlhf.critic.precision;
        cs.sharding = s.rlhf.critic.sharding;
        cs.offload = s.rlhf.critic.offload;
        if (cs.method == Method::full) cs.lora = LoraSetup{};
        r.trained("critic", cs);
    }

    const RlhfSetup& x = s.rlhf;
    if (x.reference.present) r.frozen("reference", x.reference, true, policy_lora);
    if (x.reward.present && r.ppo) r.frozen("reward", x.reward, false, policy_lora);
    if (x.rollout && !r.dpo) r.rollout();
    r.peak(pb);
}

}  // namespace vramcalc::detail
