// Module layouts of the supported families, written from the Hugging Face transformers modeling
// files (class names in each comment). A parameter count is the sum over these tensors; tied input and
// output embeddings appear once. Checked against published exact counts in tests/data/param_counts*.json.
#include "model/families.hpp"

#include <algorithm>
#include <set>

namespace vramcalc::detail {
namespace {

using PC = ParamCategory;

// Appends parameter groups to a ModelSpec with the HF module names.
struct Inventory {
    ModelSpec& m;
    int stack = 0;  // 1 while adding encoder layers of an encoder-decoder

    void add(const char* name, PC c, Role role, i64 rows, i64 cols, bool bias, i64 count, bool is_linear, bool routed) {
        ParamGroup g;
        g.name = name;
        g.category = c;
        g.role = role;
        g.rows = rows;
        g.cols = cols;
        g.bias = bias;
        g.count = count;
        g.is_linear = is_linear;
        g.routed_expert = routed;
        g.layer_stack = stack;
        m.params.push_back(std::move(g));
    }
    void linear(PC c, Role role, const char* name, i64 in, i64 out, bool bias, i64 count, bool routed = false) {
        if (count > 0 && in > 0 && out > 0) add(name, c, role, out, in, bias, count, true, routed);
    }
    void embedding(const char* name, i64 rows, i64 dim, PC c = PC::embeddings) {
        if (rows > 0) add(name, c, Role::embed, rows, dim, false, 1, false, false);
    }
    // A normalisation layer: weight (and bias for LayerNorm with bias).
    void norm(const char* name, i64 size, bool bias, i64 count) {
        if (count > 0) add(name, PC::norms, Role::norm, size, 1, bias, count, false, false);
    }
    void vector(PC c, Role role, const char* name, i64 size, i64 count) {
        if (count > 0) add(name, c, role, size, 1, false, count, false, false);
    }
    // SwiGLU/GeGLU MLP: gate and up (hidden -> width), down (width -> hidden).
    void gated_mlp(PC c, const char* gate, const char* up, const char* down, i64 hidden, i64 width,
                   bool bias, i64 count, bool routed = false) {
        linear(c, Role::gate, gate, hidden, width, bias, count, routed);
        linear(c, Role::up, up, hidden, width, bias, count, routed);
        linear(c, Role::down, down, width, hidden, bias, count, routed);
    }
    // fc1 -> activation -> fc2: fc1 has the `up` role, fc2 `down`.
    void plain_mlp(const char* fc1, const char* fc2, i64 hidden, i64 width, bool bias, i64 count) {
        linear(PC::mlp, Role::up, fc1, hidden, width, bias, count);
        linear(PC::mlp, Role::down, fc2, width, hidden, bias, count);
    }
    // Separate q/k/v/o projections with GQA widths.
    void qkvo(const ModelSpec& s, bool qkv_bias, bool o_bias, i64 count, const char* o_name = "o_proj") {
        const i64 q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
        linear(PC::attention, Role::q, "q_proj", s.hidden, q, qkv_bias, count);
        linear(PC::attention, Role::k, "k_proj", s.hidden, kv, qkv_bias, count);
        linear(PC::attention, Role::v, "v_proj", s.hidden, kv, qkv_bias, count);
        linear(PC::attention, Role::o, o_name, q, s.hidden, o_bias, count);
    }
    void lm_head(i64 vocab, i64 hidden, bool bias = false, const char* name = "lm_head") {
        if (!m.tied_embeddings) linear(PC::lm_head, Role::lm_head, name, hidden, vocab, bias, 1);
    }
};

// The MoE layer indices of Qwen2-MoE / Qwen3-MoE: sparse when not in mlp_only_layers and
// (i + 1) % decoder_sparse_step == 0 (Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer).
i64 qwen_moe_layers(FieldReader& r, i64 layers) {
    const i64 step = r.integer_or({"decoder_sparse_step"}, 1, 1, layers);
    std::set<i64> dense_only;
    if (const json* v = r.find({"mlp_only_layers"})) {
        if (!v->is_array()) {
            r.error("mlp_only_layers", "expected a list of layer indices");
        } else {
            for (const auto& e : *v) {
                if (!e.is_number_integer() || e.get<i64>() < 0 || e.get<i64>() >= layers) {
                    r.error("mlp_only_layers", "entry " + describe(e) + " is not a layer index from 0 to " +
                                                   std::to_string(layers - 1));
                    continue;
                }
                dense_only.insert(e.get<i64>());
            }
        }
    }
    i64 n = 0;
    for (i64 i = 0; i < layers; ++i)
        if (!dense_only.count(i) && (i + 1) % step == 0) ++n;
    return n;
}

void require_intermediate(ModelSpec& m, FieldReader& r) {
    if (m.intermediate <= 0) r.error("intermediate_size", "missing required key (the MLP width)");
}

// ---- Llama-style decoders: embed_tokens, L x (attention, gated MLP, 2 RMSNorms), norm, lm_head ----
// LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, GemmaForCausalLM,
// Gemma2ForCausalLM, BaichuanForCausalLM (W_pack), and unknown types read the same way.
void llama_like(ModelSpec& m, FieldReader& r, Inventory& inv) {
    const std::string& t = m.model_type;
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
    if (t == "qwen3" || t == "qwen3_moe") {  // Qwen3Attention: q_norm, k_norm over head_dim
        m.qk_norm = true;
        inv.norm("q_norm", m.head_dim, false, L);
        inv.norm("k_norm", m.head_dim, false, L);
    }

    // MLPs: dense, or MoE on some layers.
    i64 moe_layers = 0;
    if (t == "mixtral") {  // MixtralSparseMoeBlock: gate (router) + experts w1/w3 (in) and w2 (out)
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
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, mlp_bias,
                  L - moe_layers);

    // Gemma2DecoderLayer adds pre_/post_feedforward_layernorm to the two usual norms.
    inv.norm("input_layernorm", m.hidden, false, L);
    inv.norm("post_attention_layernorm", m.hidden, false, L);
    if (t == "gemma2") {
        // Gemma2DecoderLayer: layer i is local (sliding window) when i is even (`not bool(layer_idx % 2)`),
        // and transformers' HybridCache keeps only the window for those layers.
        m.traits.alternating_window = true;
        m.traits.hf_trims_window = true;
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
    inv.norm("input_layernorm", h, false, L);
    inv.norm("post_attention_layernorm", h, false, L);
    inv.norm("norm", h, false, 1);
    inv.lm_head(m.vocab, h);
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
    inv.norm("input_layernorm", m.hidden, false, L);
    inv.norm("post_attention_layernorm", m.hidden, false, L);
    inv.norm("norm", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden);
}

// ---- GPT-NeoX / Pythia (GPTNeoXForCausalLM): embed_in, fused query_key_value, dense, 4h MLP,
// two LayerNorms per layer, final_layer_norm, untied embed_out ----
void gpt_neox(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers, h = m.hidden;
    const bool bias = r.boolean_or("attention_bias", true);
    inv.embedding("embed_in", m.vocab, h);
    inv.linear(PC::attention, Role::qkv, "query_key_value", h, 3 * h, bias, L);
    inv.linear(PC::attention, Role::o, "dense", h, h, bias, L);
    inv.plain_mlp("dense_h_to_4h", "dense_4h_to_h", h, m.intermediate, true, L);
    inv.norm("input_layernorm", h, true, L);
    inv.norm("post_attention_layernorm", h, true, L);
    inv.norm("final_layer_norm", h, true, 1);
    if (!m.tied_embeddings) inv.linear(PC::lm_head, Role::lm_head, "embed_out", h, m.vocab, false, 1);
}

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

// ---- Falcon (FalconForCausalLM) ----
void falcon(ModelSpec& m, FieldReader& r, Inventory& inv) {
    const i64 L = m.layers, h = m.hidden;
    const bool bias = r.boolean_or("bias", false);
    const bool new_arch = r.boolean_or("new_decoder_architecture", false);
    const bool multi_query = r.boolean_or("multi_query", true);
    const bool parallel = r.boolean_or("parallel_attn", true);
    m.traits.parallel_block = parallel;  // FalconDecoderLayer: attention and MLP read the same normed input
    // FalconAttention: the fused query_key_value width depends on the attention variant.
    if (new_arch) {
        m.kv_heads = r.integer_or({"num_kv_heads", "n_head_kv"}, m.heads, 1, m.heads);
    } else {
        m.kv_heads = multi_query ? 1 : m.heads;
    }
    const i64 qkv = (m.heads + 2 * m.kv_heads) * m.head_dim;
    if (m.intermediate <= 0) m.intermediate = 4 * h;  // FalconConfig: ffn_hidden_size defaults to 4h
    m.mlp = MlpKind::plain;
    inv.embedding("word_embeddings", m.vocab, h);
    inv.linear(PC::attention, Role::qkv, "query_key_value", h, qkv, bias, L);
    inv.linear(PC::attention, Role::o, "dense", h, h, bias, L);
    inv.plain_mlp("dense_h_to_4h", "dense_4h_to_h", h, m.intermediate, bias, L);
    // FalconDecoderLayer: two LayerNorms unless attention and MLP run in parallel on one input.
    i64 lns = 1;
    if (!parallel) lns = 2;
    else if (new_arch) lns = r.integer_or({"num_ln_in_parallel_attn"}, 2, 1, 2);
    inv.norm(lns == 2 ? "ln_attn" : "input_layernorm", h, true, L);
    if (lns == 2) inv.norm(parallel ? "ln_mlp" : "post_attention_layernorm", h, true, L);
    inv.norm("ln_f", h, true, 1);
    inv.lm_head(m.vocab, h);
}

// ---- BLOOM (BloomForCausalLM): word_embeddings + LayerNorm, biased fused qkv, 4h GeLU MLP ----
void bloom(ModelSpec& m, FieldReader&, Inventory& inv) {
    const i64 L = m.layers, h = m.hidden;
    m.intermediate = 4 * h;  // BloomMLP is fixed at 4h
    m.traits.rope = false;   // ALiBi (BloomAttention)
    inv.embedding("word_embeddings", m.vocab, h);
    inv.norm("word_embeddings_layernorm", h, true, 1);
    inv.linear(PC::attention, Role::qkv, "query_key_value", h, 3 * h, true, L);
    inv.linear(PC::attention, Role::o, "dense", h, h, true, L);
    inv.plain_mlp("dense_h_to_4h", "dense_4h_to_h", h, m.intermediate, true, L);
    inv.norm("input_layernorm", h, true, L);
    inv.norm("post_attention_layernorm", h, true, L);
    inv.norm("ln_f", h, true, 1);
    inv.lm_head(m.vocab, h);
}

// ---- GPT-2 (GPT2LMHeadModel): wte + learned wpe, Conv1D c_attn/c_proj/c_fc/c_proj, ln_1/ln_2/ln_f ----
void gpt2(ModelSpec& m, FieldReader& r, Inventory& inv) {
    const i64 L = m.layers, h = m.hidden;
    if (m.intermediate <= 0) m.intermediate = 4 * h;  // n_inner null means 4h
    m.traits.rope = false;                // learned wpe
    m.traits.eager_softmax_fp32 = false;  // GPT2Attention: softmax in the compute dtype
    if (m.max_positions <= 0) r.error("n_positions", "missing required key (learned position table size)");
    inv.embedding("wte", m.vocab, h);
    inv.embedding("wpe", m.max_positions, h);
    inv.linear(PC::attention, Role::qkv, "c_attn", h, 3 * h, true, L);
    inv.linear(PC::attention, Role::o, "c_proj", h, h, true, L);
    inv.plain_mlp("c_fc", "c_proj", h, m.intermediate, true, L);
    inv.norm("ln_1", h, true, L);
    inv.norm("ln_2", h, true, L);
    inv.norm("ln_f", h, true, 1);
    inv.lm_head(m.vocab, h);
}

// ---- OPT (OPTForCausalLM): embed_tokens at word_embed_proj_dim (+ project_in/out when it differs),
// learned positions with an offset of 2, biased q/k/v/out_proj, fc1/fc2, LayerNorms ----
void opt(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers, h = m.hidden;
    const i64 proj = r.integer_or({"word_embed_proj_dim"}, h, 1, 1 << 20);
    const bool bias = r.boolean_or("enable_bias", true);
    const bool affine = r.boolean_or("layer_norm_elementwise_affine", true);
    const bool final_ln = r.boolean_or("do_layer_norm_before", true) && !r.boolean_or("_remove_final_layer_norm", false);
    m.traits.rope = false;                // learned positions
    m.traits.eager_softmax_fp32 = false;  // OPTAttention: softmax in the compute dtype
    if (m.max_positions <= 0) r.error("max_position_embeddings", "missing required key");
    inv.embedding("embed_tokens", m.vocab, proj);
    inv.embedding("embed_positions", m.max_positions + 2, h);  // OPTLearnedPositionalEmbedding offset 2
    if (proj != h) {
        inv.linear(PC::embeddings, Role::embed, "project_in", proj, h, false, 1);
        inv.linear(PC::embeddings, Role::embed, "project_out", h, proj, false, 1);
    }
    const i64 q = m.heads * m.head_dim;
    inv.linear(PC::attention, Role::q, "q_proj", h, q, bias, L);
    inv.linear(PC::attention, Role::k, "k_proj", h, q, bias, L);
    inv.linear(PC::attention, Role::v, "v_proj", h, q, bias, L);
    inv.linear(PC::attention, Role::o, "out_proj", q, h, bias, L);
    inv.plain_mlp("fc1", "fc2", h, m.intermediate, bias, L);
    if (affine) {
        inv.norm("self_attn_layer_norm", h, true, L);
        inv.norm("final_layer_norm", h, true, L);
    }
    if (final_ln) inv.norm("final_layer_norm", h, true, 1);
    inv.lm_head(m.vocab, proj);
}

// ---- BERT (BertModel with pooler): word/position/token-type embeddings + LayerNorm, biased
// query/key/value/dense, intermediate/output, two LayerNorms per layer, pooler dense ----
void bert(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    m.arch = Arch::encoder;
    m.traits.rope = false;                // learned absolute positions
    m.traits.eager_softmax_fp32 = false;  // BertSelfAttention: softmax in the compute dtype
    const i64 L = m.layers, h = m.hidden;
    if (m.max_positions <= 0) r.error("max_position_embeddings", "missing required key");
    inv.embedding("word_embeddings", m.vocab, h);
    inv.embedding("position_embeddings", m.max_positions, h);
    inv.embedding("token_type_embeddings", r.integer_or({"type_vocab_size"}, 2, 0, 1 << 16), h);
    inv.norm("embeddings.LayerNorm", h, true, 1);
    inv.linear(PC::attention, Role::q, "query", h, h, true, L);
    inv.linear(PC::attention, Role::k, "key", h, h, true, L);
    inv.linear(PC::attention, Role::v, "value", h, h, true, L);
    inv.linear(PC::attention, Role::o, "dense", h, h, true, L);
    inv.plain_mlp("intermediate.dense", "output.dense", h, m.intermediate, true, L);
    inv.norm("attention.output.LayerNorm", h, true, L);
    inv.norm("output.LayerNorm", h, true, L);
    inv.linear(PC::mlp, Role::pooler, "pooler.dense", h, h, true, 1);
}

// ---- T5 / mT5 (T5ForConditionalGeneration): shared embedding, encoder and decoder stacks of
// bias-free attention (relative position bias in the first layer of each), ReLU or gated-GeLU FFN,
// weight-only RMS LayerNorms; lm_head tied in T5, untied in mT5 and T5 v1.1 ----
void t5(ModelSpec& m, FieldReader& r, Inventory& inv) {
    m.arch = Arch::encoder_decoder;
    m.norm = NormKind::rms;
    m.traits.rope = false;  // relative position bias
    const i64 d = m.hidden, inner = m.heads * m.head_dim;
    if (m.intermediate <= 0) r.error("d_ff", "missing required key (the FFN width)");
    const std::string ff = r.string_or("feed_forward_proj", "relu");
    const bool gated = ff.rfind("gated-", 0) == 0;
    m.mlp = gated ? MlpKind::gated : MlpKind::plain;
    const i64 buckets = r.integer_or({"relative_attention_num_buckets"}, 32, 1, 1 << 16);
    m.encoder_layers = m.layers;
    m.layers = r.integer_or({"num_decoder_layers"}, m.encoder_layers, 1, 10000);
    inv.embedding("shared", m.vocab, d);
    auto stack = [&](i64 L, bool decoder) {
        const i64 attn_blocks = decoder ? 2 : 1;  // self-attention (+ cross-attention in the decoder)
        inv.linear(PC::attention, Role::q, "q", d, inner, false, L * attn_blocks);
        inv.linear(PC::attention, Role::k, "k", d, inner, false, L * attn_blocks);
        inv.linear(PC::attention, Role::v, "v", d, inner, false, L * attn_blocks);
        inv.linear(PC::attention, Role::o, "o", inner, d, false, L * attn_blocks);
        inv.embedding("relative_attention_bias", buckets, m.heads, PC::attention);
        if (gated) {
            inv.gated_mlp(PC::mlp, "wi_0", "wi_1", "wo", d, m.intermediate, false, L);
        } else {
            inv.plain_mlp("wi", "wo", d, m.intermediate, false, L);
        }
        inv.norm("layer_norm", d, false, L * (attn_blocks + 1));
        inv.norm("final_layer_norm", d, false, 1);
    };
    inv.stack = 1;
    stack(m.encoder_layers, false);
    inv.stack = 0;
    stack(m.layers, true);
    inv.lm_head(m.vocab, d);
}

}  // namespace

bool build_family(ModelSpec& m, const Dims& d, FieldReader& r, std::vector<std::string>& warnings) {
    const std::string& t = m.model_type;
    m.vocab = d.vocab;
    m.hidden = d.hidden;
    m.layers = d.layers;
    m.heads = d.heads;
    m.kv_heads = d.kv_heads;
    m.head_dim = d.head_dim;
    m.v_head_dim = d.head_dim;
    m.intermediate = d.intermediate;
    m.max_positions = d.max_positions;
    m.traits.gguf_arch = t;  // llama.cpp names its architectures after the HF model types we read

    // Defaults of each config class for tie_word_embeddings (PretrainedConfig's default is true;
    // these classes override it to false).
    static const std::set<std::string> untied_by_default = {
        "llama", "mistral", "mixtral", "qwen", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi", "phi3",
        "gpt_neox", "stablelm", "mt5", "deepseek_v2", "deepseek_v3", "baichuan"};
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", !untied_by_default.count(t));

    // Families with LayerNorm and plain (non-gated) MLPs.
    static const std::set<std::string> layer_norm = {"phi", "gpt_neox", "stablelm", "falcon", "bloom",
                                                     "gpt2", "opt", "bert"};
    static const std::set<std::string> plain_mlp = {"phi", "gpt_neox", "falcon", "bloom", "gpt2", "opt", "bert"};
    if (layer_norm.count(t)) m.norm = NormKind::layer;
    if (plain_mlp.count(t)) m.mlp = MlpKind::plain;
    m.sliding_window = r.integer_or({"sliding_window"}, 0, 0, i64{1} << 30);
    if (t == "gemma2" || t == "mistral") {
        // Mistral v0.1 and Gemma-2 use a window; Qwen2 configs carry one but disable it by default.
    } else if (!r.boolean_or("use_sliding_window", false)) {
        m.sliding_window = 0;
    }
    // Dropout rates under each family's own key: hidden_dropout (Falcon), resid_pdrop / attn_pdrop (GPT-2),
    // dropout / attention_dropout (OPT, Llama-style), hidden_dropout_prob / attention_probs_dropout_prob
    // (BERT: transformers' BertConfig, 0.1 each in the published configs).
    const double hidden_prob = r.number_or("hidden_dropout_prob", 0.0, 0, 1);
    m.hidden_dropout = r.number_or("hidden_dropout", r.number_or("resid_pdrop", r.number_or("dropout", hidden_prob, 0, 1), 0, 1), 0, 1);
    m.attention_dropout = r.number_or("attention_dropout",
                                      r.number_or("attn_pdrop", r.number_or("attention_probs_dropout_prob", 0.0, 0, 1), 0, 1), 0, 1);

    Inventory inv{m};
    if (t == "deepseek_v2" || t == "deepseek_v3") deepseek(m, r, inv);
    else if (t == "qwen") qwen_v1(m, r, inv);
    else if (t == "phi") phi(m, r, inv);
    else if (t == "phi3") phi3(m, r, inv);
    else if (t == "gpt_neox") gpt_neox(m, r, inv);
    else if (t == "stablelm") stablelm(m, r, inv);
    else if (t == "falcon") falcon(m, r, inv);
    else if (t == "bloom") bloom(m, r, inv);
    else if (t == "gpt2") gpt2(m, r, inv);
    else if (t == "opt") opt(m, r, inv);
    else if (t == "bert") bert(m, r, inv);
    else if (t == "t5" || t == "mt5") t5(m, r, inv);
    else {
        static const std::set<std::string> llama_family = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe",
                                                           "qwen3", "qwen3_moe", "gemma", "gemma2", "baichuan"};
        if (!llama_family.count(t))
            warnings.push_back("model_type \"" + t +
                               "\" has no dedicated layout: counted as a Llama-style decoder (attention, gated "
                               "MLP, RMSNorm); the parameter count may be off");
        llama_like(m, r, inv);
    }
    return true;
}

}  // namespace vramcalc::detail
