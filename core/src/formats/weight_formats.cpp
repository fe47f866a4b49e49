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

std::string fmt_params(double n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fB", n / 1e9);
    return buf;
}

}  // namespace

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
        const GgmlType& t = role == "router" ? *ggml_type("f32") : gguf_tensor_type(gc, role, std::max<i64>(0, i), g.cols);
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
        auto cls = [&](i64 i) { return gguf ? gguf_layer_class(i, L) : 0; };
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
