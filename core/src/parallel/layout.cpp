// Where each parameter lives on a multi-GPU layout, and the static model states per GPU.
#include "parallel/layout.hpp"

#include <algorithm>
#include <cmath>

#include "formats/recipes.hpp"

namespace vramcalc::detail {
namespace {

double per(double x, double n) { return n > 0 ? x / n : x; }

}  // namespace

StageParams stage_params(const ModelSpec& m, const Layout& L) {
    StageParams sp;
    const double total = static_cast<double>(count_parameters(m).total);
    const double tp = static_cast<double>(L.tp), pp = static_cast<double>(L.pp), ep = static_cast<double>(L.ep);
    if (m.count_only || m.params.empty()) {
        sp.first = sp.last = per(per(total, tp), pp);
        return sp;
    }
    const double layers = static_cast<double>(std::max<i64>(1, m.layers + m.encoder_layers));
    const double lps = std::ceil(layers / pp);
    sp.layers_per_stage = lps;
    double first = 0, last = 0, persistent = 0, all = 0;
    for (const auto& g : m.params) {
        const double n = static_cast<double>(g.numel_each()) * static_cast<double>(g.count);
        sp.largest_tensor = std::max(sp.largest_tensor, static_cast<double>(g.numel_each()));
        if (static_cast<double>(g.numel_each()) < kDsPersistenceThreshold) persistent += n;
        const bool split_tp = g.is_linear || g.category == ParamCategory::embeddings || g.category == ParamCategory::lm_head;
        double share = split_tp ? n / tp : n;
        if (g.routed_expert) share /= ep;
        all += share;
        if (g.category == ParamCategory::embeddings) {
            first += share;
            sp.non_layer += n;
            if (m.tied_embeddings && L.pp > 1) last += share;
        } else if (g.category == ParamCategory::lm_head) {
            last += share;
            sp.non_layer += n;
        } else if (g.count == 1) {
            last += share;  // final norm
            sp.non_layer += n;
        } else {
            first += share * lps / layers;
            last += share * lps / layers;
            sp.layer += n / layers;
        }
    }
    if (L.pp == 1) first = last = all;  // one stage holds the embeddings, every layer, the final norm and the head
    sp.first = first;
    sp.last = last;
    sp.persistent_fraction = total > 0 ? persistent / total : 0;
    return sp;
}

// The share of one layer's saved activations a tp rank keeps (1 when tp = 1).
double tp_activation_share(const ModelSpec& m, const ActivationSetup& a, const Scenario& s, const Layout& L) {
    if (L.tp == 1 || m.count_only) return 1;
    const auto tensors = layer_saved_tensors(m, a);
    std::vector<SavedTensor> repl, split;
    for (const auto& t : tensors) (t.tp_replicated ? repl : split).push_back(t);  // activations.hpp
    const double b = static_cast<double>(s.micro_batch), q = static_cast<double>(s.seq_len);
    const bool selective = s.checkpointing == Checkpointing::selective;
    const double r = layer_bytes(repl, b, q, selective), x = layer_bytes(split, b, q, selective);
    if (r + x <= 0) return 1;
    const double tp = static_cast<double>(L.tp);
    return ((L.sp ? r / tp : r) + x / tp) / (r + x);
}

Layout layout_of(const Scenario& s) {
    Layout L;
    L.tp = std::max<std::int64_t>(1, s.tp);
    L.pp = std::max<std::int64_t>(1, s.pp);
    L.cp = std::max<std::int64_t>(1, s.cp);
    L.ep = std::max<std::int64_t>(1, s.ep);
    L.sp = s.sp && L.tp > 1;
    L.dp = std::max<std::int64_t>(1, s.num_gpus / (L.tp * L.pp * L.cp));
    // ZeRO (Rajbhandari et al. 2020, Sec. 5): P_os shards optimizer states (and the fp32 master copy),
    // P_os+g also gradients, P_os+g+p also parameters. FSDP SHARD_GRAD_OP keeps parameters unsharded
    // between forward and backward (ZeRO-2-like); FULL_SHARD reshards them after each unit (ZeRO-3-like)
    // (torch.distributed.fsdp.ShardingStrategy). Megatron's distributed optimizer is ZeRO-1 (zero1).
    L.shard_optimizer = s.sharding != Sharding::none;
    L.shard_grads = s.sharding == Sharding::zero2 || s.sharding == Sharding::zero3 || is_fsdp(s.sharding);
    L.shard_weights = s.sharding == Sharding::zero3 || s.sharding == Sharding::fsdp_full;
    L.offload_optimizer = s.offload != Offload::none;
    L.offload_params = s.offload == Offload::optimizer_params && L.shard_weights;
    return L;
}

ModelStates model_states_per_gpu(const Scenario& s) {
    const Layout L = layout_of(s);
    const Recipe r = training_recipe(s.precision, s.framework);
    const StageParams sp = stage_params(s.model, L);
    const double total = static_cast<double>(count_parameters(s.model).total);
    const double share = total > 0 ? std::max(sp.first, sp.last) : 0;
    const double shard = static_cast<double>(L.shard());
    ModelStates st;
    const double w = share * r.weight * (L.shard_weights ? 1 / shard : 1);
    const double master = share * r.master * (L.shard_optimizer ? 1 / shard : 1);
    const double g = share * r.grad * (L.shard_grads ? 1 / shard : 1);
    const double o = share * optimizer_bytes_per_param(s.optimizer, r.state) * (L.shard_optimizer ? 1 / shard : 1);
    st.weights = L.offload_params ? 0 : w;
    st.master = L.offload_optimizer ? 0 : master;
    st.optimizer = L.offload_optimizer ? 0 : o;
    st.gradients = g;
    st.cpu = (L.offload_params ? w : 0) + (L.offload_optimizer ? master + o : 0);
    return st;
}

}  // namespace vramcalc::detail
