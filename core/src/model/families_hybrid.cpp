// Hybrid Mamba / attention decoders with one mixer per block: Nemotron-H (NemotronHForCausalLM), written from
// transformers' models/nemotron_h/modeling_nemotron_h.py (NemotronHBlock, NemotronHMamba2Mixer,
// NemotronHAttention, NemotronHMoE, NemotronHMLP) and vLLM's model_executor/models/nemotron_h.py.
//
// hybrid_override_pattern names each block's mixer: 'M' Mamba-2, '*' attention (GQA, no positional encoding),
// 'E' MoE (routed ReLU^2 experts + a shared expert), '-' a ReLU^2 MLP. Every block is an RMSNorm and its mixer;
// the backbone ends in norm_f; lm_head is untied unless the config ties it.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "model/inventory.hpp"

namespace vramcalc::detail {
namespace {

// The Mamba blocks that come right before an attention block. NVIDIA's Nemotron-3-Nano FP8 and NVFP4
// checkpoints keep their in_proj / out_proj in bf16, as they keep every attention projection (the NVFP4
// checkpoint's hf_quant_config.json exclude_modules lists backbone.layers.{4,11,18,25,32,41}.mixer.in_proj /
// out_proj and the q/k/v/o_proj of layers 5, 12, 19, 26, 33, 42; NVIDIA's FP8 card names the same recipe).
i64 mamba_before_attention(const std::string& p) {
    i64 n = 0;
    for (std::size_t i = 0; i + 1 < p.size(); ++i) n += p[i] == 'M' && p[i + 1] == '*' ? 1 : 0;
    return n;
}

void mamba_mixers(ModelSpec& m, i64 count, bool bias, bool conv_bias, bool fp8_16bit, Inventory& inv) {
    if (count <= 0) return;
    const HybridSpec& y = m.hybrid;
    const std::size_t first = m.params.size();
    // in_proj writes the gate z (inner), the conv input x|B|C (conv_dim) and dt (one per head).
    inv.linear(PC::mamba, Role::ssm_in, "in_proj", m.hidden, y.inner() + y.conv_dim() + y.ssm_heads, bias, count);
    inv.add("conv1d", PC::mamba, Role::ssm_in, y.conv_dim(), y.conv_kernel, conv_bias, count, false, false);  // [conv_dim, 1, K]
    for (const char* v : {"dt_bias", "A_log", "D"}) inv.vector(PC::mamba, Role::ssm_in, v, y.ssm_heads, count);
    inv.norm("mixer.norm", y.inner(), false, count);  // the gated RMSNorm over the inner width
    inv.linear(PC::mamba, Role::ssm_out, "out_proj", y.inner(), m.hidden, bias, count);
    for (std::size_t i = first; i < m.params.size(); ++i) m.params[i].fp8_keeps_16bit = fp8_16bit;
}

}  // namespace

// mamba_ssm_cache_dtype: the element size of the SSM state vLLM keeps per sequence (0: the model dtype).
// Qwen3.5's configs name it mamba_ssm_dtype (read when the first key is absent).
double mamba_state_dtype_bytes(FieldReader& r) {
    const char* key = r.has("mamba_ssm_cache_dtype") || !r.has("mamba_ssm_dtype") ? "mamba_ssm_cache_dtype" : "mamba_ssm_dtype";
    const std::string t = r.string_or(key, "auto");
    if (t == "float32") return 4;
    if (t == "bfloat16" || t == "float16") return 2;
    if (t != "auto") r.error(key, "\"" + t + "\" is not a state dtype (allowed: auto, float32, bfloat16, float16)");
    return 0;
}

void nemotron_h(ModelSpec& m, FieldReader& r, Inventory& inv) {
    HybridSpec& y = m.hybrid;
    y.pattern = r.string_or("hybrid_override_pattern", "");
    if (static_cast<i64>(y.pattern.size()) != m.layers) {
        r.error("hybrid_override_pattern", "has " + std::to_string(y.pattern.size()) + " blocks but num_hidden_layers is " +
                                               std::to_string(m.layers) + " (one character per block: M, *, E or -)");
        return;
    }
    for (char c : y.pattern)
        if (c != 'M' && c != '*' && c != 'E' && c != '-') {
            r.error("hybrid_override_pattern", std::string("block kind '") + c + "' is not M (Mamba-2), * (attention), E (MoE) or - (MLP)");
            return;
        }
    // Absent keys take the defaults of the checkpoints' NemotronHConfig (configuration_nemotron_h.py, remote
    // code): ssm_state_size 128, mamba_n_groups 8, mamba_d_conv 4; the head count and width are required.
    y.ssm_heads = r.integer_or({"mamba_num_heads"}, 0, 1, kMaxWidth);
    y.ssm_head_dim = r.integer_or({"mamba_head_dim"}, 0, 1, kMaxWidth);
    y.ssm_state = r.integer_or({"ssm_state_size"}, 128, 1, kMaxWidth);
    y.ssm_groups = r.integer_or({"n_groups"}, 8, 1, kMaxWidth);
    y.conv_kernel = r.integer_or({"conv_kernel"}, 4, 1, 1024);
    y.ssm_state_bytes = mamba_state_dtype_bytes(r);
    const i64 nM = y.blocks('M'), nA = y.blocks('*'), nE = y.blocks('E'), nD = y.blocks('-');
    if (nM > 0 && (y.ssm_heads <= 0 || y.ssm_head_dim <= 0))
        r.error(y.ssm_heads <= 0 ? "mamba_num_heads" : "mamba_head_dim", "missing required key for the pattern's Mamba blocks");
    if (nD > 0) require_intermediate(m, r);
    m.mlp = MlpKind::plain;  // ReLU^2 up -> down, no gate (NemotronHMLP)
    m.traits.rope = false;   // NemotronHAttention applies no rotary embedding
    const bool bias = r.boolean_or("use_bias", r.boolean_or("mamba_proj_bias", false));
    const bool conv_bias = r.boolean_or("use_conv_bias", true);

    inv.embedding("embeddings", m.vocab, m.hidden);
    const i64 pre = mamba_before_attention(y.pattern);
    mamba_mixers(m, nM - pre, bias, conv_bias, false, inv);
    mamba_mixers(m, pre, bias, conv_bias, true, inv);
    const std::size_t attn = m.params.size();
    const bool attn_bias = r.boolean_or("attention_bias", false);
    inv.qkvo(m, attn_bias, attn_bias, nA);
    for (std::size_t i = attn; i < m.params.size(); ++i) m.params[i].fp8_keeps_16bit = true;

    if (nE > 0) {
        // NemotronHMoE: a router gate [E, h] with its e_score_correction_bias, E routed experts and a shared
        // expert of moe_shared_expert_intermediate_size x n_shared_experts.
        m.moe.experts = r.integer({"n_routed_experts"}, 1, 1 << 16).value_or(0);
        if (m.moe.experts <= 0) r.error("n_routed_experts", "missing required key for the pattern's MoE blocks");
        m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 1, 1, std::max<i64>(1, m.moe.experts));
        m.moe.expert_intermediate = r.integer({"moe_intermediate_size"}, 1, kMaxWidth).value_or(0);
        if (m.moe.expert_intermediate <= 0) r.error("moe_intermediate_size", "missing required key for the pattern's MoE blocks");
        m.moe.shared_experts = r.integer_or({"n_shared_experts"}, 0, 0, 1 << 10);
        m.moe.shared_intermediate = m.moe.shared_experts * r.integer_or({"moe_shared_expert_intermediate_size"}, 0, 0, kMaxWidth);
        m.moe.moe_layers = nE;
        const i64 E = m.moe.experts;
        inv.linear(PC::router, Role::router, "gate", m.hidden, E, false, nE);
        inv.vector(PC::router, Role::router, "e_score_correction_bias", E, nE);
        // LatentMoE (Nemotron-3-Super, `moe_latent_size`): the router reads the full token, fc1_latent_proj
        // [latent, h] takes it down, the routed experts run latent -> moe_intermediate -> latent, fc2_latent_proj
        // [h, latent] lifts the sum back; the shared expert stays at h (vLLM model_executor/models/nemotron_h.py
        // NemotronHMoE; bias as mlp_bias). Read at h, the experts of Nemotron-3-Super-120B count 458.6B.
        const i64 latent = r.integer_or({"moe_latent_size"}, 0, 0, kMaxWidth);
        const i64 width = latent > 0 ? latent : m.hidden;
        if (latent > 0) {
            const bool b = r.boolean_or("mlp_bias", false);
            inv.linear(PC::mlp, Role::down, "fc1_latent_proj", m.hidden, latent, b, nE);
            inv.linear(PC::mlp, Role::up, "fc2_latent_proj", latent, m.hidden, b, nE);
        }
        inv.linear(PC::experts, Role::up, "up_proj", width, m.moe.expert_intermediate, false, nE * E, true);
        inv.linear(PC::experts, Role::down, "down_proj", m.moe.expert_intermediate, width, false, nE * E, true);
        inv.plain_mlp("up_proj", "down_proj", m.hidden, m.moe.shared_intermediate, false, nE);
    }
    inv.plain_mlp("up_proj", "down_proj", m.hidden, m.intermediate, r.boolean_or("mlp_bias", false), nD);
    inv.norm("norm", m.hidden, false, m.layers);  // NemotronHBlock.norm
    inv.norm("norm_f", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden);
}

// A layer_types list read into HybridSpec blocks, one per layer, each name mapped to its block kind; false (with
// the error on layer_types) for a missing list, one of the wrong length or an entry no name matches.
bool block_pattern(const json* v, i64 L, std::initializer_list<std::pair<std::string_view, char>> kinds,
                   const std::string& length_note, const char* neither, FieldReader& r, std::string& pattern) {
    if (!v || !v->is_array() || static_cast<i64>(v->size()) != L) {
        r.error("layer_types", "expected one entry per layer (" + std::to_string(L) + ")" + length_note);
        return false;
    }
    for (const auto& e : *v) {
        const std::string t = e.is_string() ? e.get<std::string>() : "";
        const auto k = std::find_if(kinds.begin(), kinds.end(), [&](const auto& kind) { return kind.first == t; });
        if (k == kinds.end()) {
            r.error("layer_types", "entry " + describe(e) + " is neither " + neither);
            return false;
        }
        pattern += k->second;
    }
    return true;
}

// ---- LFM2 (Lfm2ForCausalLM), transformers models/lfm2/modular_lfm2.py @02f41779 ----
// layer_types (or full_attn_idxs) names each layer "conv" (Lfm2ShortConv) or "full_attention" (Lfm2Attention:
// q/k/v/out_proj without bias, q_layernorm / k_layernorm over head_dim). Lfm2ShortConv: in_proj (conv_dim ->
// 3 conv_dim), a depthwise conv [conv_dim, 1, conv_L_cache], out_proj; biases as conv_bias. Every layer has
// operator_norm, ffn_norm and Lfm2MLP w1/w3 (block_dim -> ff) and w2, where ff = block_ff_dim (else
// intermediate_size), with block_auto_adjust_ff_dim: int(2 ff / 3), x block_ffn_dim_multiplier, rounded up to
// block_multiple_of. embedding_norm closes the model; the lm_head is tied by default.
// A conv layer is an 'M' block: its state per sequence is the conv window over conv_dim channels (Lfm2Cache
// conv_cache [conv_dim, conv_L_cache]; vLLM's ShortConv keeps conv_L_cache - 1 columns), no SSM state, so
// HybridSpec holds it as one head of conv_dim width with state 0 (conv_dim() = conv_dim).
void lfm2(ModelSpec& m, FieldReader& r, Inventory& inv) {
    HybridSpec& y = m.hybrid;
    const i64 L = m.layers;
    y.pattern.clear();
    if (const json* v = r.find({"layer_types"})) {
        if (!block_pattern(v, L, {{"conv", 'M'}, {"short_conv", 'M'}, {"full_attention", '*'}}, "", "conv nor full_attention", r, y.pattern))
            return;
    } else if (const json* idx = r.find({"full_attn_idxs"})) {
        y.pattern.assign(static_cast<std::size_t>(L), 'M');
        if (!idx->is_array()) {
            r.error("full_attn_idxs", "expected a list of layer indices");
            return;
        }
        for (const auto& e : *idx) {
            if (!e.is_number_integer() || e.get<i64>() < 0 || e.get<i64>() >= L) {
                r.error("full_attn_idxs", "entry " + describe(e) + " is not a layer index below " + std::to_string(L));
                return;
            }
            y.pattern[static_cast<std::size_t>(e.get<i64>())] = '*';
        }
    } else {
        r.error("layer_types", "missing: LFM2 names its conv and attention layers in layer_types (or full_attn_idxs)");
        return;
    }
    const i64 conv_dim = r.integer_or({"conv_dim"}, m.hidden, 1, kMaxWidth);
    const i64 block_dim = r.integer_or({"block_dim"}, m.hidden, 1, kMaxWidth);
    y.ssm_heads = 1;
    y.ssm_head_dim = conv_dim;
    y.ssm_state = 0;
    y.ssm_groups = 0;
    y.conv_kernel = r.integer_or({"conv_L_cache"}, 3, 1, 1024);
    i64 ff = r.integer_or({"block_ff_dim"}, m.intermediate, 0, kMaxWidth);
    if (ff <= 0) {
        r.error("block_ff_dim", "missing required key (the MLP width; or intermediate_size)");
        return;
    }
    if (r.boolean_or("block_auto_adjust_ff_dim", true)) {
        ff = 2 * ff / 3;
        const double mult = r.number_or("block_ffn_dim_multiplier", 1.0, 0, 1e3);
        if (r.has("block_ffn_dim_multiplier")) ff = static_cast<i64>(mult * static_cast<double>(ff));
        const i64 of = r.integer_or({"block_multiple_of"}, 256, 1, kMaxWidth);
        ff = of * ((ff + of - 1) / of);
    }
    m.intermediate = ff;
    const bool conv_bias = r.boolean_or("conv_bias", false);
    const i64 nC = y.blocks('M'), nA = y.blocks('*');
    m.qk_norm = nA > 0;
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.linear(PC::mamba, Role::ssm_in, "in_proj", conv_dim, 3 * conv_dim, conv_bias, nC);
    inv.add("conv", PC::mamba, Role::ssm_in, conv_dim, y.conv_kernel, conv_bias, nC, false, false);  // [conv_dim, 1, L_cache]
    inv.linear(PC::mamba, Role::ssm_out, "out_proj", conv_dim, conv_dim, conv_bias, nC);
    inv.qkvo(m, false, false, nA, "out_proj");
    inv.norm("q_layernorm", m.head_dim, false, nA);
    inv.norm("k_layernorm", m.head_dim, false, nA);
    inv.gated_mlp(PC::mlp, "w1", "w3", "w2", block_dim, ff, false, L);
    inv.norm("operator_norm", m.hidden, false, L);
    inv.norm("ffn_norm", m.hidden, false, L);
    inv.norm("embedding_norm", m.hidden, false, 1);
    // The first LFM2 configs name the tie tie_embedding (Lfm2Config reads both; tied by default).
    if (r.has("tie_embedding") && !r.has("tie_word_embeddings")) m.tied_embeddings = r.boolean_or("tie_embedding", true);
    inv.lm_head(m.vocab, m.hidden);
}

// ---- Jamba (JambaForCausalLM), transformers models/jamba/modeling_jamba.py @97bb61d0 ----
// Layer i attends when i % attn_layer_period == attn_layer_offset, else it is a JambaMambaMixer (Mamba-1):
// in_proj (h -> 2 d_inner, mamba_proj_bias), a depthwise conv1d [d_inner, 1, d_conv] (+ bias, mamba_conv_bias),
// x_proj (d_inner -> dt_rank + 2 d_state), dt_proj (dt_rank -> d_inner, bias), A_log [d_inner, d_state],
// D [d_inner], out_proj, and the RMSNorms dt_layernorm (dt_rank), b_layernorm and c_layernorm (d_state);
// d_inner = mamba_expand x h, dt_rank = mamba_dt_rank ("auto": ceil(h / 16)). Every layer's feed-forward is a
// JambaSparseMoeBlock (router [E, h], E SwiGLU experts at intermediate_size) when num_experts > 1 and
// i % expert_layer_period == expert_layer_offset, else one JambaMLP; input_layernorm and pre_ff_layernorm
// in each layer, final_layernorm, an untied lm_head.
// A Mamba-1 layer's state per sequence maps onto HybridSpec as d_inner heads of width 1 with d_state each:
// conv (d_conv - 1) x d_inner in vLLM, SSM d_inner x d_state (vLLM mamba_utils mamba1_state_shape).
void jamba(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    HybridSpec& y = m.hybrid;
    const i64 L = m.layers;
    const i64 attn_every = r.integer_or({"attn_layer_period"}, 8, 1, L), attn_at = r.integer_or({"attn_layer_offset"}, 4, 0, L);
    const i64 moe_every = r.integer_or({"expert_layer_period"}, 2, 1, L), moe_at = r.integer_or({"expert_layer_offset"}, 1, 0, L);
    const i64 E = r.integer_or({"num_experts"}, 16, 1, 1 << 16);
    y.pattern.clear();
    i64 moe = 0;
    for (i64 i = 0; i < L; ++i) {
        y.pattern += i % attn_every == attn_at ? '*' : 'M';
        moe += E > 1 && i % moe_every == moe_at ? 1 : 0;
    }
    const i64 inner = r.integer_or({"mamba_expand"}, 2, 1, 1024) * m.hidden;
    const i64 d_state = r.integer_or({"mamba_d_state"}, 16, 1, kMaxWidth);
    const i64 d_conv = r.integer_or({"mamba_d_conv"}, 4, 1, 1024);
    i64 dt_rank = (m.hidden + 15) / 16;  // "auto"
    if (const json* v = r.find({"mamba_dt_rank"}); v && v->is_number_integer()) dt_rank = r.integer_or({"mamba_dt_rank"}, dt_rank, 1, kMaxWidth);
    y.ssm_heads = inner;
    y.ssm_head_dim = 1;
    y.ssm_state = d_state;
    y.ssm_groups = 0;
    y.conv_kernel = d_conv;
    y.ssm_state_bytes = mamba_state_dtype_bytes(r);
    const bool proj_bias = r.boolean_or("mamba_proj_bias", false), conv_bias = r.boolean_or("mamba_conv_bias", true);
    const i64 nM = y.blocks('M'), nA = y.blocks('*');
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.qkvo(m, false, false, nA);
    inv.linear(PC::mamba, Role::ssm_in, "in_proj", m.hidden, 2 * inner, proj_bias, nM);
    inv.add("conv1d", PC::mamba, Role::ssm_in, inner, d_conv, conv_bias, nM, false, false);
    inv.linear(PC::mamba, Role::ssm_in, "x_proj", inner, dt_rank + 2 * d_state, false, nM);
    inv.linear(PC::mamba, Role::ssm_in, "dt_proj", dt_rank, inner, true, nM);
    inv.add("A_log", PC::mamba, Role::ssm_in, inner, d_state, false, nM, false, false);
    inv.vector(PC::mamba, Role::ssm_in, "D", inner, nM);
    inv.norm("dt_layernorm", dt_rank, false, nM);
    inv.norm("b_layernorm", d_state, false, nM);
    inv.norm("c_layernorm", d_state, false, nM);
    inv.linear(PC::mamba, Role::ssm_out, "out_proj", inner, m.hidden, proj_bias, nM);
    if (moe > 0) {
        m.moe.experts = E;
        m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 2, 1, E);
        m.moe.expert_intermediate = m.intermediate;
        m.moe.moe_layers = moe;
        inv.linear(PC::router, Role::router, "router", m.hidden, E, false, moe);
        inv.gated_mlp(PC::experts, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, false, moe * E, true);
    }
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, false, L - moe);
    inv.norm("input_layernorm", m.hidden, false, L);
    inv.norm("pre_ff_layernorm", m.hidden, false, L);
    inv.norm("final_layernorm", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden);
}

// ---- Granite 4.0 hybrid (GraniteMoeHybridForCausalLM), transformers models/granitemoehybrid/
// modular_granitemoehybrid.py @023633dd ----
// layer_types names each layer's mixer: "mamba" (GraniteMoeHybridMambaLayer = BambaMixer, a Mamba-2 mixer:
// in_proj h -> inner + conv_dim + heads, conv1d over conv_dim, dt_bias / A_log / D, a gated RMSNorm, out_proj;
// inner = mamba_n_heads x mamba_d_head) or "attention" (q/k/v/o, attention_bias). Every layer then has a
// shared_mlp (input_linear h -> 2 x shared_intermediate_size, output_linear back) and, when num_local_experts
// > 0, a block_sparse_moe: router [E, h] and experts input_linear [E, 2 I, h], output_linear [E, h, I] at
// intermediate_size; input_layernorm and post_attention_layernorm; a final norm.
void granitemoehybrid(ModelSpec& m, FieldReader& r, Inventory& inv) {
    HybridSpec& y = m.hybrid;
    const i64 L = m.layers;
    y.pattern.clear();
    if (!block_pattern(r.find({"layer_types", "layers_block_type"}), L, {{"mamba", 'M'}, {"attention", '*'}},
                       ", each \"mamba\" or \"attention\"", "mamba nor attention", r, y.pattern))
        return;
    const i64 nM = y.blocks('M'), nA = y.blocks('*');
    y.ssm_heads = r.integer_or({"mamba_n_heads"}, 128, 1, kMaxWidth);
    const i64 inner = r.integer_or({"mamba_expand"}, 2, 1, 1024) * m.hidden;
    y.ssm_head_dim = inner / y.ssm_heads;  // mamba_d_head "auto"
    if (const json* d = r.find({"mamba_d_head"}); d && d->is_number_integer()) y.ssm_head_dim = r.integer_or({"mamba_d_head"}, 64, 1, kMaxWidth);
    y.ssm_state = r.integer_or({"mamba_d_state"}, 256, 1, kMaxWidth);
    y.ssm_groups = r.integer_or({"mamba_n_groups"}, 1, 1, kMaxWidth);
    y.conv_kernel = r.integer_or({"mamba_d_conv"}, 4, 1, 1024);
    y.ssm_state_bytes = mamba_state_dtype_bytes(r);
    m.traits.rope = r.string_or("position_embedding_type", "rope") == "rope";
    const i64 E = r.integer_or({"num_local_experts"}, 0, 0, 1 << 16);
    const i64 shared = r.integer_or({"shared_intermediate_size"}, 0, 0, kMaxWidth);
    if (E > 0) require_intermediate(m, r);
    const bool attn_bias = r.boolean_or("attention_bias", false);
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    // The Mamba-2 mixer (mamba_mixers() above): projection biases mamba_proj_bias, conv bias mamba_conv_bias.
    mamba_mixers(m, nM, r.boolean_or("mamba_proj_bias", false), r.boolean_or("mamba_conv_bias", true), false, inv);
    inv.qkvo(m, attn_bias, attn_bias, nA);
    // shared_mlp: one fused input_linear (gate and up) and output_linear, no bias (GraniteMoeSharedMLP).
    inv.linear(PC::mlp, Role::gate_up, "input_linear", m.hidden, 2 * shared, false, L);
    inv.linear(PC::mlp, Role::down, "output_linear", shared, m.hidden, false, L);
    if (E > 0) {
        m.moe.experts = E;
        m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 2, 1, E);
        m.moe.expert_intermediate = m.intermediate;
        m.moe.moe_layers = L;
        m.moe.shared_experts = shared > 0 ? 1 : 0;
        m.moe.shared_intermediate = shared;
        inv.linear(PC::router, Role::router, "router", m.hidden, E, false, L);
        inv.linear(PC::experts, Role::gate_up, "input_linear", m.hidden, 2 * m.intermediate, false, L * E, true);
        inv.linear(PC::experts, Role::down, "output_linear", m.intermediate, m.hidden, false, L * E, true);
    }
    inv.rms_norms_and_head(m, L);
}

// ---- Falcon-H1 (FalconH1ForCausalLM), transformers models/falcon_h1/configuration_falcon_h1.py @020a37d2 and its
// modeling file's FalconH1DecoderLayer / FalconH1Mixer ----
// Every layer runs attention (q/k/v/o, attention_bias) and a Mamba-2 mixer side by side ('P' blocks), then a
// SwiGLU feed_forward (mlp_bias); input_layernorm and pre_ff_layernorm; final_layernorm; lm_head untied by
// default. The mixer: in_proj h -> d_ssm + conv_dim + heads (mamba_proj_bias), conv1d over conv_dim =
// d_ssm + 2 n_groups d_state (mamba_conv_bias), dt_bias / A_log / D per head, a gated RMSNorm over d_ssm only
// when mamba_rms_norm, out_proj d_ssm -> h (projectors_bias). d_ssm = mamba_d_ssm (FalconH1Config's default 1024;
// null: mamba_expand x h), heads x mamba_d_head must equal it (the config class refuses otherwise). The muP
// multipliers and mup_vector are scalars / a non-persistent buffer: no parameters.
void falcon_h1(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    HybridSpec& y = m.hybrid;
    const i64 L = m.layers;
    y.pattern.assign(static_cast<std::size_t>(L), 'P');
    i64 d_ssm = r.is_null("mamba_d_ssm") ? r.integer_or({"mamba_expand"}, 2, 1, 1024) * m.hidden
                                         : r.integer_or({"mamba_d_ssm"}, 1024, 1, kMaxWidth);
    y.ssm_heads = r.integer_or({"mamba_n_heads"}, 128, 1, kMaxWidth);
    y.ssm_head_dim = d_ssm / y.ssm_heads;  // "auto"
    if (const json* d = r.find({"mamba_d_head"}); d && d->is_number_integer()) y.ssm_head_dim = r.integer_or({"mamba_d_head"}, 64, 1, kMaxWidth);
    if (y.ssm_heads * y.ssm_head_dim != d_ssm) {
        r.error("mamba_d_head", std::to_string(y.ssm_heads) + " heads x " + std::to_string(y.ssm_head_dim) + " is not mamba_d_ssm " +
                                    std::to_string(d_ssm) + " (FalconH1Config requires them equal)");
        return;
    }
    y.ssm_state = r.integer_or({"mamba_d_state"}, 256, 1, kMaxWidth);
    y.ssm_groups = r.integer_or({"mamba_n_groups"}, 1, 1, kMaxWidth);
    y.conv_kernel = r.integer_or({"mamba_d_conv"}, 4, 1, 1024);
    y.ssm_state_bytes = mamba_state_dtype_bytes(r);
    const bool attn_bias = r.boolean_or("attention_bias", false), mlp_bias = r.boolean_or("mlp_bias", false);
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.qkvo(m, attn_bias, attn_bias, L);
    inv.linear(PC::mamba, Role::ssm_in, "in_proj", m.hidden, d_ssm + y.conv_dim() + y.ssm_heads, r.boolean_or("mamba_proj_bias", false), L);
    inv.add("conv1d", PC::mamba, Role::ssm_in, y.conv_dim(), y.conv_kernel, r.boolean_or("mamba_conv_bias", true), L, false, false);
    for (const char* v : {"dt_bias", "A_log", "D"}) inv.vector(PC::mamba, Role::ssm_in, v, y.ssm_heads, L);
    if (r.boolean_or("mamba_rms_norm", false)) inv.norm("mamba.norm", d_ssm, false, L);
    inv.linear(PC::mamba, Role::ssm_out, "out_proj", d_ssm, m.hidden, r.boolean_or("projectors_bias", false), L);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, mlp_bias, L);
    inv.norm("input_layernorm", m.hidden, false, L);
    inv.norm("pre_ff_layernorm", m.hidden, false, L);
    inv.norm("final_layernorm", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden);
}

}  // namespace vramcalc::detail
