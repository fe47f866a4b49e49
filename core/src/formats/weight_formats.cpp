#include "formats/weight_formats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "formats/recipes.hpp"

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

// The tests through which gguf_tensor_type's choice depends on the layer index i of n: i < 2
// (i_attention_wv), i < n/16, i < n/8 and use_more_bits. Layers of one class get the same types.
int layer_class(i64 i, i64 n) {
    return (i < 2 ? 1 : 0) | (i < n / 16 ? 2 : 0) | (i < n / 8 ? 4 : 0) | (use_more_bits(i, n) ? 8 : 0);
}

std::string fmt_params(double n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fB", n / 1e9);
    return buf;
}

}  // namespace

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

double WeightBytes::total() const {
    double t = input + output;
    for (double l : layers) t += l;
    return t;
}

namespace {

// The stored bytes of one tensor in a format, tallying the quantised parameters and GGUF's type mix.
struct TensorCoster {
    const ModelSpec& m;
    const std::string& f;
    i64 group_size = 128;
    WeightBytes& w;
    bool* ok = nullptr;
    bool gguf = false, gptq = false, awq = false, ct_pack = false, asymmetric = false;
    double plain = 0, other = 2, bits = 4;
    bool head_quantized = false;
    GgufContext gc{};
    std::map<std::string, double> mix{};

    // GGUF: llama.cpp's type for this tensor at layer i; `k` tensors of this kind are costed at once.
    double gguf_bytes(const ParamGroup& g, i64 i, double k) {
        const double n = static_cast<double>(g.rows) * static_cast<double>(g.cols);
        const double rows = static_cast<double>(g.rows);
        // 1-D tensors (norms, biases) stay F32 (llama-quant.cpp quantises only 2-D/3-D weights; the
        // converter writes 1-D tensors as F32). Routers (ffn_gate_inp) are never quantised.
        const double bias = g.bias ? rows * 4.0 : 0.0;
        if (g.cols <= 1) {
            mix["f32"] += rows * k;
            return rows * 4.0 + bias;
        }
        const std::string role = gguf_role(m, g);
        const GgmlType& t = role == "router" ? T("f32") : gguf_tensor_type(gc, role, std::max<i64>(0, i), g.cols);
        mix[t.name] += n * k;
        if (std::string(t.name) != "f32" && std::string(t.name) != "f16") w.quantized_params += n * k;
        return ggml_tensor_bytes(t, g.rows, g.cols) + bias;
    }

    // Bytes of one tensor of group g at decoder layer i (i < 0: not in a layer).
    double operator()(const ParamGroup& g, i64 i, double k) {
        if (gguf) return gguf_bytes(g, i, k);
        const double n = static_cast<double>(g.rows) * static_cast<double>(g.cols);
        const double rows = static_cast<double>(g.rows);
        if (plain > 0) return static_cast<double>(g.numel_each()) * plain;
        const double bias = g.bias ? rows * other : 0.0;
        // Vision towers stay 16-bit in quantised checkpoints (vLLM builds Llama 4's vision_model and projector
        // with quant_config=None, vllm/model_executor/models/mllama4.py; FP8 checkpoints list the tower as ignored).
        const bool head = g.category == ParamCategory::lm_head;
        // The weights are the model's own pre-quantised checkpoint (config.json's quantization_config): its
        // exclusion list says which tensors stay 16-bit (checkpoint_16bit of count). Otherwise a family whose
        // published fp8 checkpoints leave some linears in 16 bits marks them (fp8_keeps_16bit).
        const bool own = !m.quant.format.empty() && m.quant.format == f;
        const bool fp8 = is_fp8_format(f);
        const bool quantised = g.is_linear && (!head || head_quantized) && g.category != ParamCategory::router &&
                               g.category != ParamCategory::vision && !(!own && fp8 && g.fp8_keeps_16bit);
        const double dense = static_cast<double>(g.numel_each()) * other;
        if (!quantised) return dense;
        // The share of this group's tensors the checkpoint quantised (1 unless its exclusion list names some).
        const double share = own && g.count > 0 ? 1.0 - static_cast<double>(std::min(g.checkpoint_16bit, g.count)) / static_cast<double>(g.count) : 1.0;
        if (share <= 0) return dense;
        w.quantized_params += n * k * share;
        double& largest = head ? w.quantized_head : w.largest_layer_linear;
        largest = std::max(largest, n);
        double q = 0;
        // A group the checkpoint stores in a format of its own beside the main one (DeepSeek-V4's FP4 experts, a
        // mixed-format config's second config group): fp8*, nvfp4 or mxfp4.
        if (own && !g.checkpoint_format.empty()) q = quantized_linear_bytes(g.checkpoint_format, g.rows, g.cols);
        else if (gptq || awq) q = packed_linear_bytes(gptq, bits, group_size, g.rows, g.cols);
        else if (ct_pack) q = ct_packed_linear_bytes(bits, group_size, asymmetric, g.rows, g.cols);
        else q = quantized_linear_bytes(f, g.rows, g.cols);  // fp8*, int8, nf4, nf4-dq, mxfp4, nvfp4 (recipes.cpp)
        if (q < 0) {
            if (ok) *ok = false;
            return n * 2.0 + bias;
        }
        return share * (q + bias) + (1.0 - share) * dense;
    }
};

}  // namespace

double packed_linear_bytes(bool gptq, double bits, i64 group_size, i64 rows_, i64 cols_) {
    // AutoGPTQ QuantLinear: qweight int32 [in*bits/32, out], qzeros int32 [groups, out*bits/32],
    // scales fp16 [groups, out], g_idx int32 [in]. AutoAWQ WQLinear_GEMM: qweight int32
    // [in, out*bits/32], qzeros int32 [groups, out*bits/32], scales fp16 [groups, out], no g_idx.
    const double rows = static_cast<double>(rows_), cols = static_cast<double>(cols_);
    const double groups = group_size > 0 ? std::ceil(cols / static_cast<double>(group_size)) : 1.0;
    const double per_int32 = 32.0 / bits;
    const double qweight = gptq ? std::ceil(cols / per_int32) * rows * 4.0 : std::ceil(rows / per_int32) * cols * 4.0;
    const double qzeros = groups * std::ceil(rows / per_int32) * 4.0;
    const double scales = groups * rows * 2.0;
    const double g_idx = gptq ? cols * 4.0 : 0.0;
    return qweight + qzeros + scales + g_idx;
}

double ct_packed_linear_bytes(double bits, i64 group_size, bool asymmetric, i64 rows_, i64 cols_) {
    // compressed-tensors pack-quantized (src/compressed_tensors/compressors/quantized_compressors/pack_quantized.py,
    // compression_param_info, as the index holds it: find_string id 1716642038): weight_packed int32 [rows,
    // ceil(cols x bits / 32)], weight_shape int32 [2], and for asymmetric group/channel schemes weight_zero_point
    // packed in int32 [ceil(rows x bits / 32), groups]; weight_scale [rows, groups] in the model's dtype (bf16).
    const double rows = static_cast<double>(rows_), cols = static_cast<double>(cols_);
    const double groups = group_size > 0 ? std::ceil(cols / static_cast<double>(group_size)) : 1.0;
    const double per_int32 = 32.0 / bits;
    const double packed = rows * std::ceil(cols / per_int32) * 4.0;
    const double zeros = asymmetric ? std::ceil(rows / per_int32) * groups * 4.0 : 0.0;
    return packed + rows * groups * 2.0 + 8.0 + zeros;
}

WeightBytes weight_bytes(const ModelSpec& m, const std::string& f, i64 group_size, bool* ok, bool head_quantized) {
    WeightBytes w;
    if (ok) *ok = true;
    const i64 L = std::max<i64>(1, m.layers);
    w.layers.assign(static_cast<std::size_t>(L), 0.0);
    const double plain = plain_dtype_bytes(f);
    const double other = unquantized_bytes(f);  // unquantised tensors keep the checkpoint's 16 bits
    const WeightFormat* row = find_weight_format(f);
    const bool gguf = is_gguf(f);
    GgufContext gc;
    if (gguf) {
        gc.ftype = gguf_ftype(f);
        gc.arch = m.traits.gguf_arch;
        gc.n_layer = L;
        gc.n_gqa = m.kv_heads > 0 ? std::max<i64>(1, m.heads / m.kv_heads) : 1;
        gc.n_expert = m.moe.experts;
        gc.tied_embeddings = m.tied_embeddings;
        // llama-model.cpp: an 80-layer Llama with GQA is LLM_TYPE_70B; so is an 80-layer Qwen2.
        gc.type_70b = L == 80 && ((gc.arch == "llama" && m.kv_heads < m.heads) || gc.arch == "qwen2");
    }
    const bool gptq = row && row->layout == WeightLayout::gptq_group, awq = row && row->layout == WeightLayout::awq_group;
    const bool ct_pack = row && row->layout == WeightLayout::ct_pack_group;
    const bool asymmetric = m.quant.format == f && m.quant.asymmetric;
    const double bits = row ? row->bits : 4;
    TensorCoster tensor_bytes{m, f, group_size, w, ok, gguf, gptq, awq, ct_pack, asymmetric, plain, other, bits, head_quantized, gc, {}};
    for (const auto& g : m.params) {
        const double count = static_cast<double>(g.count);
        const bool layer = g.layer_stack == 0 && g.category != ParamCategory::embeddings &&
                           g.category != ParamCategory::lm_head && g.count > 1;
        if (!layer) {
            const double b = tensor_bytes(g, -1, count) * count;
            if (g.category == ParamCategory::lm_head || (g.category == ParamCategory::norms && g.count == 1)) w.output += b;
            else w.input += b;
            continue;
        }
        // Spread the group over the decoder layers (count is layers x tensors per layer; MoE stacks with
        // dense first layers spread evenly, an approximation for the per-layer type choice only).
        // gguf_tensor_type depends on the layer index only through four tests (layer_class), so each class
        // is costed once, with the weight of all its layers, instead of once per layer (a 10,000-layer
        // model is 16 calls, not 70,000). Other formats do not depend on the layer at all: one class.
        const double per_layer = count / static_cast<double>(L);
        auto cls = [&](i64 i) { return gguf ? layer_class(i, L) : 0; };
        std::array<i64, 16> members{}, first{};
        for (i64 i = 0; i < L; ++i)
            if (members[cls(i)]++ == 0) first[cls(i)] = i;
        std::array<double, 16> bytes{};
        for (int c = 0; c < 16; ++c)
            if (members[c] > 0) bytes[c] = tensor_bytes(g, first[c], per_layer * static_cast<double>(members[c]));
        for (i64 i = 0; i < L; ++i) w.layers[static_cast<std::size_t>(i)] += per_layer * bytes[cls(i)];
    }
    for (auto& [t, n] : tensor_bytes.mix) w.gguf_mix.emplace_back(t, n);
    if (gguf && w.quantized_params > 0) {
        std::string s;
        for (const auto& [t, n] : w.gguf_mix) s += (s.empty() ? "" : ", ") + std::string(t);
        w.detail = "GGUF " + gguf_ftype(f) + " (llama.cpp type mix: " + s + "; 1-D tensors F32)";
    } else if (w.quantized_params > 0) {
        w.detail = fmt_params(w.quantized_params) + " params in " + f + " linear layers, the rest 16-bit";
        if (m.quant.format == f && !m.quant.note.empty()) w.detail += " (" + m.quant.note + ")";
    }
    return w;
}

double nominal_bytes_per_param(const std::string& f) {
    const WeightFormat* w = find_weight_format(f);
    return w ? w->bits / 8.0 : 2.0;  // a name not in the table: 16 bit, as weight_bytes counts it
}

}  // namespace vramcalc::detail
