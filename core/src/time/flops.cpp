#include "time/flops.hpp"

#include <algorithm>

#include "model/framework_layout.hpp"
#include "model/lora_targets.hpp"
#include "training/activations.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {

TokenFlops token_flops(const Scenario& s, const ModelSpec& m, double context) {
    TokenFlops f;
    // LoRA and LitGPT's adapters keep the base frozen: no weight-gradient matmuls for it.
    const bool lora = s.workload == Workload::train && s.method != Method::full && s.method != Method::freeze;
    const bool freeze = s.workload == Workload::train && s.method == Method::freeze;
    const double L = static_cast<double>(std::max<i64>(1, m.layers));
    const double trained_share = freeze ? std::min(1.0, static_cast<double>(s.trainable_layers) / L) : 1.0;
    const bool train = s.workload == Workload::train;
    for (const auto& g : m.params) {
        if (!g.is_linear) continue;
        // A routed expert is used by top_k of the `experts` copies per token.
        const double share = g.routed_expert && m.moe.experts > 0
                                 ? static_cast<double>(m.moe.top_k) / static_cast<double>(m.moe.experts)
                                 : 1.0;
        const double flops = 2.0 * static_cast<double>(g.rows) * static_cast<double>(g.cols) * static_cast<double>(g.count) * share;
        if (g.category == ParamCategory::lm_head) {
            f.logits += flops;
            f.head_trained = train && s.method == Method::full;
            continue;
        }
        if (!train || lora) f.linear_frozen += flops;
        else {
            f.linear_trained += flops * trained_share;
            f.linear_frozen += flops * (1 - trained_share);
        }
        if (lora && (s.method == Method::lora || s.method == Method::qlora) && lora_targets(s.lora, g))
            f.adapters += 2.0 * static_cast<double>(s.lora.rank) * static_cast<double>(g.rows + g.cols) *
                          static_cast<double>(g.count) * share;
    }
    // A tied output layer is the embedding matrix used as a linear: 2 x vocab x hidden per token.
    if (m.tied_embeddings && m.arch != Arch::encoder) {
        f.logits += 2.0 * static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
        f.head_trained = train && s.method == Method::full;
    }
    // Attention: q.k^T over `context` keys (head_dim wide) and probabilities @ v (v_head_dim wide) per head;
    // a sliding-window layer sees at most its window.
    const double H = static_cast<double>(m.heads);
    const i64 stacks = m.layers + (m.arch == Arch::encoder_decoder ? m.encoder_layers : 0);
    for (i64 i = 0; i < stacks; ++i) {
        if (i < m.layers && !layer_attends(m, i)) continue;  // a hybrid model's Mamba / MLP blocks
        double keys = context;
        if (m.sliding_window > 0 && i < m.layers && (!m.traits.alternating_window || i % 2 == 0))
            keys = std::min(keys, static_cast<double>(m.sliding_window));
        f.attention += 2.0 * keys * H * static_cast<double>(m.head_dim + m.v_head_dim);
    }
    return f;
}

// A layer stack: its forward FLOPs per sample from the stack's reader (model/layer_stack.cpp: 2 x the
// multiply-accumulates of convs, linears and attention); backward 2x for layers whose weights train, 1x
// (input gradients) for frozen ones. A "token" of the step is one sample.
StepFlops stack_training_flops(const Scenario& s, double dp) {
    StepFlops st;
    st.tokens = static_cast<double>(s.micro_batch) * static_cast<double>(s.grad_accum) * dp;
    for (const auto& l : s.model.stack->layers) {
        const double fwd = st.tokens * l.flops;
        const double bwd = fwd * (l.trainable && s.method != Method::lora && s.method != Method::qlora ? 2 : 1);
        st.forward += fwd;
        st.backward += bwd;
        if (l.type.rfind("conv", 0) == 0) st.convs += fwd + bwd;
        else if (l.type == "linear") st.linears += fwd + bwd;
    }
    return st;
}

StepFlops training_flops(const Scenario& s) {
    StepFlops st;
    if (s.model.count_only) return st;
    if (s.model.stack) return stack_training_flops(s, static_cast<double>(std::max<std::int64_t>(1, s.num_gpus)));
    // LitGPT builds its own layout (an untied head is an extra matmul of the same size: same FLOPs).
    const ModelSpec litgpt = s.framework == Framework::litgpt ? litgpt_layout(s.model) : ModelSpec{};
    const ModelSpec& m = s.framework == Framework::litgpt ? litgpt : s.model;
    const double dp = static_cast<double>(std::max<std::int64_t>(1, s.num_gpus / std::max<std::int64_t>(1, s.tp * s.pp * s.cp)));
    st.tokens = static_cast<double>(s.micro_batch) * static_cast<double>(s.seq_len) * static_cast<double>(s.grad_accum) * dp;
    const TokenFlops f = token_flops(s, m, static_cast<double>(s.seq_len));
    st.forward = st.tokens * f.forward();
    // Backward: input and weight gradients (2x) where weights train; input gradients only (1x) for frozen
    // linears; the attention core's backward is 2x its forward (gradients of q, k and v).
    st.backward = st.tokens * (2 * f.linear_trained + f.linear_frozen + 2 * f.adapters + 2 * f.attention +
                               (f.head_trained ? 2 : 1) * f.logits);
    // Recomputation: full checkpointing runs every layer's forward again in backward (Korthikanti et al. 2022,
    // Sec. 5: a 4th pass), and so does `offload` (the same checkpoints, kept in host memory); selective
    // recomputes the attention core only; torch.compile's min-cut recomputes pointwise chains, whose FLOPs
    // are negligible beside the matmuls.
    const double layers_fwd = f.linear_trained + f.linear_frozen + f.adapters + f.attention;
    // Per-op checkpointing runs again the linears it did not keep (wk, wo, w3 in a Llama layer).
    const double linears_fwd = f.linear_trained + f.linear_frozen + f.adapters;
    st.linears = st.tokens * (linears_fwd + 2 * f.linear_trained + f.linear_frozen + 2 * f.adapters);
    st.attention = st.tokens * 3 * f.attention;  // forward and backward (2x)
    if (s.checkpointing == Checkpointing::selective_op) {
        st.recompute = st.tokens * (f.linear_trained + f.linear_frozen) * op_checkpoint_recompute_share(m);
        st.linears += st.recompute;
    } else if (recomputes_layers(s.checkpointing)) {
        st.recompute = st.tokens * layers_fwd;
        st.linears += st.tokens * linears_fwd;
        st.attention += st.tokens * f.attention;
    } else if (s.checkpointing == Checkpointing::selective) {
        st.recompute = st.tokens * f.attention;
        st.attention += st.recompute;
    }
    return st;
}

}  // namespace vramcalc::detail
