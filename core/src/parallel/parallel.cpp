// Multi-GPU training: data-parallel sharding, offload and Megatron-style model parallelism applied to
// one training step of the most loaded rank. See parallel.hpp for the scope and docs/methodology.md
// ("Multi-GPU training") for every rule with its source.
#include "parallel/parallel.hpp"

#include "parallel/layout.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/checked.hpp"
#include "formats/recipes.hpp"

namespace vramcalc::detail {
namespace {

struct StageResult {
    std::vector<Component> components;  // weights, master_weights, lora, gathered_params, comm_buffers
    double opt = 0, opt_temp = 0, cpu = 0, torch_static = 0;
    StepInputs in;
    StepPeak peak;
    std::vector<std::string> notes;
};

// One replica's figures as training() computed them, and the layout they are spread over.
struct Replica {
    const Scenario& s;
    const ActivationSetup& a;
    const ModelSpec& m;
    Layout L{};
    Recipe r{};
    ParamBreakdown pb{};
    StageParams sp{};
    double total = 0, shard = 1, tp = 1, cp = 1;  // shard: Layout::shard(), dp x cp
    bool paged = false, deepspeed = false, fsdp = false;
    double weights1 = 0, master1 = 0, lora1 = 0, opt1 = 0, opt_temp1 = 0, act_share = 1;
    StepInputs in1{};
};

// What one rank of a pipeline stage holds: its share of the model states, the step's inputs, the
// data-parallel framework's buffers, and the step simulated on them.
struct Stage {
    const Replica& x;
    bool first_stage = false;
    StageResult res;
    StepInputs st;
    double share = 1, held = 0, cpu = 0, extra_transient = 0;

    void add(const char* id, double bytes, std::string detail) {
        if (bytes > 0) res.components.push_back({id, saturated_bytes(bytes), std::move(detail)});
    }

    // Weights, adapters, master copy and optimizer states: this stage's share, sharded over dp x cp.
    void model_states() {
        const Layout& L = x.L;
        held = first_stage ? x.sp.first : x.sp.last;
        share = x.total > 0 ? held / x.total : 1.0 / (x.tp * static_cast<double>(L.pp));
        // ZeRO-3 keeps tensors below stage3_param_persistence_threshold (1e5 elements) whole on every rank.
        const double wdp = !L.shard_weights ? 1.0
                           : x.deepspeed    ? x.sp.persistent_fraction + (1 - x.sp.persistent_fraction) / x.shard
                                            : 1 / x.shard;
        const double odp = L.shard_optimizer ? 1 / x.shard : 1.0;
        std::string where = "1/" + std::to_string(L.tp * L.pp) + " model-parallel share";
        if (L.pp > 1) where = std::string(first_stage ? "first" : "last") + " pipeline stage, tp " + std::to_string(L.tp);
        const std::string dp_text = L.cp > 1 ? " over dp x cp = " + std::to_string(L.shard()) : " over dp = " + std::to_string(L.dp);
        const double weights1 = x.weights1, lora1 = x.lora1, master1 = x.master1, opt1 = x.opt1, opt_temp1 = x.opt_temp1;
        const bool deepspeed = x.deepspeed;
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
    }

    // Gradients this rank keeps through the step (sharded, offloaded, or whole under FSDP no_sync).
    void gradients() {
        const Layout& L = x.L;
        const Scenario& s = x.s;
        const ModelSpec& m = x.m;
        const StepInputs& in1 = x.in1;
        const ParamBreakdown& pb = x.pb;
        const double tp = x.tp, shard = x.shard, total = x.total;
        const bool deepspeed = x.deepspeed, fsdp = x.fsdp;
        const Recipe& r = x.r;
        const StageParams& sp = x.sp;
        const double gdp = L.shard_grads ? 1 / shard : 1.0;
        st = in1;
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
        if (L.offload_optimizer && (deepspeed || fsdp) && L.shard_grads) {
            // ZeRO-Offload keeps the fp32 gradient partition in host memory (Ren et al. 2021, ZeRO-Offload
            // Sec. 4; DeepSpeed's estimators count 4 B/param for it); FSDP CPUOffload moves gradients too.
            const double g_params = (r.grad > 0 ? in1.grad_total / r.grad : 0) * share / shard;
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
            const double bytes_per_param = x.weights1 / total;
            double unit_params = 0;
            if (s.method == Method::full) {
                unit_params = held;  // every unit trains
            } else {
                const double layers_here = std::min(sp.layers_per_stage, static_cast<double>(in1.trained_layers));
                unit_params = layers_here * sp.layer / tp;
                if (s.method == Method::lora && s.lora.train_embeddings) {
                    const bool has_first = first_stage || L.pp == 1, has_last = !first_stage || L.pp == 1;
                    unit_params += (static_cast<double>(has_first ? pb.embeddings : 0) +
                                    static_cast<double>(has_last ? pb.lm_head : 0)) /
                                   tp;
                }
            }
            st.grad_total = std::max(st.grad_total, unit_params * bytes_per_param);
            st.grads_persist = true;
        }
    }

    // Context parallelism through PyTorch (torch.distributed.tensor.experimental.context_parallel, which
    // torchtitan applies): its default "allgather" rotate method all-gathers the concatenated K and V of the
    // whole sequence once per attention call (_AllGatherRotater.exchange_buffers) beside the local
    // concatenation; gradients rotate through local-sized buffers. One attention layer's worth at a time.
    // Megatron's ring exchange (TransformerEngine's P2P send/recv buffers) is not modelled.
    double ring_attention_kv() const {
        const Scenario& s = x.s;
        const double cp = x.cp;
        const ModelSpec& m = x.m;
        const std::int64_t attn_layers = attention_layers(m);
        if (cp <= 1 || s.framework == Framework::megatron || m.count_only || attn_layers <= 0) return 0;
        const double per_token = kv_bytes_per_token(m, x.a.compute, false) / static_cast<double>(attn_layers);
        const double tokens = static_cast<double>(s.micro_batch) * static_cast<double>(s.seq_len);
        return tokens * per_token * (1 + 1 / cp) / x.tp;
    }

    void activations() {
        const Layout& L = x.L;
        const Scenario& s = x.s;
        const StepInputs& in1 = x.in1;
        const double tp = x.tp, cp = x.cp, act_share = x.act_share;
        const StageParams& sp = x.sp;
        // Activations: tp splits what lies between the column- and row-parallel linears (sp also the rest),
        // cp splits the sequence (Megatron context parallelism), pp keeps ceil(L / pp) layers per stage and
        // 1F1B keeps min(pp, micro-batches) micro-batches in flight on the first stage (Narayanan et al.
        // 2021, Sec. 2.2; Korthikanti et al. 2022, Sec. 4.2.3).
        st.layer_act = in1.layer_act * act_share / cp;
        st.layer_input = in1.layer_input * (L.sp ? 1 / tp : 1.0) / cp;
        st.layer_op_kept = in1.layer_op_kept * act_share / cp;
        st.layer_transient = in1.layer_transient / tp / cp + extra_transient + ring_attention_kv();
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
            st.layer_op_kept *= inflight;
            if (first_stage) st.logits_saved = st.logits_forward_peak = st.logits_backward_peak = 0;
            else st.extra_act = in1.extra_act * (L.sp ? 1 / tp : 1.0) / cp;
        }
    }

    // Buffers of the data-parallel framework.
    void buffers() {
        const Layout& L = x.L;
        const Scenario& s = x.s;
        const ModelSpec& m = x.m;
        const ActivationSetup& a = x.a;
        const StepInputs& in1 = x.in1;
        const Recipe& r = x.r;
        const StageParams& sp = x.sp;
        const double tp = x.tp, shard = x.shard;
        const bool deepspeed = x.deepspeed, fsdp = x.fsdp;
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
                double part = (in1.grad_total / r.grad) * share / shard;
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
                    const double q = qlora_linear_bytes(s.quantization, s.group_size, m.hidden, m.hidden);
                    if (q > 0) layer_bytes = q / (static_cast<double>(m.hidden) * static_cast<double>(m.hidden));
                }
                gathered = sp.non_layer / tp * a.compute + 2 * sp.layer / tp * layer_bytes;
                gathered_detail = std::string("FSDP: root unit + 2 decoder-layer units unsharded (current + prefetched)") +
                                  (s.method == Method::qlora ? ", layers in their quantised form" : "");
            }
        } else if (s.sharding == Sharding::none && L.shard() > 1 && s.framework != Framework::megatron) {
            // DistributedDataParallel keeps its gradient buckets (bucket_cap_mb = 25) as a second copy of the
            // gradients unless gradient_as_bucket_view=True (torch.nn.parallel.DistributedDataParallel docs:
            // the saving "will be equal to the total gradients size").
            buffers = in1.grad_total * share;
            buffer_detail = "DDP gradient buckets (25 MiB each): a copy of all gradients";
        }
        add("gathered_params", gathered, gathered_detail);
        add("comm_buffers", buffers, buffer_detail);
    }

    StageResult build() {
        model_states();
        gradients();
        activations();
        buffers();
        double torch_static = 0;
        for (const auto& c : res.components) torch_static += static_cast<double>(c.bytes);
        torch_static += x.paged ? 0 : res.opt;
        st.static_bytes = torch_static;
        st.optimizer_temp = res.opt_temp;
        res.in = st;
        res.torch_static = torch_static;
        res.peak = simulate_step(st);
        // DeepSpeed's host buffers: its estimators multiply host memory by additional_buffer_factor 1.5.
        res.cpu = x.deepspeed ? cpu * kDsCpuBufferFactor : cpu;
        return res;
    }
};

void layout_warnings(const Scenario& s, const Layout& L, Bill& b) {
    const ModelSpec& m = s.model;
    const bool fsdp = is_fsdp(s.sharding);
    if (s.offload == Offload::optimizer_params && !L.shard_weights)
        b.warnings.push_back(
            "offload \"optimizer+params\" needs parameter sharding (zero3 or fsdp-full): only the "
            "optimizer is offloaded here");
    if (s.sharding == Sharding::none && s.offload != Offload::none)
        b.warnings.push_back(
            "CPU offload comes with ZeRO or FSDP: counted as if the optimizer ran on the CPU "
            "for one replica");
    if (L.tp > 1 && m.heads > 0 && m.heads % L.tp != 0)
        b.warnings.push_back("tp = " + std::to_string(L.tp) + " does not divide the " + std::to_string(m.heads) +
                             " attention heads: Megatron refuses this layout");
    if (L.ep > 1 && m.moe.experts == 0) b.warnings.push_back("ep > 1 on a dense model: nothing to split");
    if (m.count_only && (fsdp || s.sharding == Sharding::zero3))
        b.warnings.push_back("the gathered parameters of ZeRO-3/FSDP need the model's shapes: not counted");
}

}  // namespace

void apply_parallel_training(const Scenario& s, const ActivationSetup& a, Bill& b, StepInputs& in, double& opt,
                             double& opt_temp) {
    const Layout L = layout_of(s);
    const bool multi = s.num_gpus > 1 || s.sharding != Sharding::none || s.offload != Offload::none ||
                       L.tp * L.pp * L.cp * L.ep > 1;
    if (!multi) return;
    layout_warnings(s, L, b);
    Replica x{s, a, s.model};
    x.L = L;
    x.r = training_recipe(s.precision, s.framework);
    x.pb = count_parameters(s.model);
    x.sp = stage_params(s.model, L);
    x.total = static_cast<double>(x.pb.total);
    x.shard = static_cast<double>(L.shard()), x.tp = static_cast<double>(L.tp), x.cp = static_cast<double>(L.cp);
    x.paged = paged_states(s.optimizer);
    x.deepspeed = is_zero(s.sharding);
    x.fsdp = is_fsdp(s.sharding);
    x.weights1 = static_cast<double>(b.component("weights"));
    x.master1 = static_cast<double>(b.component("master_weights"));
    x.lora1 = static_cast<double>(b.component("lora"));
    x.opt1 = opt, x.opt_temp1 = opt_temp;
    x.in1 = in;
    x.act_share = tp_activation_share(s.model, a, s, L);
    const bool paged = x.paged;
    auto build = [&](bool first_stage) { return Stage{x, first_stage, {}, {}}.build(); };

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

}  // namespace vramcalc::detail
