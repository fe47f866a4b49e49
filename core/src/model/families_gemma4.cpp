// Gemma 4 (model_type gemma4, Gemma4ForConditionalGeneration; its text model gemma4_text), written from
// transformers src/transformers/models/gemma4/configuration_gemma4.py @008e5743 (Gemma4TextConfig's rules) and the
// module tree transformers 5.7 prints for google/gemma-4-31B-it, checked tensor by tensor against that checkpoint's
// safetensors listing (public report, find_string file id 62810419502: 1,188 tensors, 31,273,088,876 parameters,
// which tests/unit-arch-2025.cpp pins). vLLM's reading of the same checkpoint: vllm/model_executor/models/gemma4.py
// @001cabc1 (the V slot of the k_eq_v layers, inference/vllm_engine.cpp; the per-layer KV shapes,
// inference/kv_cache.cpp).
#include "model/inventory.hpp"

namespace vramcalc::detail {

// ---- Gemma4TextModel ----
// embed_tokens (tied to the head by default); per layer Gemma4TextDecoderLayer: self_attn q_proj / k_proj / v_proj /
// o_proj without bias, q_norm and k_norm over the layer's head width (v_norm has no weight), mlp gate_proj /
// up_proj / down_proj (GeGLU at intermediate_size), input_layernorm, post_attention_layernorm,
// pre_feedforward_layernorm, post_feedforward_layernorm and a one-element layer_scalar; norm.
// The full-attention layers (layer_types, by default every 6th) have heads global_head_dim wide (default 512) and,
// with attention_k_eq_v, num_global_key_value_heads KV heads and no v_proj: the key is the value.
// Not described yet, and refused by name: the KV sharing of the last num_kv_shared_layers layers and the
// per-layer embeddings (hidden_size_per_layer_input) of the E2B / E4B models, the MoE block (enable_moe_block) of
// 26B-A4B.
void gemma4(ModelSpec& m, FieldReader& r, Inventory& inv) {
    require_intermediate(m, r);
    const i64 L = m.layers;
    if (r.integer_or({"num_kv_shared_layers"}, 0, 0, L) > 0)
        r.error("num_kv_shared_layers", "Gemma 4's layers that reuse an earlier layer's KV cache (E2B / E4B) are not described yet");
    if (r.integer_or({"hidden_size_per_layer_input"}, 0, 0, kMaxWidth) > 0)
        r.error("hidden_size_per_layer_input", "Gemma 4's per-layer embeddings (E2B / E4B) are not described yet");
    if (r.boolean_or("enable_moe_block", false))
        r.error("enable_moe_block", "Gemma 4's MoE block beside the MLP (26B-A4B) is not described yet");
    // Gemma4TextConfig.__post_init__: without layer_types, layer i is global when (i + 1) % 6 == 0, and the last
    // layer is made global whatever the period: one period describes that only when 6 divides the layer count.
    if (!r.has("layer_types") && !r.has("sliding_window_pattern") && L % 6 != 0)
        r.error("layer_types", "absent, and " + std::to_string(L) +
                                   " layers are not a multiple of 6: transformers then makes the "
                                   "last layer global too, which one period of global layers cannot say (give layer_types)");
    gemma3_windows(m, r);
    const i64 every = m.traits.global_every;
    const i64 global = every > 0 ? L / every : 0, local = L - global;
    m.qk_norm = true;
    m.traits.hf_trims_window = true;  // transformers 5's DynamicCache keeps a sliding layer's window only
    m.traits.global_head_dim = r.integer_or({"global_head_dim"}, 512, 1, kMaxWidth);
    m.traits.k_eq_v = r.boolean_or("attention_k_eq_v", false);
    // num_global_key_value_heads overrides the KV heads only where attention_k_eq_v holds (configuration_gemma4.py).
    m.traits.global_kv_heads = m.traits.k_eq_v ? r.integer_or({"num_global_key_value_heads"}, m.kv_heads, 1, kMaxWidth) : m.kv_heads;
    // final_logit_softcapping: cap x tanh(x / cap) on the logits (None by default; 30.0 in the 31B checkpoint).
    m.traits.final_softcap = !r.is_null("final_logit_softcapping") && r.number_or("final_logit_softcapping", 0.0, 0, 1e9) > 0;
    m.traits.gguf_arch = "gemma4";

    inv.embedding("embed_tokens", m.vocab, m.hidden);
    inv.qkvo(m, false, false, local);
    const i64 gd = m.traits.global_head_dim, gq = m.heads * gd, gkv = m.traits.global_kv_heads * gd;
    inv.linear(PC::attention, Role::q, "q_proj", m.hidden, gq, false, global);
    inv.linear(PC::attention, Role::k, "k_proj", m.hidden, gkv, false, global);
    if (!m.traits.k_eq_v) inv.linear(PC::attention, Role::v, "v_proj", m.hidden, gkv, false, global);
    inv.linear(PC::attention, Role::o, "o_proj", gq, m.hidden, false, global);
    inv.norm("q_norm", m.head_dim, false, local);
    inv.norm("k_norm", m.head_dim, false, local);
    inv.norm("q_norm", gd, false, global);
    inv.norm("k_norm", gd, false, global);
    inv.gated_mlp(PC::mlp, "gate_proj", "up_proj", "down_proj", m.hidden, m.intermediate, false, L);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"})
        inv.norm(n, m.hidden, false, L);
    inv.norm("layer_scalar", 1, false, L);
    inv.norm("norm", m.hidden, false, 1);
    inv.lm_head(m.vocab, m.hidden);
}

// ---- Gemma4VisionModel and Gemma4MultimodalEmbedder (embed_vision) ----
// patch_embedder.input_proj: Linear(3 x patch^2 -> h, no bias); patch_embedder.position_embedding_table
// [2, position_embedding_size, h] (one table per axis); num_hidden_layers x Gemma4VisionEncoderLayer: q/k/v/o_proj
// (h -> heads x head_dim, KV heads num_key_value_heads; no bias), q_norm / k_norm over head_dim, mlp gate/up/down
// (h <-> intermediate_size), four RMSNorms; std_bias and std_scale (h) when `standardize`; embed_vision's
// embedding_projection Linear(h -> the text hidden size, no bias) behind a weightless RMSNorm. The clip bounds of
// use_clipped_linears (E2B / E4B) are not counted. 31B: 575,743,536 (the listing's tower and projector).
void gemma4_vision(FieldReader& v, i64 text_hidden, Inventory& inv) {
    constexpr i64 kMax = i64{1} << 20;
    const i64 h = v.integer_or({"hidden_size"}, 768, 1, kMax);
    const i64 depth = v.integer_or({"num_hidden_layers"}, 16, 1, 10000);
    const i64 ff = v.integer_or({"intermediate_size"}, 3072, 1, kMax);
    const i64 heads = v.integer_or({"num_attention_heads"}, 12, 1, 1 << 16);
    const i64 kv = v.integer_or({"num_key_value_heads"}, heads, 1, 1 << 16);
    const i64 hd = v.integer_or({"head_dim"}, 64, 1, kMax);
    const i64 patch = v.integer_or({"patch_size"}, 16, 1, 4096);
    const i64 positions = v.integer_or({"position_embedding_size"}, 10240, 0, kMax);
    const bool standardize = v.boolean_or("standardize", false);
    const int saved = inv.stack;
    inv.stack = 2;
    const PC c = PC::vision;
    const Role r = Role::vision;
    inv.linear(c, r, "vision_tower.patch_embedder.input_proj", 3 * patch * patch, h, false, 1);
    if (positions > 0) inv.add("vision_tower.patch_embedder.position_embedding_table", c, r, 2 * positions, h, false, 1, false, false);
    inv.linear(c, r, "vision_tower.encoder.layers.q_proj", h, heads * hd, false, depth);
    inv.linear(c, r, "vision_tower.encoder.layers.k_proj", h, kv * hd, false, depth);
    inv.linear(c, r, "vision_tower.encoder.layers.v_proj", h, kv * hd, false, depth);
    inv.linear(c, r, "vision_tower.encoder.layers.o_proj", heads * hd, h, false, depth);
    inv.add("vision_tower.encoder.layers.q_norm/k_norm", c, r, hd, 1, false, 2 * depth, false, false);
    inv.linear(c, r, "vision_tower.encoder.layers.mlp.gate_proj", h, ff, false, depth);
    inv.linear(c, r, "vision_tower.encoder.layers.mlp.up_proj", h, ff, false, depth);
    inv.linear(c, r, "vision_tower.encoder.layers.mlp.down_proj", ff, h, false, depth);
    inv.add("vision_tower.encoder.layers.norms", c, r, h, 1, false, 4 * depth, false, false);
    if (standardize) inv.add("vision_tower.std_bias/std_scale", c, r, h, 1, false, 2, false, false);
    inv.linear(c, r, "embed_vision.embedding_projection", h, text_hidden, false, 1);
    inv.stack = saved;
}

}  // namespace vramcalc::detail
