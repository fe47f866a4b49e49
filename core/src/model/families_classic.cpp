// The older layouts (GPT-NeoX/Pythia, Falcon, BLOOM, GPT-2, OPT, BERT, T5/mT5), written from the Hugging
// Face modeling files named beside each.
#include <algorithm>

#include "model/inventory.hpp"

namespace vramcalc::detail {

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
    m.traits.rope = false;                            // learned wpe
    m.traits.eager_softmax_fp32 = false;              // GPT2Attention: softmax in the compute dtype
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

}  // namespace vramcalc::detail
