// ModelSpec: what the estimator knows about a model, built from a Hugging Face config.json.
//
// Two views of the same model:
//  - dimensions (hidden, layers, heads, ...) that the activation and KV-cache models use;
//  - an inventory of parameter tensors grouped by identical shape (ParamGroup) from which parameter
//    counts, LoRA adapter sizes and per-tensor optimizer states are derived exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vramcalc {

using i64 = std::int64_t;

struct LayerStack;  // layer_stack.hpp: a model given by its layers (CNNs, ViTs, custom networks)

// Where a parameter belongs in the breakdown the user sees.
// `vision`: a multimodal model's vision tower and projector (the encoder a vLLM checkpoint loads beside the
// language model; families_vision.cpp).
// `mamba`: a hybrid model's Mamba-2 mixers (in_proj, conv1d, A/D/dt, gated norm, out_proj).
enum class ParamCategory { embeddings,
                           attention,
                           mlp,
                           experts,
                           router,
                           norms,
                           lm_head,
                           vision,
                           mamba };
const char* to_string(ParamCategory c);

// What a tensor does in the network, whatever its module is called: the estimator reads roles, never
// module names or model_type strings (those belong to the family descriptions in families.cpp).
//  - attention: q, k, v; qkv (one fused projection: c_attn, query_key_value, W_pack, qkv_proj); o (output);
//    MLA's low-rank q_a -> q_b and kv_a -> kv_b;
//  - MLP (dense, shared or routed expert): gate and up read the layer input, gate_up is both fused
//    (Phi-3's gate_up_proj), down writes back to the residual stream. A plain MLP's fc1 is `up`, fc2 `down`;
//  - router (MoE gate and its score bias), embed (token, position, type embeddings, projections around
//    them), norm, lm_head, pooler (BERT's pooler dense).
//  - vision: every tensor of a vision tower / projector (never read as a decoder layer's linears);
//  - ssm_in / ssm_out: a Mamba-2 mixer's input projection (with its conv1d and per-head vectors) and its
//    output projection.
enum class Role { embed,
                  q,
                  k,
                  v,
                  qkv,
                  o,
                  q_a,
                  q_b,
                  kv_a,
                  kv_b,
                  gate,
                  up,
                  gate_up,
                  down,
                  router,
                  norm,
                  lm_head,
                  pooler,
                  vision,
                  ssm_in,
                  ssm_out };
const char* to_string(Role r);

// A set of `count` identical parameter tensors (one per layer, per expert, ...).
struct ParamGroup {
    std::string name;  // module leaf name as in the HF class: "q_proj", "query_key_value", "wte", ...
    ParamCategory category = ParamCategory::attention;
    Role role = Role::q;
    i64 rows = 0;                // Linear: out_features; Embedding: num_embeddings; norm: normalized size
    i64 cols = 0;                // Linear: in_features;  Embedding: embedding_dim;  norm/vector: 1
    bool bias = false;           // a bias vector of `rows` elements comes with each tensor
    i64 count = 1;               // how many such tensors exist in the model
    bool is_linear = false;      // an nn.Linear (LoRA / quantisation candidates)
    bool routed_expert = false;  // belongs to a routed MoE expert (inactive unless selected)
    int layer_stack = 0;         // 0: decoder (or only) stack, 1: encoder stack of encoder-decoders
    // The family's published fp8 checkpoints keep this tensor in 16 bits (the family description names the
    // checkpoint whose exclusion list says so).
    bool fp8_keeps_16bit = false;
    // How many of the `count` tensors a pre-quantised checkpoint keeps in 16 bits: the ones its
    // quantization_config's exclusion list names (CheckpointQuant; model/quant_config.cpp). Read only when the
    // weights are that checkpoint's format.
    i64 checkpoint_16bit = 0;
    // A pre-quantised checkpoint that stores this group in a format of its own beside the config's (DeepSeek-V4's
    // routed experts: "expert_dtype": "fp4", MXFP4 beside the fp8 blocks): a `weights` value; empty: the config's.
    // Read only when the weights are that checkpoint's format, like checkpoint_16bit.
    std::string checkpoint_format;

    i64 numel_each() const { return rows * cols + (bias ? rows : 0); }
};

enum class Arch { decoder,
                  encoder,
                  encoder_decoder };

// Structural facts of a family that the estimator needs beyond tensor shapes, filled once by the family
// description (families.cpp) with the source of each beside it there.
struct FamilyTraits {
    bool parallel_block = false;       // attention and MLP read one normed input (Phi-1/2, Falcon parallel_attn)
    bool rope = true;                  // rotary q/k (replaces q and k by new tensors in forward)
    bool eager_softmax_fp32 = true;    // eager attention upcasts the softmax to fp32 (Llama-style HF code)
    bool shifted_logits_copy = false;  // the loss copies the shifted 16-bit logits (Qwen-1 remote code)
    bool loss_upcasts_logits = true;   // the forward calls .float() on the logits (transformers); not Qwen-1
    bool alternating_window = false;   // sliding window on even layers only (Gemma-2, gpt-oss); else every layer
    // Every global_every-th layer attends globally, the others slide: layer i slides when
    // (i + 1) % global_every != 0 (Gemma-3's sliding_window_pattern 6); 0: not used.
    i64 global_every = 0;
    bool hf_trims_window = false;  // transformers' cache keeps only the window (Gemma-2 HybridCache)
    // Gemma-2's tanh soft-capping (attn_logit_softcapping, final_logit_softcapping): cap x tanh(x / cap) on
    // the attention scores and on the logits; tanh keeps its output for backward.
    bool attn_softcap = false;
    bool final_softcap = false;
    // config.json's hidden_act / activation_function is "gelu_new": transformers' NewGELUActivation, the tanh
    // formula written as eager ops (GPT-2, GPT-J, GPT-Neo, Phi-1/2, CodeGen), which keep four tensors of the
    // MLP's width for backward where one GeLU kernel keeps one (training/activations.cpp).
    bool gelu_tanh_eager = false;
    // The plain MLP's activation is ReLU (OPT): autograd's threshold_backward reads the ReLU's output, which is
    // also fc2's input, so the MLP keeps one tensor of its width there where a GeLU keeps two (input and output).
    bool relu_mlp = false;
    std::string gguf_arch;  // the architecture name llama.cpp's quantizer rules use
    // Gemma 4: its full-attention layers (those layer_slides() does not slide) have a head width and KV heads of
    // their own (global_head_dim, num_global_key_value_heads); 0: as every other layer. k_eq_v: those layers have
    // no v_proj and use the key as the value (attention_k_eq_v).
    i64 global_head_dim = 0;
    i64 global_kv_heads = 0;
    bool k_eq_v = false;
};
enum class MlpKind { gated,
                     plain };  // gated: SwiGLU/GeGLU (3 matrices); plain: fc1 -> act -> fc2
enum class NormKind { rms,
                      layer };
// compressed: DeepSeek-V4's attention: one head_dim-wide KV vector per token (keys and values alike), kept as a
// sliding window of raw entries plus one pooled entry per compress_ratios[i] tokens (MlaSpec).
enum class AttentionKind { standard,
                           mla,
                           compressed };

struct MoeSpec {
    i64 experts = 0;              // routed experts per MoE layer (0: dense model)
    i64 top_k = 0;                // experts each token is routed to
    i64 shared_experts = 0;       // always-active experts (DeepSeek, Qwen2-MoE's shared expert)
    i64 expert_intermediate = 0;  // FFN width of one routed expert
    i64 shared_intermediate = 0;  // FFN width of the shared expert block (total)
    i64 moe_layers = 0;           // how many layers are MoE (others are dense)
};

struct MlaSpec {          // DeepSeek-V2/V3 multi-head latent attention
    i64 q_lora_rank = 0;  // 0: q is a plain projection
    i64 kv_lora_rank = 0;
    i64 qk_nope_head_dim = 0;
    i64 qk_rope_head_dim = 0;
    i64 v_head_dim = 0;
    // The DSA lightning indexer's own key cache (DeepSeek-V3.2 on every layer, V4 on its ratio-4 layers): one
    // index_head_dim-wide key per token (per pooled entry for V4); 0: no indexer.
    i64 index_head_dim = 0;
    // DeepSeek-V4 (AttentionKind::compressed): per decoder layer, how many tokens one pooled entry covers (0: the
    // sliding window only), and the window of raw entries every layer keeps.
    std::vector<i64> compress_ratios;
    i64 window = 0;
};

// A hybrid model with one mixer per block (Nemotron-H's hybrid_override_pattern): which blocks attend,
// and the Mamba-2 mixer's sizes, from which its recurrent state per sequence follows.
struct HybridSpec {
    // per block: 'M' Mamba-2 (or another mixer with a fixed state per sequence), '*' attention, 'P' both side by
    // side (Falcon-H1), 'E' MoE, '-' MLP; empty: not hybrid
    std::string pattern;
    i64 ssm_heads = 0;           // mamba_num_heads
    i64 ssm_head_dim = 0;        // mamba_head_dim
    i64 ssm_state = 0;           // ssm_state_size
    i64 ssm_groups = 0;          // n_groups (B and C are shared by the heads of a group)
    i64 conv_kernel = 0;         // conv_kernel
    double ssm_state_bytes = 0;  // mamba_ssm_cache_dtype's element size (0: the model dtype)

    i64 blocks(char kind) const;
    static bool attends(char kind) { return kind == '*' || kind == 'P'; }      // keeps a KV cache
    static bool keeps_state(char kind) { return kind == 'M' || kind == 'P'; }  // keeps a conv / SSM state
    i64 attention_blocks() const { return blocks('*') + blocks('P'); }
    i64 state_blocks() const { return blocks('M') + blocks('P'); }
    i64 inner() const { return ssm_heads * ssm_head_dim; }
    i64 conv_dim() const { return inner() + 2 * ssm_groups * ssm_state; }
};

// A pre-quantised checkpoint as config.json's quantization_config describes it (model/quant_config.cpp):
// the weight format its quantised linears are stored in and what its exclusion list (ignore /
// modules_to_not_convert / exclude_modules) keeps in 16 bits, per ParamGroup::checkpoint_16bit.
struct CheckpointQuant {
    std::string format;       // a `weights` value: fp8, fp8-channel, fp8-block, mxfp4, nvfp4, w4a16, gptq-int4, ...; empty: none
    std::string method;       // quant_method as given (fp8, mxfp4, modelopt, compressed-tensors, gptq, awq, bitsandbytes)
    i64 group_size = 0;       // GPTQ / AWQ / W4A16: inputs per scale group (-1 one per channel); 0: the format's own
    bool asymmetric = false;  // W4A16 with zero points (compressed-tensors symmetric: false)
    std::string note;         // what was read, for the bill: "compressed-tensors int4 group 128, 96 tensors kept 16-bit"
};

struct ModelSpec {
    std::string name;        // display name (preset name or "config.json")
    std::string model_type;  // as in config.json
    Arch arch = Arch::decoder;

    i64 vocab = 0;
    i64 hidden = 0;
    i64 layers = 0;          // decoder layers (or encoder layers for encoder-only models)
    i64 encoder_layers = 0;  // encoder-decoder models only
    i64 heads = 0;
    i64 kv_heads = 0;
    i64 head_dim = 0;      // per-head width of q and k (MLA: nope + rope)
    i64 v_head_dim = 0;    // per-head width of v (differs from head_dim only for MLA)
    i64 intermediate = 0;  // dense FFN width
    i64 max_positions = 0;
    MlpKind mlp = MlpKind::gated;
    NormKind norm = NormKind::rms;
    AttentionKind attention = AttentionKind::standard;
    bool tied_embeddings = false;
    bool qk_norm = false;
    double hidden_dropout = 0.0;
    double attention_dropout = 0.0;
    i64 sliding_window = 0;  // 0: none
    // Bytes per weight of the checkpoint as config.json names its dtype (torch_dtype, or dtype from
    // transformers 5): 2 for bfloat16/float16, 4 for float32; 0 where the config names none.
    int checkpoint_dtype_bytes = 0;
    MoeSpec moe;
    MlaSpec mla;
    HybridSpec hybrid;
    FamilyTraits traits;
    CheckpointQuant quant;  // config.json's quantization_config (format empty: none)

    // Models given only as a parameter count (e.g. "the ZeRO paper's 7.5B model"): no shapes.
    bool count_only = false;
    i64 declared_parameters = 0;

    std::vector<ParamGroup> params;

    // A model given by its layers (layer_stack.hpp), not by a config.json: `params` is then the stack's
    // param_groups() and the training and inference bills read the stack's saved bytes and FLOPs from it
    // (model_from_layer_stack). Null for the transformer families.
    std::shared_ptr<const LayerStack> stack;
};

// Exact parameter counts (numel of the HF model class; tied embeddings counted once).
struct ParamBreakdown {
    i64 total = 0;
    i64 active = 0;  // per token: routed experts counted top_k / experts
    i64 embeddings = 0;
    i64 attention = 0;
    i64 mlp = 0;      // dense MLPs and shared experts
    i64 experts = 0;  // routed experts
    i64 router = 0;
    i64 norms = 0;
    i64 lm_head = 0;        // 0 when tied to the input embedding
    i64 vision = 0;         // vision tower and projector of a multimodal checkpoint
    i64 mamba = 0;          // Mamba-2 mixers of a hybrid model
    i64 linear = 0;         // parameters in nn.Linear weights and biases (quantisable by bnb/GPTQ)
    bool overflow = false;  // a count did not fit in 64 bits (absurd input)
};

ParamBreakdown count_parameters(const ModelSpec& m);

// Whether decoder layer i has attention (and so a KV cache): every layer, except in a hybrid model.
bool layer_attends(const ModelSpec& m, i64 i);
// Layers with attention (m.layers unless the model is hybrid).
i64 attention_layers(const ModelSpec& m);

// KV-cache bytes per token for one sequence (all attention layers): 2 x layers x kv_heads x head_dim x bytes, or
// the MLA latent (kv_lora_rank + qk_rope_head_dim) x layers x bytes for engines that store it.
double kv_bytes_per_token(const ModelSpec& m, double element_bytes, bool mla_latent);

}  // namespace vramcalc
