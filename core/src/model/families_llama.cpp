// Llama-descended decoders (Llama, Mistral, Mixtral, Qwen2/3 and their MoE, Gemma, Baichuan, DeepSeek
// V2/V3, Qwen-1, Phi, Phi-3, StableLM), written from the Hugging Face modeling files named beside each.
#include <algorithm>
#include <optional>
#include <set>

#include "model/inventory.hpp"

namespace vramcalc::detail {
namespace {

// A config's list of layer indices (`key`), checked against the layer count; nullopt when the key is absent.
std::optional<std::set<i64>> layer_index_list(FieldReader& r, const char* key, i64 layers) {
    const json* v = r.find({key});
    if (!v) return std::nullopt;
    std::set<i64> out;
    if (!v->is_array()) {
        r.error(key, "expected a list of layer indices");
        return out;
    }
    for (const auto& e : *v) {
        if (!e.is_number_integer() || e.get<i64>() < 0 || e.get<i64>() >= layers)
            r.error(key, "entry " + describe(e) + " is not a layer index from 0 to " + std::to_string(layers - 1));
        else out.insert(e.get<i64>());
    }
    return out;
}

// Llama4TextConfig (transformers models/llama4/configuration_llama4.py): `moe_layers` when given, else layer i
// is MoE when (i + 1) % interleave_moe_layer_step == 0 (Maverick: every other layer; Scout: all).
i64 llama4_moe_layers(FieldReader& r, i64 layers) {
    if (const auto moe = layer_index_list(r, "moe_layers", layers)) return static_cast<i64>(moe->size());
    const i64 step = r.integer_or({"interleave_moe_layer_step"}, 1, 1, layers);
    return layers / step;  // i = step - 1, 2 step - 1, ...
}

}  // namespace

// Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py): layer i is sliding_attention unless
// (i + 1) % sliding_window_pattern == 0 (default 6); a layer_types list must follow that period.
void gemma3_windows(ModelSpec& m, FieldReader& r) {
    i64 every = r.integer_or({"sliding_window_pattern"}, 6, 1, 1 << 20);
    if (const json* v = r.find({"layer_types"})) {
        const auto full_at = [&](i64 i) { return (*v)[static_cast<std::size_t>(i)] == "full_attention"; };
        if (!v->is_array() || static_cast<i64>(v->size()) != m.layers) {
            r.error("layer_types", "expected one entry per layer");
            return;
        }
        every = 0;
        for (i64 i = 0; i < m.layers && every == 0; ++i) every = full_at(i) ? i + 1 : 0;
        if (every == 0) every = m.layers + 1;  // no global layer
        for (i64 i = 0; i < m.layers; ++i)
            if (full_at(i) != ((i + 1) % every == 0)) {
                r.error("layer_types", "full_attention layers are not every " + std::to_string(every) + "th (the one pattern described)");
                return;
            }
    }
    m.traits.global_every = every;
}

namespace {
// DeepSeek-V3.2's sparse-attention indexer, one per layer beside MLA (deepseek-ai/DeepSeek-V3.2-Exp
// inference/model.py @6d8cb70d, class Indexer): wq_b (q_lora_rank -> index_n_heads x index_head_dim), wk
// (h -> index_head_dim), k_norm LayerNorm(index_head_dim) with bias, weights_proj (h -> index_n_heads); no
// linear biases. vLLM builds these as ReplicatedLinear: the kv_a role, which tensor parallelism replicates too.
void dsa_indexer(ModelSpec& m, FieldReader& r, Inventory& inv) {
    if (!r.has("index_n_heads") && !r.has("index_head_dim")) return;
    const i64 heads = r.integer_or({"index_n_heads"}, 64, 1, 1 << 16);
    const i64 dim = r.integer_or({"index_head_dim"}, 128, 1, 1 << 16);
    if (m.mla.q_lora_rank <= 0) r.error("q_lora_rank", "the indexer's wq_b reads the q latent: a rank is required");
    m.mla.index_head_dim = dim;  // its key cache: inference/kv_cache.cpp
    inv.linear(PC::attention, Role::kv_a, "indexer.wq_b", m.mla.q_lora_rank, heads * dim, false, m.layers);
    inv.linear(PC::attention, Role::kv_a, "indexer.wk", m.hidden, dim, false, m.layers);
    inv.norm("indexer.k_norm", dim, true, m.layers);
    inv.linear(PC::attention, Role::kv_a, "indexer.weights_proj", m.hidden, heads, false, m.layers);
}
}  // namespace

i64 qwen_moe_layers(FieldReader& r, i64 layers) {
    const i64 step = r.integer_or({"decoder_sparse_step"}, 1, 1, layers);
    const std::set<i64> dense_only = layer_index_list(r, "mlp_only_layers", layers).value_or(std::set<i64>{});
    i64 n = 0;
    for (i64 i = 0; i < layers; ++i)
        if (!dense_only.count(i) && (i + 1) % step == 0) ++n;
    return n;
}

// ---- Llama-style decoders: embed_tokens, L x (attention, gated MLP, 2 RMSNorms), norm, lm_head ----
// LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, GemmaForCausalLM,
// Gemma2ForCausalLM, BaichuanForCausalLM (W_pack), and unknown types read the same way.
void llama_like(ModelSpec& m, const std::string& t, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const bool qwen2 = t == "qwen2" || t == "qwen2_moe";
    // Qwen2 has bias on q, k, v only (Qwen2Attention); Llama/Qwen3 follow `attention_bias`.
    const bool attn_bias = r.boolean_or("attention_bias", false);
    const bool qkv_bias = qwen2 ? r.boolean_or("qkv_bias", true) : attn_bias;
    const bool mlp_bias = r.boolean_or("mlp_bias", false);
    const i64 L = m.layers;

    inv.embedding("embed_tokens", m.vocab, m.hidden);
    if (t == "baichuan") {  // BaichuanAttention: fused W_pack (no bias), o_proj
        inv.linear(PC::attention, Role::qkv, "W_pack", m.hidden, 3 * m.heads * m.head_dim, false, L);
        inv.linear(PC::attention, Role::o, "o_proj", m.heads * m.head_dim, m.hidden, false, L);
    } else {
        inv.qkvo(m, qkv_bias, attn_bias && !qwen2, L);
    }
    if (t == "qwen3" || t == "qwen3_moe" || t == "gemma3_text") {  // Qwen3Attention / Gemma3Attention: q_norm, k_norm over head_dim
        m.qk_norm = true;
        inv.norm("q_norm", m.head_dim, false, L);
        inv.norm("k_norm", m.head_dim, false, L);
    }

    // MLPs: dense, or MoE on some layers.
    i64 moe_layers = 0;
    i64 dense_width = m.intermediate;
    if (t == "llama4") {
        // Llama4TextMoe (transformers models/llama4/modeling_llama4.py): a router Linear(h, E), the routed
        // experts Llama4TextExperts (gate_up_proj [E, h, 2 I] and down_proj [E, I, h], I = intermediate_size)
        // and a shared_expert Llama4TextMLP(I); the other layers' Llama4TextMLP is intermediate_size_mlp wide.
        // Its qk norm (use_qk_norm) is a weightless L2 norm.
        // Defaults (16 experts, top-1) as Llama4TextConfig's.
        m.moe.experts = r.integer_or({"num_local_experts"}, 16, 1, 1 << 16);
        m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 1, 1, m.moe.experts);
        m.moe.expert_intermediate = m.intermediate;
        m.moe.shared_experts = 1;
        m.moe.shared_intermediate = m.intermediate;
        moe_layers = llama4_moe_layers(r, L);
        if (moe_layers < L) {
            dense_width = r.integer({"intermediate_size_mlp"}, 1, 1 << 20).value_or(0);
            if (dense_width <= 0) r.error("intermediate_size_mlp", "missing required key (the dense layers' MLP width)");
        }
        const i64 E = m.moe.experts;
        inv.linear(PC::router, Role::router, "router", m.hidden, E, false, moe_layers);
        inv.gated_mlp(PC::experts, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, false, moe_layers * E, true);
        inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, false, moe_layers);
    } else if (t == "mixtral") {  // MixtralSparseMoeBlock: gate (router) + experts w1/w3 (in) and w2 (out)
        m.moe.experts = r.integer_or({"num_local_experts"}, 8, 1, 1 << 16);
        m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 2, 1, m.moe.experts);
        m.moe.expert_intermediate = m.intermediate;
        moe_layers = L;
        inv.linear(PC::router, Role::router, "gate", m.hidden, m.moe.experts, false, L);
        inv.linear(PC::experts, Role::gate, "w1", m.hidden, m.intermediate, false, L * m.moe.experts, true);
        inv.linear(PC::experts, Role::down, "w2", m.intermediate, m.hidden, false, L * m.moe.experts, true);
        inv.linear(PC::experts, Role::up, "w3", m.hidden, m.intermediate, false, L * m.moe.experts, true);
    } else if (t == "qwen2_moe" || t == "qwen3_moe") {
        // Qwen2MoeSparseMoeBlock: gate, experts (gate/up/down_proj at moe_intermediate_size), and for
        // Qwen2-MoE a shared_expert (shared_expert_intermediate_size) with a 1-wide shared_expert_gate.
        m.moe.experts = r.integer_or({"num_experts"}, 0, 0, 1 << 16);
        m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 1, 1, std::max<i64>(1, m.moe.experts));
        m.moe.expert_intermediate = r.integer_or({"moe_intermediate_size"}, 0, 1, 1 << 20);
        if (m.moe.experts > 0 && m.moe.expert_intermediate <= 0)
            r.error("moe_intermediate_size", "missing required key for a MoE model");
        moe_layers = m.moe.experts > 0 ? qwen_moe_layers(r, L) : 0;
        const i64 E = m.moe.experts;
        inv.linear(PC::router, Role::router, "gate", m.hidden, E, false, moe_layers);
        inv.gated_mlp(PC::experts, "gate_proj", "up_proj", "down_proj", m.hidden, m.moe.expert_intermediate,
                      false, moe_layers * E, true);
        if (t == "qwen2_moe") {
            m.moe.shared_intermediate = r.integer_or({"shared_expert_intermediate_size"}, 0, 0, 1 << 20);
            if (m.moe.shared_intermediate > 0) {
                m.moe.shared_experts = 1;
                inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.moe.shared_intermediate,
                              false, moe_layers);
                inv.linear(PC::router, Role::router, "shared_expert_gate", m.hidden, 1, false, moe_layers);
            }
        }
    }
    m.moe.moe_layers = moe_layers;
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, dense_width, mlp_bias, L - moe_layers);

    // Gemma2DecoderLayer adds pre_/post_feedforward_layernorm to the two usual norms.
    inv.norm("input_layernorm", m.hidden, false, L);
    inv.norm("post_attention_layernorm", m.hidden, false, L);
    if (t == "gemma3_text") gemma3_windows(m, r);
    if (t == "gemma2" || t == "gemma3_text") {
        // Gemma2DecoderLayer: layer i is local (sliding window) when i is even (`not bool(layer_idx % 2)`),
        // and transformers' HybridCache keeps only the window for those layers.
        m.traits.alternating_window = t == "gemma2";
        m.traits.hf_trims_window = true;
        // Gemma2Config: attn_logit_softcapping 50.0 and final_logit_softcapping 30.0 by default; null turns
        // a cap off (Gemma2Attention / Gemma2ForCausalLM apply cap x tanh(x / cap)).
        // Gemma3TextConfig keeps both keys but defaults them to null (no capping).
        const bool caps = t == "gemma2";
        m.traits.attn_softcap = caps && !r.is_null("attn_logit_softcapping") && r.number_or("attn_logit_softcapping", 50.0, 0, 1e9) > 0;
        m.traits.final_softcap = caps && !r.is_null("final_logit_softcapping") && r.number_or("final_logit_softcapping", 30.0, 0, 1e9) > 0;
        inv.norm("pre_feedforward_layernorm", m.hidden, false, L);
        inv.norm("post_feedforward_layernorm", m.hidden, false, L);
    }
    inv.norm("norm", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden);
}

// ---- DeepSeek-V2 / V3 (DeepseekV2ForCausalLM / DeepseekV3ForCausalLM, remote code) ----
void deepseek(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers;
    auto& a = m.mla;
    m.attention = AttentionKind::mla;
    a.q_lora_rank = r.integer_or({"q_lora_rank"}, 0, 0, 1 << 20);  // null in V2-Lite: plain q_proj
    a.kv_lora_rank = r.integer({"kv_lora_rank"}, 1, 1 << 20).value_or(0);
    a.qk_nope_head_dim = r.integer({"qk_nope_head_dim"}, 1, 1 << 16).value_or(0);
    a.qk_rope_head_dim = r.integer({"qk_rope_head_dim"}, 1, 1 << 16).value_or(0);
    a.v_head_dim = r.integer({"v_head_dim"}, 1, 1 << 16).value_or(0);
    const bool bias = r.boolean_or("attention_bias", false);
    m.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    m.v_head_dim = a.v_head_dim;
    const i64 H = m.heads, h = m.hidden;

    inv.embedding("embed_tokens", m.vocab, h);
    if (a.q_lora_rank > 0) {
        inv.linear(PC::attention, Role::q_a, "q_a_proj", h, a.q_lora_rank, bias, L);
        inv.norm("q_a_layernorm", a.q_lora_rank, false, L);
        inv.linear(PC::attention, Role::q_b, "q_b_proj", a.q_lora_rank, H * m.head_dim, false, L);
    } else {
        inv.linear(PC::attention, Role::q, "q_proj", h, H * m.head_dim, false, L);
    }
    inv.linear(PC::attention, Role::kv_a, "kv_a_proj_with_mqa", h, a.kv_lora_rank + a.qk_rope_head_dim, bias, L);
    inv.norm("kv_a_layernorm", a.kv_lora_rank, false, L);
    inv.linear(PC::attention, Role::kv_b, "kv_b_proj", a.kv_lora_rank, H * (a.qk_nope_head_dim + a.v_head_dim), false, L);
    inv.linear(PC::attention, Role::o, "o_proj", H * a.v_head_dim, h, bias, L);
    dsa_indexer(m, r, inv);

    // MoE on layers i >= first_k_dense_replace with i % moe_layer_freq == 0 (DeepseekV3DecoderLayer).
    m.moe.experts = r.integer_or({"n_routed_experts"}, 0, 0, 1 << 16);
    const i64 first_dense = r.integer_or({"first_k_dense_replace"}, 0, 0, L);
    const i64 freq = r.integer_or({"moe_layer_freq"}, 1, 1, L);
    i64 moe_layers = 0;
    if (m.moe.experts > 0)
        for (i64 i = first_dense; i < L; ++i)
            if (i % freq == 0) ++moe_layers;
    m.moe.moe_layers = moe_layers;
    m.moe.top_k = r.integer_or({"num_experts_per_tok"}, 1, 1, std::max<i64>(1, m.moe.experts));
    m.moe.expert_intermediate = r.integer_or({"moe_intermediate_size"}, 0, 0, 1 << 20);
    m.moe.shared_experts = r.integer_or({"n_shared_experts"}, 0, 0, 1 << 10);
    m.moe.shared_intermediate = m.moe.shared_experts * m.moe.expert_intermediate;
    const i64 E = m.moe.experts;
    inv.linear(PC::router, Role::router, "gate", h, E, false, moe_layers);
    // V3's noaux_tc router learns a per-expert score bias (nn.Parameter in the remote MoEGate).
    if (r.string_or("topk_method", "") == "noaux_tc") inv.vector(PC::router, Role::router, "e_score_correction_bias", E, moe_layers);
    inv.gated_mlp(PC::experts, "gate_proj", "up_proj", "down_proj", h, m.moe.expert_intermediate, false,
                  moe_layers * E, true);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", h, m.moe.shared_intermediate, false, moe_layers);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", h, m.intermediate, false, L - moe_layers);
    inv.rms_norms_and_head(m, L);
}

// ---- Qwen v1 (QWenLMHeadModel, remote code): c_attn (q,k,v fused, always biased), c_proj,
// MLP w1/w2 at intermediate_size/2 and c_proj, RMSNorm ln_1/ln_2/ln_f, untied lm_head ----
void qwen_v1(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const bool bias = !r.boolean_or("no_bias", true);
    const i64 L = m.layers, proj = m.heads * m.head_dim, ff = m.intermediate / 2;
    m.intermediate = ff;
    // QWenLMHeadModel.forward: shift_logits = lm_logits[..., :-1, :].contiguous() copies the 16-bit logits
    // before the loss (and the slice's backward builds a zero-filled full-size gradient).
    m.traits.shifted_logits_copy = true;
    // Its loss is CrossEntropyLoss()(shift_logits, shift_labels) with no .float(): outside an autocast
    // region (DeepSpeed under the HF Trainer) the log-softmax runs in the 16-bit dtype (loss.cpp).
    m.traits.loss_upcasts_logits = false;
    inv.embedding("wte", m.vocab, m.hidden);
    inv.linear(PC::attention, Role::qkv, "c_attn", m.hidden, 3 * proj, true, L);
    inv.linear(PC::attention, Role::o, "c_proj", proj, m.hidden, bias, L);
    inv.gated_mlp(PC::mlp, "w1", "w2", "c_proj", m.hidden, ff, bias, L);
    inv.norm("ln_1", m.hidden, false, L);
    inv.norm("ln_2", m.hidden, false, L);
    inv.norm("ln_f", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden);
}

// ---- Phi-1/1.5/2 (PhiForCausalLM): biased q/k/v/dense, fc1/fc2 GeLU MLP, one LayerNorm per layer
// (attention and MLP in parallel), final_layernorm, lm_head with bias ----
void phi(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers, q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
    m.traits.parallel_block = true;  // PhiDecoderLayer: attn(ln(x)) + mlp(ln(x)) + x
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.linear(PC::attention, Role::q, "q_proj", m.hidden, q, true, L);
    inv.linear(PC::attention, Role::k, "k_proj", m.hidden, kv, true, L);
    inv.linear(PC::attention, Role::v, "v_proj", m.hidden, kv, true, L);
    inv.linear(PC::attention, Role::o, "dense", q, m.hidden, true, L);
    if (r.boolean_or("qk_layernorm", false)) {
        m.qk_norm = true;
        inv.norm("q_layernorm", m.head_dim, true, L);
        inv.norm("k_layernorm", m.head_dim, true, L);
    }
    inv.plain_mlp("fc1", "fc2", m.hidden, m.intermediate, true, L);
    inv.norm("input_layernorm", m.hidden, true, L);
    inv.norm("final_layernorm", m.hidden, true, 1);
    inv.lm_head(m.vocab, m.hidden, /*bias=*/true);
}

// ---- Phi-3 (Phi3ForCausalLM): fused qkv_proj and gate_up_proj, no biases, RMSNorm ----
void phi3(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers, q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.linear(PC::attention, Role::qkv, "qkv_proj", m.hidden, q + 2 * kv, false, L);
    inv.linear(PC::attention, Role::o, "o_proj", q, m.hidden, false, L);
    inv.linear(PC::mlp, Role::gate_up, "gate_up_proj", m.hidden, 2 * m.intermediate, false, L);
    inv.linear(PC::mlp, Role::down, "down_proj", m.intermediate, m.hidden, false, L);
    inv.rms_norms_and_head(m, L);
}

// ---- GPT-NeoX / Pythia (GPTNeoXForCausalLM): embed_in, fused query_key_value, dense, 4h MLP,
// two LayerNorms per layer, final_layer_norm, untied embed_out ----
// ---- StableLM 2 / 3B-4E1T (StableLmForCausalLM): Llama layout with LayerNorms (with bias), optional
// qkv bias, optional per-head q/k LayerNorms (weight only), optional parallel residual ----
void stablelm(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers;
    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.qkvo(m, r.boolean_or("use_qkv_bias", false), false, L);
    if (r.boolean_or("qk_layernorm", false)) {  // StableLmLayerNormPerHead: one LayerNorm(head_dim) per head
        m.qk_norm = true;
        inv.norm("q_layernorm", m.head_dim, false, L * m.heads);
        inv.norm("k_layernorm", m.head_dim, false, L * m.kv_heads);
    }
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, false, L);
    inv.norm("input_layernorm", m.hidden, true, L);
    if (!r.boolean_or("use_parallel_residual", false)) inv.norm("post_attention_layernorm", m.hidden, true, L);
    inv.norm("norm", m.hidden, true, 1);
    inv.lm_head(m.vocab, m.hidden);
}

}  // namespace vramcalc::detail
