// llama.cpp's GGUF tensor types: the ggml block layouts, the type each quantisation preset gives each tensor
// (llama-quant.cpp), and the role names it decides by.
#include <cmath>

#include "formats/weight_formats.hpp"

namespace vramcalc::detail {
namespace {

// ggml block layouts (ggml/src/ggml-common.h): block_q8_0 = fp16 d + 32 int8; block_q4_0 = fp16 d + 16 B;
// block_q5_0 = fp16 d + 4 B high bits + 16 B; block_q5_1/q4_1 add an fp16 min; the K-quants use 256-weight
// super-blocks: block_q2_K = 16 B scales + 64 B quants + 2 fp16 = 84; block_q3_K = 32 + 64 + 12 + fp16 = 110;
// block_q4_K = 2 fp16 + 12 B scales + 128 B = 144; block_q5_K = 2 fp16 + 12 + 32 + 128 = 176;
// block_q6_K = 128 + 64 + 16 B scales + fp16 = 210; block_iq4_xs = fp16 + 2 B scales_h + 4 B scales_l +
// 128 B = 136; block_iq4_nl = fp16 + 16 B = 18 per 32. Types met only in GGUF headers (checkpoint/gguf.cpp),
// same file: block_q8_1 = 2 fp16 + 32 = 36 per 32; block_q8_K = f32 + 256 + 16 int16 = 292; block_iq2_xxs =
// fp16 + 32 uint16 = 66; block_iq2_xs = 66 + 8 scales = 74; block_iq2_s = fp16 + 64 + 16 = 82;
// block_iq3_xxs = fp16 + 96 = 98; block_iq3_s = fp16 + 13 x 8 + 4 = 110; block_iq1_s = fp16 + 32 + 16 = 50;
// block_iq1_m = 32 + 16 + 8 = 56; block_tq1_0 = fp16 + 4 + 48 = 54; block_tq2_0 = fp16 + 64 = 66; block_mxfp4
// = 1 B E8M0 + 16 B = 17 per 32; plain integer and float types their width.
const GgmlType kTypes[] = {
    {"f32", 1, 4},
    {"f16", 1, 2},
    {"bf16", 1, 2},
    {"q8_0", 32, 34},
    {"q6_k", 256, 210},
    {"q5_k", 256, 176},
    {"q5_1", 32, 24},
    {"q5_0", 32, 22},
    {"q4_k", 256, 144},
    {"q4_1", 32, 20},
    {"q4_0", 32, 18},
    {"q3_k", 256, 110},
    {"q2_k", 256, 84},
    {"iq4_xs", 256, 136},
    {"iq4_nl", 32, 18},
    {"q8_1", 32, 36},
    {"q8_k", 256, 292},
    {"iq2_xxs", 256, 66},
    {"iq2_xs", 256, 74},
    {"iq2_s", 256, 82},
    {"iq3_xxs", 256, 98},
    {"iq3_s", 256, 110},
    {"iq1_s", 256, 50},
    {"iq1_m", 256, 56},
    {"tq1_0", 256, 54},
    {"tq2_0", 256, 66},
    {"mxfp4", 32, 17},
    {"i8", 1, 1},
    {"i16", 1, 2},
    {"i32", 1, 4},
    {"i64", 1, 8},
    {"f64", 1, 8},
};

const GgmlType& T(const char* name) { return *ggml_type(name); }

// The ftype's default tensor type (llama-quant.cpp, llama_model_quantize_impl: the switch on ftype), the
// table's `ggml_base` (weight_format_table.cpp).
const GgmlType& gguf_default(const std::string& ftype) {
    const WeightFormat* w = find_weight_format("gguf-" + ftype);
    return T(w && *w->ggml_base ? w->ggml_base : "f16");
}

// llama-quant.cpp tensor_type_fallback: a row length the block does not divide takes a compatible type.
const GgmlType& fallback(const GgmlType& t, i64 cols) {
    if (cols % t.block_weights == 0) return t;
    const std::string n = t.name;
    const GgmlType* r = nullptr;
    if (n == "iq4_xs") r = &T("iq4_nl");
    else if (n == "q2_k" || n == "q3_k") r = &T("q4_0");
    else if (n == "q4_k") r = &T("q5_0");
    else if (n == "q5_k") r = &T("q5_1");
    else if (n == "q6_k") r = &T("q8_0");
    if (!r || cols % r->block_weights != 0) return T("f16");
    return *r;
}

// use_more_bits (llama-quant.cpp): the first and last eighth of the layers and every third one between.
bool use_more_bits(i64 i, i64 n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

}  // namespace

// The tests through which gguf_tensor_type's choice depends on the layer index i of n: i < 2
// (i_attention_wv), i < n/16, i < n/8 and use_more_bits. Layers of one class get the same types.
int gguf_layer_class(i64 i, i64 n) {
    return (i < 2 ? 1 : 0) | (i < n / 16 ? 2 : 0) | (i < n / 8 ? 4 : 0) | (use_more_bits(i, n) ? 8 : 0);
}

const GgmlType* ggml_type(std::string_view name) {
    for (const auto& t : kTypes)
        if (name == t.name) return &t;
    return nullptr;
}

double ggml_tensor_bytes(const GgmlType& t, i64 rows, i64 cols) {
    const double blocks = std::ceil(static_cast<double>(cols) / t.block_weights);
    return static_cast<double>(rows) * blocks * t.block_bytes;
}

// llama_tensor_get_type_impl of llama.cpp (src/llama-quant.cpp @007dbbf3) for the ftypes we offer.
const GgmlType& gguf_tensor_type(const GgufContext& c, const std::string& role, i64 i, i64 cols) {
    const std::string& f = c.ftype;
    const GgmlType& base = gguf_default(f);
    if (std::string(base.name) == "f16") return base;
    const GgmlType* t = &base;
    const bool falcon = c.arch == "falcon";
    const i64 n = c.n_layer;
    if (role == "output" || (c.tied_embeddings && role == "token_embd")) {
        // Output head: Q8_0 for Falcon or a row length the block does not divide, else Q6_K (Q8_0 stays).
        if (falcon || cols % base.block_weights != 0) t = &T("q8_0");
        else if (std::string(base.name) != "q8_0") t = &T("q6_k");
        return fallback(*t, cols);
    }
    if (role == "token_embd") return fallback(*t, cols);
    if (role == "attn_qkv") {
        // A fused qkv (GPT-NeoX, Falcon, Phi-3) has a branch of its own, after the attn_v one: Q3_K_M -> Q4_K,
        // Q4_K_M -> Q5_K, Q5_K_M -> Q6_K, the other types keep the default (`name.find("attn_qkv.weight")`).
        // llama.cpp's CI log of Pythia-2.8B (build 4935, tests/data/llamacpp_buffers.json) shows it: Q4_K_M
        // has 32 q5_K tensors (one attn_qkv per layer), Q2_K has attn_qkv in q2_K.
        if (f == "q3_k_m") t = &T("q4_k");
        else if (f == "q4_k_m") t = &T("q5_k");
        else if (f == "q5_k_m") t = &T("q6_k");
        return fallback(*t, cols);
    }
    if (role == "attn_v" || role == "attn_kv_b") {
        if (f == "q2_k") t = &T(c.n_gqa >= 4 ? "q4_k" : "q3_k");
        else if (f == "q3_k_m") t = &T(i < 2 ? "q5_k" : "q4_k");  // i_attention_wv < 2
        else if (f == "iq4_xs" && c.n_gqa >= 4) t = &T("q5_k");
        else if ((f == "q4_k_m" || f == "q5_k_m") && use_more_bits(i, n)) t = &T("q6_k");
        // LLM_TYPE_70B: 8 heads share attn_v, so it gets more bits at negligible size.
        if (c.type_70b && (std::string(t->name) == "q3_k" || std::string(t->name) == "q4_k")) t = &T("q5_k");
        if (c.n_expert == 8) t = &T("q8_0");
        return fallback(*t, cols);
    }
    if (role == "attn_k") {
        if (c.n_expert == 8) t = &T("q8_0");
        return fallback(*t, cols);
    }
    if (role == "ffn_down") {
        if (f == "q2_k") t = &T("q3_k");
        else if (f == "q3_k_m")
            t = &T(i < n / 16 ? "q5_k" : (!falcon || use_more_bits(i, n)) ? "q4_k"
                                                                          : "q3_k");
        else if (f == "q4_k_m") {
            if (falcon) t = &T(i < n / 16 ? "q6_k" : use_more_bits(i, n) ? "q5_k"
                                                                         : "q4_k");
            else if (use_more_bits(i, n)) t = &T("q6_k");
        } else if (f == "iq4_xs" && i < n / 8) {
            t = &T("q5_k");  // without an importance matrix
        } else if (f == "q5_k_m" && use_more_bits(i, n)) {
            t = &T("q6_k");
        }
        return fallback(*t, cols);
    }
    if (role == "attn_output") {
        if (!falcon) {
            if (c.n_expert == 8) {
                if (f == "q2_k" || f == "q3_k_m" || f == "q4_k_m" || f == "iq4_xs") t = &T("q5_k");
            } else if (f == "q2_k") {
                t = &T("q3_k");
            } else if (f == "q3_k_m") {
                t = &T("q4_k");
            }
        }
        return fallback(*t, cols);
    }
    return fallback(*t, cols);
}

std::string gguf_role(const ModelSpec& m, const ParamGroup& g) {
    // llama.cpp's tensor names (llama-arch.cpp LLM_TENSOR_NAMES) by the role of our tensor. The gate
    // projections take the ffn_up rules (llama_tensor_get_type treats ffn_gate and ffn_up alike for the
    // file types we model); MLA's low-rank q_a/q_b/kv_a fall under its default rule.
    switch (g.role) {
        case Role::lm_head:
            return "output";
        case Role::embed:
            return g.rows == m.vocab ? "token_embd" : "other";
        case Role::router:
            return "router";
        case Role::v:
            return "attn_v";
        case Role::qkv:
            return "attn_qkv";
        case Role::kv_b:
            return "attn_kv_b";
        case Role::k:
            return "attn_k";
        case Role::q:
            return "attn_q";
        case Role::o:
            return "attn_output";
        case Role::down:
            return "ffn_down";
        case Role::gate:
        case Role::up:
        case Role::gate_up:
        case Role::pooler:
            return "ffn_up";
        case Role::q_a:
        case Role::q_b:
        case Role::kv_a:
        case Role::norm:
        case Role::vision:
            return "other";
        case Role::ssm_in:
            return "ssm_in";
        case Role::ssm_out:
            return "ssm_out";
    }
    return "other";
}

}  // namespace vramcalc::detail
