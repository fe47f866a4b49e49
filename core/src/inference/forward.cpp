#include <algorithm>

#include "inference/engines.hpp"
#include "runtime/sdpa.hpp"

namespace vramcalc::detail {

namespace {
// A fused gate_up_proj (Phi-3, Granite's input_linear): Phi3MLP.forward splits its output with
// `gate, up_states = up_states.chunk(2, dim=-1)`, views that keep the 2I-wide output alive until the MLP
// returns, beside act_fn(gate) and the product (transformers src/transformers/models/phi3/modeling_phi3.py
// @004999d9, Phi3MLP.forward): four I-wide tensors where separate gate and up projections hold three.
bool fused_gate_up(const ModelSpec& m) {
    return std::any_of(m.params.begin(), m.params.end(), [](const ParamGroup& g) {
        return g.role == Role::gate_up && g.category == ParamCategory::mlp;
    });
}
}  // namespace

// The residual stream and the normalised input, plus the larger of the MLP and attention intermediates (transformers modeling code:
// `down_proj(act_fn(gate_proj(x)) * up_proj(x))` holds three I-wide tensors at the product). transformers' models
// hold two more hidden-wide tensors while a layer runs: the model's forward keeps `inputs_embeds` to its end
// (`hidden_states = inputs_embeds`, then the layer loop rebinds hidden_states) and its loop variable keeps the
// layer's input while the layer builds the residual sum and its normed copy (LlamaModel.forward and
// LlamaDecoderLayer.forward, src/transformers/models/llama/modeling_llama.py @004999d9). Measured on an H200
// (tests/data/gpu_runs_h200.json, generate runs): the allocated peak is the last layer's MLP with four
// hidden-wide tensors beside the cache.
double layer_forward_bytes(const Scenario& s, double T, double prompt, double c, double tp) {
    const ModelSpec& m = s.model;
    const double h = static_cast<double>(m.hidden), I = static_cast<double>(m.intermediate);
    const double streams = s.framework == Framework::hf ? 4 : 2;
    double mlp = 0;
    if (m.moe.experts > 0) {
        // Routed experts see top_k/E of the tokens each (one expert at a time in transformers' loop);
        // fp32 router probabilities; the shared expert sees all tokens; the T x h output the experts'
        // results are summed into (final_hidden_states in the transformers MoE blocks).
        const double Ie = static_cast<double>(m.moe.expert_intermediate);
        const double share = static_cast<double>(m.moe.top_k) / static_cast<double>(m.moe.experts);
        mlp = 3 * T * share * Ie * c + T * static_cast<double>(m.moe.experts) * 4 +
              3 * T * static_cast<double>(m.moe.shared_intermediate) * c + T * h * c;
    } else {
        mlp = (m.mlp == MlpKind::gated ? (fused_gate_up(m) ? 4.0 : 3.0) : 2.0) * T * I * c;
    }
    const double q = static_cast<double>(m.heads * m.head_dim), kv = static_cast<double>(m.kv_heads * m.head_dim);
    double attn = T * (2 * q + 2 * kv) * c;  // q, k, v and the attention output (flash / SDPA kernels)
    if (s.attention == Attention::eager && s.framework == Framework::hf) {
        // Eager attention: scores, their fp32 softmax and the cast back (modeling_llama eager_attention_forward).
        attn += (T / std::max(1.0, prompt)) * static_cast<double>(m.heads) * prompt * prompt * (c + 4 + c);
    } else if (s.attention == Attention::sdpa && sdpa_backend(s.gpu, sdpa_call(s, c, false)) == SdpaBackend::math) {
        // SDPA's math path (runtime/sdpa.cpp): fp32 copies of q, k and v (k and v expanded to every head), the fp32
        // scores and their softmax.
        const double H = static_cast<double>(m.heads);
        attn += (T / std::max(1.0, prompt)) * H * prompt * prompt * 8 + T * 4 * (q + 2 * H * static_cast<double>(m.head_dim));
    }
    // A hybrid model's Mamba-2 mixer (MambaMixer2 / NemotronHMamba2Mixer forward): in_proj's output (gate,
    // conv input, dt), the conv output and the scan's output y, each T tokens wide.
    const HybridSpec& y = m.hybrid;
    if (y.state_blocks() > 0) {
        const double in = static_cast<double>(y.inner() + y.conv_dim() + y.ssm_heads);
        attn = std::max(attn, T * (in + static_cast<double>(y.conv_dim() + y.inner())) * c);
    }
    return streams * T * h * c + std::max(mlp, attn) / tp;
}

}  // namespace vramcalc::detail
