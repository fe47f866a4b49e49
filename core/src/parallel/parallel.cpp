// Multi-GPU training: data-parallel sharding, offload and Megatron-style model parallelism applied to
// one training step of the most loaded rank. See parallel.hpp for the scope and docs/methodology.md
// ("Multi-GPU training") for every rule with its source.
#include "parallel/parallel.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/checked.hpp"
#include "formats/recipes.hpp"

namespace vramcalc::detail {
namespace {

double per(double x, double n) { return n > 0 ? x / n : x; }

bool is_fsdp(Sharding s) { return s == Sharding::fsdp_full || s == Sharding::fsdp_grad_op; }
bool is_zero(Sharding s) { return s == Sharding::zero1 || s == Sharding::zero2 || s == Sharding::zero3; }

// Where each parameter tensor lives under tensor and pipeline parallelism (Megatron-LM):
//  - the word embedding sits on the first pipeline stage and the output layer on the last, both split
//    over tp along the vocabulary (VocabParallelEmbedding, ColumnParallelLinear); with tied embeddings
//    and pp > 1 the last stage keeps its own copy of the embedding for the output layer
//    (megatron/core/models/common/language_module: shared_embedding_or_output_weight);
//  - decoder layers are split evenly over the stages (ceil(L / pp) on the most loaded one); their
//    linear weights are split over tp (column/row parallel), norms are replicated; routed experts are
//    split over ep (and over tp inside an expert, Megatron's default expert tensor parallelism);
//  - what belongs to no layer (the final norm) sits on the last stage.
struct StageParams {
    double first = 0, last = 0;        // parameters held by one rank of the first / last stage
    double layer = 0;                  // parameters of one decoder layer (all ranks of the tp group)
    double non_layer = 0;              // embeddings, output layer, final norm
    double largest_tensor = 0;         // the largest single module's parameters (DeepSpeed's "largest layer")
    double persistent_fraction = 0;    // share of parameters in tensors below ZeRO-3's persistence threshold
    double layers_per_stage = 0;
};

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

struct StageResult {
    std::vector<Component> components;  // weights, master_weights, lora, gathered_params, comm_buffers
    double opt = 0, opt_temp = 0, cpu = 0, torch_static = 0;
    StepInputs in;
    StepPeak peak;
    std::vector<std::string> notes;
};

}  // namespace

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
    const double dp = static_cast<double>(L.dp);
    ModelStates st;
    const double w = share * r.weight * (L.shard_weights ? 1 / dp : 1);
    const double master = share * r.master * (L.shard_optimizer ? 1 / dp : 1);
    const double g = share * r.grad * (L.shard_grads ? 1 / dp : 1);
    const double o = share * optimizer_bytes_per_param(s.optimizer, r.state) * (L.shard_optimizer ? 1 / dp : 1);
    st.weights = L.offload_params ? 0 : w;
    st.master = L.offload_optimizer ? 0 : master;
    st.optimizer = L.offload_optimizer ? 0 : o;
    st.gradients = g;
    st.cpu = (L.offload_params ? w : 0) + (L.offload_optimizer ? master + o : 0);
    return st;
}

void apply_parallel_training(const Scenario& s, const ActivationSetup& a, Bill& b, StepInputs& in, double& opt,
                             double& opt_temp) {
    const Layout L = layout_of(s);
    const bool multi = s.num_gpus > 1 || s.sharding != Sharding::none || s.offload != Offload::none ||
                       L.tp * L.pp * L.cp * L.ep > 1;
    if (!multi) return;
    const ModelSpec& m = s.model;
    const Recipe r = training_recipe(s.precision, s.framework);
    const ParamBreakdown pb = count_parameters(m);
    const double total = static_cast<double>(pb.total);
    const StageParams sp = stage_params(m, L);
    const double dp = static_cast<double>(L.dp), tp = static_cast<double>(L.tp), cp = static_cast<double>(L.cp);
    const bool paged = s.optimizer == Optimizer::paged_adamw_8bit;
    const bool deepspeed = is_zero(s.sharding);
    const bool fsdp = is_fsdp(s.sharding);

    if (s.offload == Offload::optimizer_params && !L.shard_weights)
        b.warnings.push_back("offload \"optimizer+params\" needs parameter sharding (zero3 or fsdp-full): only the "
                             "optimizer is offloaded here");
    if (s.sharding == Sharding::none && s.offload != Offload::none)
        b.warnings.push_back("CPU offload comes with ZeRO or FSDP: counted as if the optimizer ran on the CPU "
                             "for one replica");
    if (L.tp > 1 && m.heads > 0 && m.heads % L.tp != 0)
        b.warnings.push_back("tp = " + std::to_string(L.tp) + " does not divide the " + std::to_string(m.heads) +
                             " attention heads: Megatron refuses this layout");
    if (L.ep > 1 && m.moe.experts == 0) b.warnings.push_back("ep > 1 on a dense model: nothing to split");
    if (m.count_only && (fsdp || s.sharding == Sharding::zero3))
        b.warnings.push_back("the gathered parameters of ZeRO-3/FSDP need the model's shapes: not counted");

    // One replica's static bytes as training() computed them.
    const double weights1 = static_cast<double>(b.component("weights"));
    const double master1 = static_cast<double>(b.component("master_weights"));
    const double lora1 = static_cast<double>(b.component("lora"));
    const double opt1 = opt, opt_temp1 = opt_temp;
    const StepInputs in1 = in;
    const double act_share = tp_activation_share(m, a, s, L);

    auto build = [&](bool first_stage) {
        StageResult res;
        const double held = first_stage ? sp.first : sp.last;
        const double share = total > 0 ? held / total : 1.0 / (tp * static_cast<double>(L.pp));
        // ZeRO-3 keeps tensors below stage3_param_persistence_threshold (1e5 elements) whole on every rank.
        const double wdp = !L.shard_weights ? 1.0
                           : deepspeed     ? sp.persistent_fraction + (1 - sp.persistent_fraction) / dp
                                           : 1 / dp;
        const double odp = L.shard_optimizer ? 1 / dp : 1.0;
        const double gdp = L.shard_grads ? 1 / dp : 1.0;
        double cpu = 0;
        auto add = [&](const char* id, double bytes, std::string detail) {
            if (bytes > 0) res.components.push_back({id, saturated_bytes(bytes), std::move(detail)});
        };
        std::string where = "1/" + std::to_string(L.tp * L.pp) + " model-parallel share";
        if (L.pp > 1) where = std::string(first_stage ? "first" : "last") + " pipeline stage, tp " + std::to_string(L.tp);
        const std::string dp_text = " over dp = " + std::to_string(L.dp);

        const double w = weights1 * share * wdp, lw = lora1 * share * wdp;
        if (L.offload_params) {
            cpu += w + lw;
            add("weights", 0, "");
        } else {
            add("weights", w, "parameters, " + where + (L.shard_weights ? ", sharded" + dp_text : ""));
            add("lora", lw, "adapters, " + where + (L.shard_weights ? ", sharded" + dp_text : ""));
        }
        const double mw = master1 * share * odp;
        res.opt = opt1 * share * odp;
        res.opt_temp = opt_temp1 * share * odp;
        if (L.offload_optimizer) {
            // The step runs on the CPU: states, master copy and (torch optimizers) its temporaries move there.
            cpu += mw + res.opt + (deepspeed ? 0 : res.opt_temp);
            res.opt = 0;
            res.opt_temp = 0;
        } else {
            add("master_weights", mw, "fp32 master copy, " + where + (L.shard_optimizer ? ", sharded" + dp_text : ""));
        }

        // ---- the step's inputs for this rank ----
        StepInputs st = in1;
        const double gshare = share * gdp;
        st.grad_total = in1.grad_total * gshare;
        st.grad_per_layer = in1.grad_per_layer * gshare;
        const double head_total = static_cast<double>(pb.embeddings + pb.lm_head);
        double head_share = 1;
        if (L.pp > 1 && head_total > 0 && !m.tied_embeddings)
            head_share = static_cast<double>(first_stage ? pb.embeddings : pb.lm_head) / head_total;
        st.grad_head = in1.grad_head * head_share / tp * gdp;
        // One layer's unsharded gradients exist until they are reduced (FSDP reduce-scatter per unit;
        // DeepSpeed copies them into its reduce bucket, counted below).
        const double layer_grad_unsharded = in1.grad_per_layer / tp;
        double extra_transient = 0;
        if (L.offload_optimizer && (deepspeed || fsdp) && L.shard_grads) {
            // ZeRO-Offload keeps the fp32 gradient partition in host memory (Ren et al. 2021, ZeRO-Offload
            // Sec. 4; DeepSpeed's estimators count 4 B/param for it); FSDP CPUOffload moves gradients too.
            const double g_params = (r.grad > 0 ? in1.grad_total / r.grad : 0) * share / dp;
            cpu += g_params * (deepspeed ? 4.0 : r.grad);
            st.grad_total = st.grad_per_layer = st.grad_head = 0;
            extra_transient += layer_grad_unsharded;
        } else if (fsdp && L.shard_grads) {
            extra_transient += layer_grad_unsharded;
        }
        if (fsdp && s.fsdp_no_sync && s.grad_accum > 1 && !L.offload_optimizer && !m.count_only &&
            s.method != Method::qlora && total > 0) {
            // no_sync(): "FSDP will accumulate the full model gradients (instead of gradient shards) until the
            // eventual sync" (torch.distributed.fsdp FullyShardedDataParallel.no_sync docs). A flat parameter
            // needs a gradient when any tensor in it does, so a LoRA decoder-layer unit keeps an unsharded
            // gradient of its frozen weights too, in their dtype (use_orig_params=True, which Fabric sets;
            // FlatParamHandle). LitGPT's LoRA FSDP runs measured about one such copy above the sharded
            // estimate (Lightning-AI/litgpt#676: the OOM goes away without no_backward_sync).
            const double bytes_per_param = weights1 / total;
            double unit_params = 0;
            if (s.method == Method::full) {
                unit_params = held;  // every unit trains
            } else {
                const double layers_here = std::min(sp.layers_per_stage, static_cast<double>(in1.trained_layers));
                unit_params = layers_here * sp.layer / tp;
                if (s.method == Method::lora && s.lora.train_embeddings) {
                    const bool has_first = first_stage || L.pp == 1, has_last = !first_stage || L.pp == 1;
                    unit_params += (static_cast<double>(has_first ? pb.embeddings : 0) +
                                    static_cast<double>(has_last ? pb.lm_head : 0)) / tp;
                }
            }
            st.grad_total = std::max(st.grad_total, unit_params * bytes_per_param);
            st.grads_persist = true;
        }

        // Activations: tp splits what lies between the column- and row-parallel linears (sp also the rest),
        // cp splits the sequence (Megatron context parallelism), pp keeps ceil(L / pp) layers per stage and
        // 1F1B keeps min(pp, micro-batches) micro-batches in flight on the first stage (Narayanan et al.
        // 2021, Sec. 2.2; Korthikanti et al. 2022, Sec. 4.2.3).
        st.layer_act = in1.layer_act * act_share / cp;
        st.layer_input = in1.layer_input * (L.sp ? 1 / tp : 1.0) / cp;
        st.layer_transient = in1.layer_transient / tp / cp + extra_transient;
        st.extra_act = in1.extra_act * (L.sp ? 1 / tp : 1.0) / cp;
        st.logits_saved = in1.logits_saved / tp / cp;  // vocab-parallel cross-entropy
        st.logits_forward_peak = in1.logits_forward_peak / tp / cp;
        st.logits_backward_peak = in1.logits_backward_peak / tp / cp;
        if (L.pp > 1 && in1.layers > 0) {
            const auto lps = static_cast<std::int64_t>(sp.layers_per_stage);
            const double inflight = first_stage ? static_cast<double>(std::min<std::int64_t>(L.pp, s.grad_accum)) : 1.0;
            st.layers = std::min<std::int64_t>(in1.layers, lps);
            st.trained_layers = std::min<std::int64_t>(in1.trained_layers, st.layers);
            st.layer_act *= inflight;
            st.layer_input *= inflight;
            if (first_stage) st.logits_saved = st.logits_forward_peak = st.logits_backward_peak = 0;
            else st.extra_act = in1.extra_act * (L.sp ? 1 / tp : 1.0) / cp;
        }

        // ---- buffers of the data-parallel framework ----
        double buffers = 0, gathered = 0;
        std::string buffer_detail, gathered_detail;
        if (deepspeed) {
            // ZeRO-1/2: backward() allocates an ipg buffer of reduce_bucket_size elements in the 16-bit dtype,
            // two with overlap_comm (default off below stage 3) (deepspeed/runtime/zero/stage_1_and_2.py).
            // ZeRO-3 keeps one flat reduce bucket of the same size (stage3.py). Defaults: config.py.
            buffers = kDsReduceBucket * a.compute;
            buffer_detail = "DeepSpeed reduce bucket: reduce_bucket_size 5e8 elements x " +
                            std::to_string(static_cast<int>(a.compute)) + " B (ZeRO default)";
            if (s.sharding == Sharding::zero3 && !m.count_only) {
                // The module being computed is gathered whole, plus up to stage3_prefetch_bucket_size elements
                // fetched ahead; DeepSpeed's estimator allows 4 B x the largest module (stage3.py).
                gathered = (std::min(sp.largest_tensor / tp, kDsMaxLiveParameters) + kDsPrefetchBucket) * a.compute;
                gathered_detail = "ZeRO-3: largest module gathered + stage3_prefetch_bucket_size 5e7 elements";
            }
            // ZeRO-1/2/3 step: the rank's 16-bit gradient partition is converted to fp32 for the optimizer
            // (stage_1_and_2.py estimator comment: 2 grads16 + 4 grads32 + 4 params32 + 8 states).
            // DeepSpeed steps with its FusedAdam kernel (no torch foreach temporaries); ZeRO-3 converts one
            // sub-group (sub_group_size, default 1e9 elements, config.py) at a time.
            res.opt_temp = 0;
            if (!L.offload_optimizer && in1.grad_total > 0 && r.grad < 4) {
                double part = (in1.grad_total / r.grad) * share / dp;
                if (s.sharding == Sharding::zero3) part = std::min(part, 1e9);
                res.opt_temp = part * 4.0;
            }
        } else if (fsdp && !m.count_only) {
            // FULL_SHARD: the unit being computed and the one prefetched (BACKWARD_PRE, limit_all_gathers lets
            // two all-gathers be in flight) are unsharded; the root unit (embeddings, output layer, final
            // norm under transformer auto-wrap) stays unsharded through forward and backward
            // (torch.distributed.fsdp FullyShardedDataParallel docs). Gathered in the compute dtype.
            if (L.shard_weights) {
                // QLoRA layers are gathered in their stored 4/8-bit form: torchtune's NF4Tensor all-gathers its
                // packed data (fsdp_pre_all_gather) and FSDP-QLoRA stores bitsandbytes weights in a 16-bit
                // quant_storage flat parameter; dequantisation happens per matmul (counted in activations).
                double layer_bytes = a.compute;
                if (s.method == Method::qlora && m.hidden > 0) {
                    const double q = quantized_linear_bytes(qlora_format(s.quantization), m.hidden, m.hidden);
                    if (q > 0) layer_bytes = q / (static_cast<double>(m.hidden) * static_cast<double>(m.hidden));
                }
                gathered = sp.non_layer / tp * a.compute + 2 * sp.layer / tp * layer_bytes;
                gathered_detail = std::string("FSDP: root unit + 2 decoder-layer units unsharded (current + prefetched)") +
                                  (s.method == Method::qlora ? ", layers in their quantised form" : "");
            }
        } else if (s.sharding == Sharding::none && L.dp > 1 && s.framework != Framework::megatron) {
            // DistributedDataParallel keeps its gradient buckets (bucket_cap_mb = 25) as a second copy of the
            // gradients unless gradient_as_bucket_view=True (torch.nn.parallel.DistributedDataParallel docs:
            // the saving "will be equal to the total gradients size").
            buffers = in1.grad_total * share;
            buffer_detail = "DDP gradient buckets (25 MiB each): a copy of all gradients";
        }
        add("gathered_params", gathered, gathered_detail);
        add("comm_buffers", buffers, buffer_detail);

        double torch_static = 0;
        for (const auto& c : res.components) torch_static += static_cast<double>(c.bytes);
        torch_static += paged ? 0 : res.opt;
        st.static_bytes = torch_static;
        st.optimizer_temp = res.opt_temp;
        res.in = st;
        res.torch_static = torch_static;
        res.peak = simulate_step(st);
        // DeepSpeed's host buffers: its estimators multiply host memory by additional_buffer_factor 1.5.
        res.cpu = deepspeed ? cpu * kDsCpuBufferFactor : cpu;
        return res;
    };

    StageResult chosen = build(false);
    bool first_chosen = false;
    if (L.pp > 1) {
        StageResult first = build(true);
        const double paged_first = paged ? first.opt : 0, paged_last = paged ? chosen.opt : 0;
        if (first.peak.bytes + paged_first > chosen.peak.bytes + paged_last) {
            chosen = std::move(first);
            first_chosen = true;
        }
    }
    // Replace the replica's model-state lines with this rank's.
    std::vector<Component> kept;
    for (auto& c : b.components)
        if (c.id != "weights" && c.id != "master_weights" && c.id != "lora") kept.push_back(std::move(c));
    b.components = std::move(chosen.components);
    for (auto& c : kept) b.components.push_back(std::move(c));
    opt = chosen.opt;
    opt_temp = chosen.opt_temp;
    in = chosen.in;
    b.cpu_bytes += saturated_bytes(chosen.cpu);
    std::string text = "per GPU of " + std::to_string(s.num_gpus) + ": dp " + std::to_string(L.dp) + ", tp " +
                       std::to_string(L.tp) + (L.sp ? " (sp)" : "") + ", pp " + std::to_string(L.pp) + ", cp " +
                       std::to_string(L.cp) + ", ep " + std::to_string(L.ep) + ", sharding " + to_string(s.sharding) +
                       ", offload " + to_string(s.offload);
    if (L.pp > 1) text += std::string("; most loaded rank: ") + (first_chosen ? "first" : "last") + " pipeline stage";
    b.layout = text;
    if (b.cpu_bytes > 0 && L.offload_optimizer)
        b.warnings.push_back("cpu_bytes is the host memory of one rank; a node needs it once per GPU it holds");
}

DsEstimate deepspeed_zero2_estimate(double P, std::int64_t gpus_per_node, std::int64_t nodes, bool offload) {
    // estimate_zero2_model_states_mem_needs as documented in DeepSpeed's memory.rst (@38327e07): GPU 4P + 16P/N
    // without offload (the code now says 2P + 18P/N), 2P with the optimizer offloaded; CPU with offload
    // P x max(4N, 16) x 1.5, without P x 4 x gpus_per_node x 1.5 (for loading the model).
    const double N = static_cast<double>(gpus_per_node * nodes);
    DsEstimate e;
    if (offload) {
        e.gpu = 2 * P;
        e.cpu = P * std::max(4 * N, 16.0) * kDsCpuBufferFactor;
    } else {
        e.gpu = 4 * P + std::floor(16 * P / N);
        e.cpu = P * 4 * static_cast<double>(gpus_per_node) * kDsCpuBufferFactor;
    }
    e.gpu = std::floor(e.gpu);
    e.cpu = std::floor(e.cpu);
    return e;
}

DsEstimate deepspeed_zero3_estimate(double P, double LL, std::int64_t gpus_per_node, std::int64_t nodes,
                                    bool offload_optimizer, bool offload_params, bool zero_init) {
    // estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage3.py): largest_layer_memory =
    // 4 x largest layer; GPU = that + 18P/N (no offload), + 2P/N (optimizer offload), alone (both offloaded).
    const double N = static_cast<double>(gpus_per_node * nodes), per_node = static_cast<double>(gpus_per_node);
    const double nodes_factor = 1.0 / static_cast<double>(nodes), f = kDsCpuBufferFactor;
    const double ll = 4 * LL;
    DsEstimate e;
    if (offload_optimizer && offload_params) {
        e.gpu = ll;
        e.cpu = zero_init ? P * 18 * nodes_factor * f : P * std::max(4 * per_node, 18 * nodes_factor) * f;
    } else if (offload_optimizer) {
        e.gpu = ll + std::floor(2 * P / N);
        e.cpu = zero_init ? P * 16 * nodes_factor * f : P * std::max(4 * per_node, 16 * nodes_factor) * f;
    } else {
        e.gpu = ll + std::floor(18 * P / N);
        e.cpu = zero_init ? LL * 4 * per_node * f : P * 4 * per_node * f;
    }
    e.gpu = std::floor(e.gpu);
    e.cpu = std::floor(e.cpu);
    return e;
}

}  // namespace vramcalc::detail
