// Internal: the parameter inventory a family description writes (HF module names, roles, shapes), and
// the family descriptions themselves.
#pragma once

#include <string>
#include <utility>

#include "io/json_reader.hpp"
#include "model/families.hpp"  // kMaxWidth
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

using PC = ParamCategory;

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
    // The Llama-style decoder's tail: RMSNorms input_layernorm and post_attention_layernorm in each of
    // `layers` layers, the final norm, and the (untied) lm_head.
    void rms_norms_and_head(const ModelSpec& s, i64 layers) {
        norm("input_layernorm", s.hidden, false, layers);
        norm("post_attention_layernorm", s.hidden, false, layers);
        norm("norm", s.hidden, false, 1);
        lm_head(s.vocab, s.hidden);
    }
};

// The MoE layer indices of Qwen2-MoE / Qwen3-MoE: sparse when not in mlp_only_layers and
// (i + 1) % decoder_sparse_step == 0 (Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer).
// Records an error when the config gives no MLP width.
void require_intermediate(ModelSpec& m, FieldReader& r);

// The family descriptions (families_*.cpp): each fills the dimensions, traits and parameter inventory
// of `m` for its model types, reading its own keys through `r`.
// `t`: the layout's model_type (a wrapper's text layout: qwen3_vl_moe's text model is read as qwen3_moe).
void llama_like(ModelSpec& m, const std::string& t, FieldReader& r, Inventory& inv);
// Gemma 3 / 4's layer_types (or sliding_window_pattern): every k-th layer global, the others sliding.
void gemma3_windows(ModelSpec& m, FieldReader& r);
// families_gemma4.cpp: Gemma 4's text model (global layers of their own width, k_eq_v) and its vision tower.
void gemma4(ModelSpec& m, FieldReader& r, Inventory& inv);
void gemma4_vision(FieldReader& vision, i64 text_hidden, Inventory& inv);
void deepseek(ModelSpec& m, FieldReader& r, Inventory& inv);
void qwen_v1(ModelSpec& m, FieldReader& r, Inventory& inv);
void phi(ModelSpec& m, FieldReader& r, Inventory& inv);
void phi3(ModelSpec& m, FieldReader& r, Inventory& inv);
void stablelm(ModelSpec& m, FieldReader& r, Inventory& inv);
void gpt_neox(ModelSpec& m, FieldReader& r, Inventory& inv);
void falcon(ModelSpec& m, FieldReader& r, Inventory& inv);
void bloom(ModelSpec& m, FieldReader& r, Inventory& inv);
void gpt2(ModelSpec& m, FieldReader& r, Inventory& inv);
void opt(ModelSpec& m, FieldReader& r, Inventory& inv);
void bert(ModelSpec& m, FieldReader& r, Inventory& inv);
void t5(ModelSpec& m, FieldReader& r, Inventory& inv);
// families_hybrid.cpp: one mixer per block (Nemotron-H's hybrid_override_pattern).
void nemotron_h(ModelSpec& m, FieldReader& r, Inventory& inv);
// LFM2: short-conv and attention layers (layer_types), each with a SwiGLU MLP.
void lfm2(ModelSpec& m, FieldReader& r, Inventory& inv);
// Jamba: Mamba-1 and attention layers (attn_layer_period / offset), MoE every expert_layer_period.
void jamba(ModelSpec& m, FieldReader& r, Inventory& inv);
// Granite 4.0 hybrid: Mamba-2 or attention per layer (layer_types), each with a shared MLP and optional MoE.
void granitemoehybrid(ModelSpec& m, FieldReader& r, Inventory& inv);
// Falcon-H1: attention and a Mamba-2 mixer side by side in every layer ('P' blocks).
void falcon_h1(ModelSpec& m, FieldReader& r, Inventory& inv);
// The SSM state's element size vLLM keeps (mamba_ssm_cache_dtype, or Qwen3.5's mamba_ssm_dtype); 0: model dtype.
double mamba_state_dtype_bytes(FieldReader& r);
// How many layers are MoE in Qwen2/3-MoE and Qwen3-Next: not in mlp_only_layers, (i + 1) % decoder_sparse_step == 0.
i64 qwen_moe_layers(FieldReader& r, i64 layers);
// families_2025.cpp: Qwen3-Next / Qwen3.5, gpt-oss, GLM-4.5, MiniMax-M2.
// moe_class: the config class has experts (Qwen3-Next, Qwen3.5-MoE), not the dense Qwen3.5.
void qwen3_next(ModelSpec& m, FieldReader& r, Inventory& inv, bool moe_class);
void gpt_oss(ModelSpec& m, FieldReader& r, Inventory& inv);
void glm4_moe(ModelSpec& m, FieldReader& r, Inventory& inv);
void minimax_m2(ModelSpec& m, FieldReader& r, Inventory& inv);
void ernie45_moe(ModelSpec& m, FieldReader& r, Inventory& inv);
// DeepSeek-V4: compressed sparse attention (AttentionKind::compressed), hyper-connections, hash-routed layers.
void deepseek_v4(ModelSpec& m, FieldReader& r, Inventory& inv);
// families_vision.cpp: vision towers, read from the config's vision_config object.
void qwen3_vl_vision(FieldReader& vision, Inventory& inv);
void llama4_vision(FieldReader& vision, i64 text_hidden, Inventory& inv);
void pixtral_vision(FieldReader& vision, FieldReader& root, i64 text_hidden, Inventory& inv);
void moonvit_vision(FieldReader& vision, i64 text_hidden, Inventory& inv);

}  // namespace vramcalc::detail
