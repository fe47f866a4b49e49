// Decoders released in 2025, written from the Hugging Face modeling files named beside each (transformers
// main, commits in docs/architectures.md): Qwen3-Next and Qwen3.5 (gated DeltaNet + gated attention),
// gpt-oss (attention sinks, biased MoE), GLM-4.5/4.6 (glm4_moe), MiniMax-M2, ERNIE-4.5 MoE, DeepSeek-V4. Each count is pinned by
// tests/unit-arch-2025.cpp against the published total.
#include <algorithm>
#include <set>
#include <string>

#include "model/inventory.hpp"

namespace vramcalc::detail {
namespace {

// layer_types as a hybrid pattern: 'M' for each linear_attention layer (a recurrent mixer whose state per
// sequence does not grow), '*' for each full_attention layer. Absent, Qwen3NextConfig's default: layer i is
// full attention when (i + 1) % full_attention_interval == 0 (configuration_qwen3_next.py).
std::string linear_attention_pattern(FieldReader& r, i64 layers) {
    std::string p;
    if (const json* v = r.find({"layer_types"})) {
        if (!v->is_array() || static_cast<i64>(v->size()) != layers) {
            r.error("layer_types", "expected one entry per layer (" + std::to_string(layers) + ")");
            return "";
        }
        for (const auto& e : *v) {
            const std::string s = e.is_string() ? e.get<std::string>() : "";
            if (s == "linear_attention") p += 'M';
            else if (s == "full_attention") p += '*';
            else {
                r.error("layer_types", "entry " + describe(e) + " is neither linear_attention nor full_attention");
                return "";
            }
        }
        return p;
    }
    const i64 every = r.integer_or({"full_attention_interval"}, 4, 1, layers);
    for (i64 i = 0; i < layers; ++i) p += (i + 1) % every == 0 ? '*' : 'M';
    return p;
}

// Qwen3NextGatedDeltaNet (transformers models/qwen3_next/modeling_qwen3_next.py): in_proj_qkvz
// (h -> 2 key_dim + 2 value_dim) and in_proj_ba (h -> 2 num_v_heads), a depthwise conv1d over
// conv_dim = 2 key_dim + value_dim without bias, dt_bias and A_log per value head, the gated RMSNorm over
// head_v_dim, out_proj (value_dim -> h); no biases. Qwen3.5's Qwen3_5GatedDeltaNet splits the same input
// projection into in_proj_qkv, in_proj_z, in_proj_b and in_proj_a: the same parameters.
// Its state maps onto HybridSpec's Mamba-2 fields exactly: heads = num_v_heads, head_dim = head_v_dim,
// state = head_k_dim, groups = num_k_heads, so conv_dim() = value_dim + 2 key_dim and the recurrent state
// num_v_heads x head_k_dim x head_v_dim (vLLM's GDN state shape).
void gated_deltanet(ModelSpec& m, FieldReader& r, Inventory& inv) {
    HybridSpec& y = m.hybrid;
    y.ssm_heads = r.integer_or({"linear_num_value_heads"}, 32, 1, kMaxWidth);
    y.ssm_groups = r.integer_or({"linear_num_key_heads"}, 16, 1, kMaxWidth);
    y.ssm_head_dim = r.integer_or({"linear_value_head_dim"}, 128, 1, kMaxWidth);
    y.ssm_state = r.integer_or({"linear_key_head_dim"}, 128, 1, kMaxWidth);
    y.conv_kernel = r.integer_or({"linear_conv_kernel_dim"}, 4, 1, 1024);
    y.ssm_state_bytes = mamba_state_dtype_bytes(r);
    if (y.ssm_heads % y.ssm_groups != 0)
        r.error("linear_num_value_heads", "must be a multiple of linear_num_key_heads");
    const i64 n = y.blocks('M'), key = y.ssm_groups * y.ssm_state, value = y.inner();
    inv.linear(PC::mamba, Role::ssm_in, "in_proj_qkvz", m.hidden, 2 * key + 2 * value, false, n);
    inv.linear(PC::mamba, Role::ssm_in, "in_proj_ba", m.hidden, 2 * y.ssm_heads, false, n);
    inv.add("conv1d", PC::mamba, Role::ssm_in, y.conv_dim(), y.conv_kernel, false, n, false, false);
    for (const char* v : {"dt_bias", "A_log"}) inv.vector(PC::mamba, Role::ssm_in, v, y.ssm_heads, n);
    inv.norm("linear_attn.norm", y.ssm_head_dim, false, n);
    inv.linear(PC::mamba, Role::ssm_out, "out_proj", value, m.hidden, false, n);
}

// Routed experts of `moe` layers, each gate/up/down at `width` (fused or not in the HF class: same numel).
void routed_experts(ModelSpec& m, i64 moe, i64 width, bool bias, Inventory& inv) {
    inv.gated_mlp(PC::experts, "gate_proj", "up_proj", "down_proj", m.hidden, width, bias, moe * m.moe.experts, true);
}

}  // namespace

// ---- Qwen3-Next (Qwen3NextForCausalLM) and Qwen3.5's text model (Qwen3_5TextModel / Qwen3_5MoeTextModel) ----
// Per layer: a gated DeltaNet ('M') or Qwen3NextAttention ('*': q_proj doubled for the output gate, q_norm /
// k_norm over head_dim, no bias), then Qwen3NextSparseMoeBlock (router, experts at moe_intermediate_size, a
// shared_expert at shared_expert_intermediate_size with its 1-wide shared_expert_gate) on the layers
// qwen_moe_layers() names, else a dense MLP at intermediate_size; two RMSNorms; norm; lm_head. The MTP
// layers (mtp_num_hidden_layers) are not in the HF class and are not counted.
void qwen3_next(ModelSpec& m, FieldReader& r, Inventory& inv, bool moe_class) {
    const i64 L = m.layers;
    m.hybrid.pattern = linear_attention_pattern(r, L);
    if (m.hybrid.pattern.empty()) return;
    m.qk_norm = true;
    const i64 nA = m.hybrid.blocks('*');
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    gated_deltanet(m, r, inv);
    // Qwen3NextAttention: q_proj writes the query and its sigmoid gate (attn_output_gate, default true).
    const i64 q = m.heads * m.head_dim * (r.boolean_or("attn_output_gate", true) ? 2 : 1);
    const bool bias = r.boolean_or("attention_bias", false);
    inv.linear(PC::attention, Role::q, "q_proj", m.hidden, q, bias, nA);
    inv.linear(PC::attention, Role::k, "k_proj", m.hidden, m.kv_heads * m.head_dim, bias, nA);
    inv.linear(PC::attention, Role::v, "v_proj", m.hidden, m.kv_heads * m.head_dim, bias, nA);
    inv.linear(PC::attention, Role::o, "o_proj", m.heads * m.head_dim, m.hidden, bias, nA);
    inv.norm("q_norm", m.head_dim, false, nA);
    inv.norm("k_norm", m.head_dim, false, nA);

    m.moe.experts = moe_class ? r.integer_or({"num_experts"}, 0, 0, 1 << 16) : 0;
    m.moe.top_k = moe_class ? r.integer_or({"num_experts_per_tok"}, 1, 1, std::max<i64>(1, m.moe.experts)) : 0;
    m.moe.expert_intermediate = moe_class ? r.integer_or({"moe_intermediate_size"}, 0, 0, kMaxWidth) : 0;
    if (m.moe.experts > 0 && m.moe.expert_intermediate <= 0) r.error("moe_intermediate_size", "missing required key for a MoE model");
    const i64 moe = m.moe.experts > 0 ? qwen_moe_layers(r, L) : 0;
    m.moe.moe_layers = moe;
    inv.linear(PC::router, Role::router, "gate", m.hidden, m.moe.experts, false, moe);
    routed_experts(m, moe, m.moe.expert_intermediate, false, inv);
    m.moe.shared_intermediate = moe > 0 ? r.integer_or({"shared_expert_intermediate_size"}, 0, 0, kMaxWidth) : 0;
    if (m.moe.shared_intermediate > 0) {
        m.moe.shared_experts = 1;
        inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.moe.shared_intermediate, false, moe);
        inv.linear(PC::router, Role::router, "shared_expert_gate", m.hidden, 1, false, moe);
    }
    if (L - moe > 0) require_intermediate(m, r);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, false, L - moe);
    inv.rms_norms_and_head(m, L);
}

// ---- gpt-oss (GptOssForCausalLM, transformers models/gpt_oss/modeling_gpt_oss.py) ----
// GptOssAttention: q/k/v/o with bias (attention_bias, default true) and `sinks`, one learned logit per head;
// GptOssTopKRouter: weight [E, h] and bias [E]; GptOssExperts: gate_up_proj [E, h, 2I] + bias [E, 2I],
// down_proj [E, I, h] + bias [E, h]; input / post_attention RMSNorms; norm; untied lm_head.
// layer_types alternates sliding_attention (even layers, window sliding_window) and full_attention.
void gpt_oss(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers;
    m.moe.experts = r.integer_or({"num_local_experts"}, 128, 1, 1 << 16);
    m.moe.top_k = r.integer_or({"num_experts_per_tok", "experts_per_token"}, 4, 1, m.moe.experts);
    m.moe.expert_intermediate = m.intermediate;
    m.moe.moe_layers = L;
    m.traits.alternating_window = true;
    m.traits.hf_trims_window = true;  // GptOssModel builds a sliding-window cache layer for its sliding layers
    const bool bias = r.boolean_or("attention_bias", true);
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.qkvo(m, bias, bias, L);
    inv.vector(PC::attention, Role::o, "sinks", m.heads, L);
    inv.add("router", PC::router, Role::router, m.moe.experts, m.hidden, true, L, true, false);
    inv.linear(PC::experts, Role::gate_up, "gate_up_proj", m.hidden, 2 * m.intermediate, true, L * m.moe.experts, true);
    inv.linear(PC::experts, Role::down, "down_proj", m.intermediate, m.hidden, true, L * m.moe.experts, true);
    inv.rms_norms_and_head(m, L);
}

// ---- GLM-4.5 / 4.6 (Glm4MoeForCausalLM, transformers models/glm4_moe/modeling_glm4_moe.py) ----
// Glm4MoeAttention: q/k/v with bias (attention_bias), o_proj without; q_norm / k_norm over head_dim when
// use_qk_norm. Layers i >= first_k_dense_replace are Glm4MoeMoE: Glm4MoeTopkRouter (weight [E, h],
// e_score_correction_bias [E]), n_routed_experts at moe_intermediate_size and shared_experts, one MLP of
// moe_intermediate_size x n_shared_experts; the first layers a dense MLP at intermediate_size. The MTP layer
// (num_nextn_predict_layers) is dropped on load (_keys_to_ignore_on_load_unexpected) and not counted.
void glm4_moe(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers, h = m.hidden;
    const bool bias = r.boolean_or("attention_bias", false);
    inv.embedding("embed_tokens", m.vocab, h);
    inv.qkvo(m, bias, false, L);
    if (r.boolean_or("use_qk_norm", false)) {
        m.qk_norm = true;
        inv.norm("q_norm", m.head_dim, false, L);
        inv.norm("k_norm", m.head_dim, false, L);
    }
    m.moe.experts = r.integer_or({"n_routed_experts"}, 128, 1, 1 << 16);
    m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 8, 1, m.moe.experts);
    m.moe.expert_intermediate = r.integer_or({"moe_intermediate_size"}, 1408, 1, kMaxWidth);
    m.moe.shared_experts = r.integer_or({"n_shared_experts"}, 1, 0, 1 << 10);
    m.moe.shared_intermediate = m.moe.shared_experts * m.moe.expert_intermediate;
    const i64 moe = L - r.integer_or({"first_k_dense_replace"}, 1, 0, L);
    m.moe.moe_layers = moe;
    inv.linear(PC::router, Role::router, "gate", h, m.moe.experts, false, moe);
    inv.vector(PC::router, Role::router, "e_score_correction_bias", m.moe.experts, moe);
    routed_experts(m, moe, m.moe.expert_intermediate, false, inv);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", h, m.moe.shared_intermediate, false, moe);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", h, m.intermediate, false, L - moe);
    inv.rms_norms_and_head(m, L);
}

// ---- MiniMax-M2 (MiniMaxM2ForCausalLM, transformers models/minimax_m2/modeling_minimax_m2.py) ----
// Attention q/k/v/o without bias; use_qk_norm with qk_norm_type "per_layer": one RMSNorm over the whole
// q projection (heads x head_dim) and one over k (kv_heads x head_dim). Every layer is MoE: a router gate
// [E, h] with e_score_correction_bias [E] (use_routing_bias), num_local_experts w1 / w3 / w2 at
// intermediate_size, no shared expert. The MTP modules (num_mtp_modules) are not in the HF class.
void minimax_m2(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers, h = m.hidden;
    inv.embedding("embed_tokens", m.vocab, h);
    inv.qkvo(m, false, false, L);
    if (r.boolean_or("use_qk_norm", true)) {
        if (r.string_or("qk_norm_type", "per_layer") != "per_layer")
            r.error("qk_norm_type", "only \"per_layer\" (one norm over all heads) is described");
        m.qk_norm = true;
        inv.norm("q_norm", m.heads * m.head_dim, false, L);
        inv.norm("k_norm", m.kv_heads * m.head_dim, false, L);
    }
    m.moe.experts = r.integer_or({"num_local_experts"}, 256, 1, 1 << 16);
    m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 8, 1, m.moe.experts);
    m.moe.expert_intermediate = m.intermediate;
    m.moe.moe_layers = L;
    inv.linear(PC::router, Role::router, "gate", h, m.moe.experts, false, L);
    if (r.boolean_or("use_routing_bias", true)) inv.vector(PC::router, Role::router, "e_score_correction_bias", m.moe.experts, L);
    inv.linear(PC::experts, Role::gate, "w1", h, m.intermediate, false, L * m.moe.experts, true);
    inv.linear(PC::experts, Role::down, "w2", m.intermediate, h, false, L * m.moe.experts, true);
    inv.linear(PC::experts, Role::up, "w3", h, m.intermediate, false, L * m.moe.experts, true);
    inv.rms_norms_and_head(m, L);
}

// ---- ERNIE-4.5 MoE (Ernie4_5_MoeForCausalLM), transformers models/ernie4_5_moe/modular_ernie4_5_moe.py @01187e21 ----
// Llama-style attention with q/k/v/o biases under use_bias; layer i is an Ernie4_5_MoeSparseMoeBlock when
// (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <= moe_layer_end_index (end: the last layer
// when absent), else an Ernie4_5_MoeMLP at intermediate_size. The MoE block: an fp32 router `gate` [E, h]
// without bias, moe_statics.e_score_correction_bias [1, E], E experts at moe_intermediate_size and one
// shared_experts MLP moe_num_shared_experts times as wide; biases as use_bias. The lm_head has use_bias too
// and is tied by default (Ernie4_5_MoeConfig). The MTP layers are dropped on load (`_keys_to_ignore_on_load_unexpected`).
void ernie45_moe(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers;
    const bool bias = r.boolean_or("use_bias", false);
    m.moe.experts = r.integer_or({"moe_num_experts"}, 64, 1, 1 << 16);
    m.moe.top_k = r.integer_or({"moe_k"}, 2, 1, m.moe.experts);
    m.moe.expert_intermediate = r.integer_or({"moe_intermediate_size"}, m.intermediate, 1, kMaxWidth);
    m.moe.shared_experts = r.integer_or({"moe_num_shared_experts"}, 0, 0, 1 << 10);
    m.moe.shared_intermediate = m.moe.shared_experts * m.moe.expert_intermediate;
    const i64 start = r.integer_or({"moe_layer_start_index"}, 1, 0, L);
    const i64 end = r.integer_or({"moe_layer_end_index"}, L - 1, -1, L);
    const i64 every = r.integer_or({"moe_layer_interval"}, 1, 1, L);
    i64 moe = 0;
    for (i64 i = 0; i < L; ++i) moe += (i + 1) % every == 0 && i >= start && i <= end ? 1 : 0;
    m.moe.moe_layers = moe;
    if (moe == 0) m.moe = MoeSpec{};
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.qkvo(m, bias, bias, L);
    const i64 E = m.moe.experts;
    inv.linear(PC::router, Role::router, "gate", m.hidden, E, false, moe);
    inv.vector(PC::router, Role::router, "e_score_correction_bias", E, moe);
    inv.gated_mlp(PC::experts, "gate_proj", "up_proj", "down_proj", m.hidden, m.moe.expert_intermediate, bias, moe * E, true);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.moe.shared_intermediate, bias, moe);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, bias, L - moe);
    inv.norm("input_layernorm", m.hidden, false, L);
    inv.norm("post_attention_layernorm", m.hidden, false, L);
    inv.norm("norm", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden, bias);
}

}  // namespace vramcalc::detail

namespace vramcalc::detail {
namespace {

// DeepseekV4's Compressor (deepseek-ai/DeepSeek-V4-Flash inference/model.py, class Compressor; vLLM
// vllm/models/deepseek_v4/compressor.py @91fe0503): ape [ratio, c x dim] (fp32), wkv and wgate (h -> c x dim, stored
// bf16: the checkpoint lists no scale for them), norm RMSNorm(dim); c = 2 when ratio is 4 (overlapping windows).
void v4_compressor(ModelSpec& m, Inventory& inv, const char* name, i64 ratio, i64 dim, i64 layers) {
    const i64 c = ratio == 4 ? 2 : 1;
    inv.add(name, PC::attention, Role::kv_a, ratio, c * dim, false, layers, false, false);         // ape
    inv.add(name, PC::attention, Role::kv_a, c * dim, m.hidden, false, 2 * layers, false, false);  // wkv, wgate
    inv.norm(name, dim, false, layers);
}

}  // namespace

// ---- DeepSeek-V4 (model_type deepseek_v4), written from deepseek-ai/DeepSeek-V4-Flash inference/model.py (the copy
// at Nicooo-Wang/DeepSeek-V4-Pro-code @0ec3a03c) and vLLM vllm/models/deepseek_v4/attention.py @0484480b ----
// Not MLA: per layer one KV head of head_dim (keys and values alike) after wkv (h -> head_dim) and kv_norm; queries
// through wq_a (h -> q_lora_rank), q_norm, wq_b (-> heads x head_dim); attn_sink per head; a grouped low-rank output,
// wo_a (heads x head_dim / o_groups -> o_groups x o_lora_rank) and wo_b (-> h). Layer i with compress_ratios[i] > 0
// has a Compressor (pooled KV entries, one per ratio tokens); ratio 4 also an Indexer (wq_b q_lora_rank ->
// index_n_heads x index_head_dim, weights_proj h -> index_n_heads, its own Compressor over index_head_dim). Every
// layer is MoE: Gate weight [E, h] with bias [E] (scored layers) or tid2eid [vocab, top_k] (the first
// num_hash_layers, hash-routed), E experts w1/w2/w3 at moe_intermediate_size and one shared expert. Hyper-connections
// (hc_mult copies of the residual): hc_attn/ffn_fn [(2 + hc) hc, hc h], _base [(2 + hc) hc], _scale [3] per layer,
// hc_head_fn / base / scale at the top. embed, norm, untied head. The MTP block is not counted (the card's 284B
// is the 43 layers). The checkpoint keeps the routed experts in FP4 (expert_dtype "fp4": e2m1 x 2 per byte and an
// e8m0 scale per 32, as MXFP4) beside fp8 blocks for the other linears.
void deepseek_v4(ModelSpec& m, FieldReader& r, Inventory& inv) {
    const i64 L = m.layers, h = m.hidden, H = m.heads, D = m.head_dim;
    auto& a = m.mla;
    m.attention = AttentionKind::compressed;
    m.kv_heads = 1;
    m.v_head_dim = D;
    a.q_lora_rank = r.integer({"q_lora_rank"}, 1, 1 << 20).value_or(0);
    a.qk_rope_head_dim = r.integer_or({"qk_rope_head_dim"}, 64, 1, D);
    a.window = r.integer_or({"sliding_window"}, 128, 1, i64{1} << 30);
    const i64 o_rank = r.integer({"o_lora_rank"}, 1, 1 << 20).value_or(0);
    const i64 groups = r.integer_or({"o_groups"}, 8, 1, 1 << 16);
    const i64 hc = r.integer_or({"hc_mult"}, 4, 1, 64);
    if (H % groups != 0) r.error("o_groups", "must divide num_attention_heads");
    if (const json* v = r.find({"compress_ratios"})) {
        // One entry per layer; DeepSeek's configs add one for the MTP block, which is not counted.
        if (!v->is_array() || static_cast<i64>(v->size()) < L) r.error("compress_ratios", "expected one entry per layer (" + std::to_string(L) + ")");
        else
            for (i64 i = 0; i < L; ++i) {
                const json& e = (*v)[static_cast<std::size_t>(i)];
                if (!e.is_number_integer() || e.get<i64>() < 0) r.error("compress_ratios", "entry " + describe(e) + " is not a ratio");
                else a.compress_ratios.push_back(e.get<i64>());
            }
    } else {
        r.error("compress_ratios", "missing required key (which layers pool their KV, and by how much)");
    }
    if (a.q_lora_rank <= 0 || o_rank <= 0 || static_cast<i64>(a.compress_ratios.size()) != L) return;
    i64 pooled4 = 0, pooled_other = 0;
    for (i64 ratio : a.compress_ratios) (ratio == 4 ? pooled4 : pooled_other) += ratio > 0 ? 1 : 0;
    a.index_head_dim = pooled4 > 0 ? r.integer_or({"index_head_dim"}, 128, 1, 1 << 16) : 0;
    const i64 index_heads = r.integer_or({"index_n_heads"}, 64, 1, 1 << 16);

    inv.embedding("embed", m.vocab, h);
    inv.vector(PC::attention, Role::o, "attn_sink", H, L);
    inv.linear(PC::attention, Role::q_a, "wq_a", h, a.q_lora_rank, false, L);
    inv.norm("q_norm", a.q_lora_rank, false, L);
    inv.linear(PC::attention, Role::q_b, "wq_b", a.q_lora_rank, H * D, false, L);
    inv.linear(PC::attention, Role::kv_a, "wkv", h, D, false, L);
    inv.norm("kv_norm", D, false, L);
    inv.linear(PC::attention, Role::o, "wo_a", H * D / groups, groups * o_rank, false, L);
    inv.linear(PC::attention, Role::o, "wo_b", groups * o_rank, h, false, L);
    for (i64 ratio : std::set<i64>(a.compress_ratios.begin(), a.compress_ratios.end()))
        if (ratio > 0) v4_compressor(m, inv, "compressor", ratio, D, static_cast<i64>(std::count(a.compress_ratios.begin(), a.compress_ratios.end(), ratio)));
    if (pooled4 > 0) {  // the Indexer, replicated across tensor-parallel ranks in vLLM (ReplicatedLinear): kv_a's role
        inv.linear(PC::attention, Role::kv_a, "indexer.wq_b", a.q_lora_rank, index_heads * a.index_head_dim, false, pooled4);
        inv.add("indexer.weights_proj", PC::attention, Role::kv_a, index_heads, h, false, pooled4, false, false);  // bf16
        v4_compressor(m, inv, "indexer.compressor", 4, a.index_head_dim, pooled4);
    }

    m.moe.experts = r.integer_or({"n_routed_experts"}, 256, 1, 1 << 16);
    m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 6, 1, m.moe.experts);
    m.moe.expert_intermediate = r.integer_or({"moe_intermediate_size"}, 2048, 1, kMaxWidth);
    m.moe.shared_experts = r.integer_or({"n_shared_experts"}, 1, 0, 1 << 10);
    m.moe.shared_intermediate = m.moe.shared_experts * m.moe.expert_intermediate;
    m.moe.moe_layers = L;
    const i64 E = m.moe.experts, hashed = r.integer_or({"num_hash_layers"}, 0, 0, L);
    inv.linear(PC::router, Role::router, "gate", h, E, false, L);
    inv.vector(PC::router, Role::router, "gate.bias", E, L - hashed);
    inv.add("gate.tid2eid", PC::router, Role::router, m.vocab, m.moe.top_k, false, hashed, false, false);  // int64 in the checkpoint
    const std::size_t first_expert = m.params.size();
    routed_experts(m, L, m.moe.expert_intermediate, false, inv);
    if (r.string_or("expert_dtype", "") == "fp4")
        for (std::size_t i = first_expert; i < m.params.size(); ++i) m.params[i].checkpoint_format = "mxfp4";
    inv.gated_mlp(PC::mlp, "w1", "w3", "w2", h, m.moe.shared_intermediate, false, L);
    inv.norm("attn_norm/ffn_norm", h, false, 2 * L);
    const i64 mix = (2 + hc) * hc;
    inv.add("hc_attn_fn/hc_ffn_fn", PC::norms, Role::norm, mix, hc * h, false, 2 * L, false, false);
    inv.vector(PC::norms, Role::norm, "hc_attn_base/hc_ffn_base", mix, 2 * L);
    inv.vector(PC::norms, Role::norm, "hc_attn_scale/hc_ffn_scale", 3, 2 * L);
    inv.add("hc_head_fn", PC::norms, Role::norm, hc, hc * h, false, 1, false, false);
    inv.vector(PC::norms, Role::norm, "hc_head_base/scale", hc + 1, 1);
    inv.norm("norm", h, false, 1);
    inv.lm_head(m.vocab, h, false, "head");
}

}  // namespace vramcalc::detail
