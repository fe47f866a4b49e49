#include "training/activations.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

#include "model/lora_targets.hpp"
#include "runtime/sdpa.hpp"

namespace vramcalc::detail {
namespace {

// Roles of the linears that read a layer's (normed) input: Megatron's column-parallel linears.
bool reads_layer_input(Role r) {
    switch (r) {
        case Role::q:
        case Role::k:
        case Role::v:
        case Role::qkv:
        case Role::q_a:
        case Role::kv_a:
        case Role::gate:
        case Role::up:
        case Role::gate_up:
        case Role::router:
        case Role::ssm_in:
            return true;
        default:
            return false;
    }
}

// The linears of one kind in a layer: the first group of each module name with one of `roles`, among the
// routed experts' tensors or the others.
std::vector<const ParamGroup*> linears_with(const ModelSpec& m, std::initializer_list<Role> roles, bool routed) {
    std::vector<const ParamGroup*> out;
    for (const auto& g : m.params) {
        if (!g.is_linear || g.routed_expert != routed) continue;
        if (std::find(roles.begin(), roles.end(), g.role) == roles.end()) continue;
        const bool seen = std::any_of(out.begin(), out.end(), [&](const ParamGroup* o) { return o->name == g.name; });
        if (!seen) out.push_back(&g);
    }
    return out;
}

bool has_role(const std::vector<const ParamGroup*>& gs, Role r) {
    return std::any_of(gs.begin(), gs.end(), [&](const ParamGroup* g) { return g->role == r; });
}

struct Layer {
    const ModelSpec& m;
    const ActivationSetup& a;
    std::vector<SavedTensor> out;

    void save(std::string op, double per_token, double per_key = 0, bool core = false, bool replicated = false) {
        if (per_token > 0 || per_key > 0) out.push_back({std::move(op), per_token, per_key, core, replicated});
    }
    void save_replicated(std::string op, double per_token) { save(std::move(op), per_token, 0, false, true); }
    double c() const { return a.compute; }

    // A normalisation of the residual stream. Returns the dtype bytes of its output.
    double norm(const char* name) {
        const auto h = static_cast<double>(m.hidden);
        if (a.compiled) {
            // Compiled: the input and a per-row fp32 rstd (LayerNorm: mean too); the rest is recomputed.
            save_replicated(std::string(name) + " (input + rstd; compiled)", a.residual * h + (m.norm == NormKind::rms ? 4 : 8));
            return m.norm == NormKind::rms ? a.residual : (a.autocast ? 4 : a.residual);
        }
        if (m.norm == NormKind::rms && a.unsloth_norms) {
            save_replicated(std::string(name) + " (input + fp32 rstd; Unsloth kernel)", a.residual * h + 4);
            return a.residual;
        }
        if (m.norm == NormKind::rms) {
            // LlamaRMSNorm: x.to(float32) -> pow/mean/rsqrt -> x * rsqrt -> weight * x.to(input_dtype).
            // pow and the rsqrt product save the fp32 input (a copy unless it already is fp32); the
            // weight product saves the normalised tensor when the weight is trained.
            save_replicated(std::string(name) + " (fp32 input)", 4 * h);
            if (a.train_norms) save_replicated(std::string(name) + " (normalised)", a.residual * h);
            return a.residual;
        }
        // layer_norm saves its input (mean and rstd are per row: 8 bytes per token). Under autocast it runs
        // in fp32 (autocast's fp32 op list), so its output is fp32.
        save_replicated(std::string(name) + " (input)", a.residual * h + 8);
        return a.autocast ? 4 : a.residual;
    }

    // A group of linears reading the same input of width `in` (bytes/element `in_bytes`).
    // Trained linears save their input: once if already in the compute dtype, else one cast copy each
    // (autocast casts per call). LoRA adapters on them save the adapter input and rank-r intermediate.
    void linears(const std::string& what, const std::vector<const ParamGroup*>& gs, double in, double in_bytes,
                 bool trained, bool pointwise_input = false) {
        // Under torch.compile an input that a pointwise op produced is recomputed, not kept.
        const bool rebuilt = a.compiled && pointwise_input;
        const bool column = !gs.empty() && reads_layer_input(gs.front()->role);
        if (a.unsloth_kernels) {
            // Unsloth's LoRA kernels: the block's input once for q/k/v and for gate/up; nothing more for o_proj
            // (the attention output, kept by attention) or down_proj (its input is recomputed from e and g).
            if (column) save(what + " input (Unsloth LoRA kernel)", in_bytes * in, 0, false, true);
            return;
        }
        if ((trained || a.frozen_linears_save_input) && !rebuilt) {
            const double n = static_cast<double>(std::max<std::size_t>(1, gs.size()));
            if (in_bytes == c() || !a.autocast) save(what + " input", in_bytes * in, 0, false, column);
            else save(what + " input (autocast copies)", n * c() * in, 0, false, column);
        }
        if (!a.lora) return;
        for (const ParamGroup* g : gs) {
            if (!lora_targets(a.lora_setup, *g)) continue;
            // PEFT LoRA: dropout (a mask when p > 0), lora_A on the input cast to the adapter dtype (under
            // autocast, cast again to bf16), lora_B on the rank-r intermediate.
            const double ab = a.adapter_input_bytes();
            if (a.lora_setup.dropout > 0) save("lora " + g->name + " dropout mask", in);
            if (!rebuilt || a.lora_setup.dropout > 0) save("lora " + g->name + " A input", ab * in, 0, false, column);
            save("lora " + g->name + " B input", ab * static_cast<double>(a.lora_setup.rank));
            // DoRA (PEFT DoraLinearLayer.forward): `(mag_norm_scale - 1) * base_result + mag_norm_scale *
            // lora_result * scaling` keeps both products' other operands for the magnitude's gradient: the
            // base output (the layer's own, compute dtype; recomputed from the adapter-dtype input when dropout
            // is on) and the adapter output.
            if (a.lora_setup.use_dora) {
                const double base = a.lora_setup.dropout > 0 ? ab : c();
                save("dora " + g->name + " base and adapter outputs", (base + ab) * static_cast<double>(g->rows));
            }
        }
    }

    void dropout(const char* name, double p, double elems) {
        if (p > 0) save_replicated(std::string(name) + " dropout mask", elems);
    }

    void attention() {
        const auto h = static_cast<double>(m.hidden), H = static_cast<double>(m.heads);
        const double q = H * static_cast<double>(m.head_dim);
        const double kv_heads = a.repeat_kv ? H : static_cast<double>(m.kv_heads);
        const double k = kv_heads * static_cast<double>(m.head_dim);
        const double v = kv_heads * static_cast<double>(m.v_head_dim);
        const double in_bytes = norm("input_layernorm");
        const bool t = a.train_linears;
        if (m.attention == AttentionKind::mla) {
            // DeepSeek MLA: q_a/kv_a (or a plain q_proj) read the normed input, their ranks feed RMSNorms
            // and q_b/kv_b.
            linears("attn.q_a/kv_a_proj", linears_with(m, {Role::q_a, Role::kv_a, Role::q}, false), h, in_bytes, t, true);
            const double ql = static_cast<double>(m.mla.q_lora_rank), kl = static_cast<double>(m.mla.kv_lora_rank);
            save_replicated("attn.q_a/kv_a_layernorm (fp32 input)", 4 * (ql + kl));
            linears("attn.q_b_proj", linears_with(m, {Role::q_b}, false), ql, c(), t);
            linears("attn.kv_b_proj", linears_with(m, {Role::kv_b}, false), kl, c(), t);
        } else {
            const auto qkv = linears_with(m, {Role::q, Role::k, Role::v, Role::qkv}, false);
            linears("attn.qkv", qkv, h, in_bytes, t, true);
            // With one fused qkv output, q, k and v are views into a single storage. Rotary embeddings
            // replace q and k by new tensors, but when K/V are not expanded (as many KV heads as query
            // heads, so no copy) the v view that attention saves keeps the whole fused output alive:
            // its q and k parts stay allocated next to the roped copies.
            const bool fused = a.fused_qkv || has_role(qkv, Role::qkv);
            if (fused && m.traits.rope && m.kv_heads == m.heads && !a.compiled)
                save("attn.fused qkv output kept alive by the saved v view (q and k parts)", c() * (q + k), 0, true);
        }
        if (m.qk_norm) save_replicated("attn.q_norm/k_norm (fp32 input)", 4 * (q + k) + a.residual * (q + k) * (a.train_norms ? 1 : 0));
        if (a.attention == Attention::eager) {
            // softmax(q k^T / sqrt(d)): q and k saved by the first matmul, the softmax output (fp32 in HF
            // Llama-style eager attention, compute dtype in GPT-2/BERT), its cast or dropout output saved
            // by the matmul with v, plus v.
            // softmax is on autocast's fp32 list (aten/src/ATen/autocast_mode.cpp), so under AMP it always
            // returns fp32, whatever the model's own code does.
            const bool fp32_softmax = a.autocast || m.traits.eager_softmax_fp32;
            save("attn.q, k (scores matmul)", c() * (q + k), 0, true);
            // Gemma-2's cap x tanh(scores / cap) (eager_attention_forward; LitGPT's scores path): tanh keeps its output.
            if (m.traits.attn_softcap) save("attn.softcap tanh output", 0, c() * H, true);
            save("attn.softmax output", 0, (fp32_softmax ? 4.0 : c()) * H, true);
            if (m.attention_dropout > 0) {
                save("attn.dropout mask", 0, H, true);
                save("attn.dropout output (probs @ v input)", 0, c() * H, true);
            } else if (fp32_softmax) {
                save("attn.probs cast (probs @ v input)", 0, c() * H, true);
            }
            save("attn.v", c() * v, 0, true);
        } else if (a.attention == Attention::sdpa && a.sdpa_math) {
            // SDPA's math path (runtime/sdpa.cpp, _scaled_dot_product_attention_math): its matmuls keep the scaled
            // fp32 q and the fp32 k and v expanded to every head, softmax its fp32 output, dropout its mask and output.
            SdpaCall call;
            call.dropout = m.attention_dropout;
            const double hd = static_cast<double>(m.head_dim), vd = static_cast<double>(m.v_head_dim);
            save("attn.sdpa math path: fp32 q, k, v", 4 * (q + H * hd + H * vd), 0, true);
            save("attn.sdpa math path: fp32 probabilities", 0, sdpa_math_scores_per_token_key(call, H), true);
        } else {
            save("attn.sdpa q, k, v", c() * (q + k + v), 0, true);
            save("attn.sdpa output", c() * q, 0, true);
            save("attn.sdpa log-sum-exp (fp32)", 4 * H, 0, true);
        }
        linears("attn.o_proj", linears_with(m, {Role::o}, false), H * static_cast<double>(m.v_head_dim), c(), t,
                a.attention != Attention::eager);  // compiled: a transposed copy of the saved SDPA output
        dropout("attn.residual", m.hidden_dropout, h);
    }

    void mlp(double in_bytes) {
        const auto h = static_cast<double>(m.hidden);
        const bool t = a.train_linears;
        auto gated = [&](const std::string& what, double I, double tokens_share, double in_b, bool routed) {
            // gate/up (or one fused gate_up) read the input; act(gate) saves gate; act * up saves both; down
            // saves the product.
            Layer sub{m, a, {}};
            sub.linears(what + ".gate/up_proj", linears_with(m, {Role::gate, Role::up, Role::gate_up}, routed), h, in_b, t, true);
            if (a.unsloth_kernels) {
                sub.save(what + ".gate and up outputs (Unsloth LoRA_MLP: act and product recomputed)", 2 * c() * I);
            } else if (a.compiled) {
                sub.save(what + ".gate and up outputs (compiled: act and product recomputed)", 2 * c() * I);
            } else {
                sub.save(what + ".act_fn input", c() * I);
                sub.save(what + ".act_fn output * up", 2 * c() * I);
            }
            sub.linears(what + ".down_proj", linears_with(m, {Role::down}, routed), I, c(), t, true);
            for (auto& x : sub.out) save(x.op, x.per_token * tokens_share, 0, false, x.tp_replicated);
        };
        if (m.moe.experts > 0 && m.moe.moe_layers > 0) {
            // One representative MoE layer (layers are mostly MoE): the router (fp32 softmax over experts),
            // each token copied to top_k experts, expert MLPs, and the weighted expert outputs.
            const auto E = static_cast<double>(m.moe.experts), K = static_cast<double>(m.moe.top_k);
            linears("moe.gate (router)", linears_with(m, {Role::router}, false), h, in_bytes, t);
            save("moe.router softmax (fp32)", 4 * E);
            save("moe.dispatched expert inputs", K * c() * h);
            gated("moe.experts", static_cast<double>(m.moe.expert_intermediate), K, c(), true);
            save("moe.expert outputs x routing weight", K * c() * h);
            if (m.moe.shared_intermediate > 0)
                gated("moe.shared_experts", static_cast<double>(m.moe.shared_intermediate), 1, in_bytes, false);
            return;
        }
        const auto I = static_cast<double>(m.intermediate);
        if (m.mlp == MlpKind::gated) {
            gated("mlp", I, 1, in_bytes, false);
        } else {
            // fc1 -> GeLU (saves its input) -> fc2 (saves the GeLU output).
            linears("mlp.fc1", linears_with(m, {Role::up}, false), h, in_bytes, t, true);
            if (!m.traits.relu_mlp) save("mlp.act input", c() * I);  // ReLU keeps its output: fc2's input, below
            // NewGELUActivation (transformers/activations.py): 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 *
            // x^3))) as eager ops; autograd keeps x (pow), the tanh output (tanh), and both factors of the last
            // product, 1 + tanh and 0.5 * x (mul of two tensors): three more than a fused GeLU. Compiled, the chain
            // is rebuilt in backward.
            if (m.traits.gelu_tanh_eager && a.hf_modeling && !a.compiled) save("mlp.act (NewGELUActivation: tanh, 1 + tanh, 0.5 x)", 3 * c() * I);
            linears("mlp.fc2", linears_with(m, {Role::down}, false), I, c(), t, true);
        }
        dropout("mlp.residual", m.hidden_dropout, h);
    }
};

}  // namespace

std::vector<SavedTensor> layer_saved_tensors(const ModelSpec& m, const ActivationSetup& a) {
    Layer l{m, a, {}};
    l.attention();
    const double in_bytes = m.traits.parallel_block ? (a.autocast && m.norm == NormKind::layer ? 4 : a.residual)
                                                    : l.norm("post_attention_layernorm");
    l.mlp(in_bytes);
    return l.out;
}

double layer_bytes(const std::vector<SavedTensor>& t, double b, double s, bool selective) {
    double sum = 0;
    for (const auto& x : t) {
        if (selective && x.attention_core) continue;
        sum += (x.per_token + x.per_token_key * s) * b * s;
    }
    return sum;
}

double attention_core_bytes(const std::vector<SavedTensor>& t, double b, double s) {
    double sum = 0;
    for (const auto& x : t)
        if (x.attention_core) sum += (x.per_token + x.per_token_key * s) * b * s;
    return sum;
}

double layer_input_bytes_per_token(const ModelSpec& m, const ActivationSetup& a) {
    return a.residual * static_cast<double>(m.hidden);
}

namespace {
// A layer's linears in call order, as (output features, weight elements) per call: q, k, v (or a fused qkv), o,
// then the MLP (gate, up, down; fc1, fc2). MoE layers and MLA are not in torchtitan's Llama; they are listed
// as their dense shapes would be.
std::vector<std::pair<double, double>> linear_calls(const ModelSpec& m) {
    std::vector<std::pair<double, double>> calls;
    auto add = [&](std::initializer_list<Role> roles) {
        for (const Role r : roles)
            for (const auto& g : m.params)
                if (g.is_linear && g.layer_stack == 0 && g.role == r && !g.routed_expert &&
                    (g.category == ParamCategory::attention || g.category == ParamCategory::mlp)) {
                    calls.emplace_back(static_cast<double>(g.rows), static_cast<double>(g.rows * g.cols));
                    break;
                }
    };
    add({Role::q, Role::qkv, Role::q_a});
    add({Role::k, Role::kv_a});
    add({Role::v});
    add({Role::o});
    add({Role::gate, Role::gate_up});
    add({Role::up});
    add({Role::down});
    return calls;
}
}  // namespace

double layer_op_checkpoint_bytes_per_token(const ModelSpec& m, const ActivationSetup& a) {
    const auto calls = linear_calls(m);
    double kept = layer_input_bytes_per_token(m, a);
    for (std::size_t i = 0; i < calls.size(); i += 2) kept += a.compute * calls[i].first;  // mm 1, 3, 5, 7
    if (a.attention != Attention::eager)                                                   // eager attention's bmm and softmax are not in the save list
        kept += a.compute * static_cast<double>(m.heads * m.v_head_dim) + 4 * static_cast<double>(m.heads);
    return kept;
}

double op_checkpoint_recompute_share(const ModelSpec& m) {
    const auto calls = linear_calls(m);
    double all = 0, again = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) (i % 2 ? again : all) += calls[i].second;
    all += again;
    return all > 0 ? again / all : 0;
}

double layer_backward_transient_per_token(const ModelSpec& m, const ActivationSetup& a) {
    // While one layer runs backward, the gradients of its widest intermediates coexist: for an MLP the
    // gradients of gate, up and their product (3 x I wide), plus the incoming fp32 residual gradient.
    // This width is our reading of the MLP's backward graph, not a fit: no published measurement isolates
    // it yet (to be checked against measured runs, issue 10).
    const double width = m.moe.experts > 0 ? static_cast<double>(m.moe.top_k * m.moe.expert_intermediate)
                                           : static_cast<double>(m.intermediate);
    // Unsloth's LoRA_MLP backward (fast_lora.py L111-136): DW = dY W_down^T (I wide), which the SwiGLU kernel
    // overwrites in place together with e and g (swiglu.py L87-89), and one I-wide LoRA product; the incoming
    // gradient is in the 16-bit residual dtype.
    // Unsloth_Offloaded_Gradient_Checkpointer.backward (unsloth_zoo gradient_checkpointing.py @36ff5fc3
    // L158-162) also holds the recomputed layer's output, which torch.autograd.backward starts from.
    if (a.unsloth_kernels) return a.compute * 2 * width + 2 * a.residual * static_cast<double>(m.hidden);
    return a.compute * 3 * width + 4 * static_cast<double>(m.hidden);
}

}  // namespace vramcalc::detail
