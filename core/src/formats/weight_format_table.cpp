#include "formats/weight_format_table.hpp"

namespace vramcalc::detail {
namespace {

using WK = WeightKind;
using WL = WeightLayout;

// Nominal bits: the stored width of a quantised weight before scales (GGUF: its ftype's base type, so
// Q4_K_M counts 4 although Q4_K blocks hold 4.5 bits and some tensors take Q6_K). Unquantised tensors
// (embeddings, norms, routers, vision towers, the lm_head outside LitGPT's bitsandbytes plugin) keep the
// checkpoint's 16 bits; fp32 keeps 32. The byte rule of each layout is weight_formats.cpp's.
constexpr WeightFormat kFormats[] = {
    {"fp32", 32, WK::floating, WL::dense, 4, 4, ""},
    {"bf16", 16, WK::floating, WL::dense, 2, 2, ""},
    {"fp16", 16, WK::floating, WL::dense, 2, 2, ""},
    {"fp8", 8, WK::fp8, WL::tensor_scale, 0, 2, ""},
    {"fp8-channel", 8, WK::fp8, WL::channel_scale, 0, 2, ""},
    {"fp8-block", 8, WK::fp8, WL::block_128, 0, 2, ""},
    {"int8", 8, WK::int8, WL::row_scale, 0, 2, ""},
    {"nf4", 4, WK::nf4, WL::block_64, 0, 2, ""},
    {"nf4-dq", 4, WK::nf4, WL::block_64_dq, 0, 2, ""},
    {"gptq-int4", 4, WK::packed, WL::gptq_group, 0, 2, ""},
    {"awq-int4", 4, WK::packed, WL::awq_group, 0, 2, ""},
    {"gptq-int8", 8, WK::packed, WL::gptq_group, 0, 2, ""},
    {"awq-int8", 8, WK::packed, WL::awq_group, 0, 2, ""},
    // Pre-quantised checkpoints read from their config.json (model/quant_config.cpp): gpt-oss's MXFP4 experts,
    // NVIDIA ModelOpt / compressed-tensors NVFP4, compressed-tensors W4A16 (pack-quantized int4).
    {"mxfp4", 4, WK::fp4, WL::mx_block_32, 0, 2, ""},
    {"nvfp4", 4, WK::fp4, WL::nv_block_16, 0, 2, ""},
    {"w4a16", 4, WK::int_group, WL::ct_pack_group, 0, 2, ""},
    // GGUF: 1-D tensors are F32 and the rest follow llama.cpp's per-tensor rules, so `unquantized_bytes`
    // is only the compute dtype; gguf-f16's `dense_bytes` is what the rule of thumb counts.
    {"gguf-f16", 16, WK::gguf, WL::ggml_blocks, 2, 2, "f16"},
    {"gguf-q8_0", 8, WK::gguf, WL::ggml_blocks, 0, 2, "q8_0"},
    {"gguf-q6_k", 6, WK::gguf, WL::ggml_blocks, 0, 2, "q6_k"},
    {"gguf-q5_k_m", 5, WK::gguf, WL::ggml_blocks, 0, 2, "q5_k"},
    {"gguf-q5_0", 5, WK::gguf, WL::ggml_blocks, 0, 2, "q5_0"},
    {"gguf-q4_k_m", 4, WK::gguf, WL::ggml_blocks, 0, 2, "q4_k"},
    {"gguf-q4_0", 4, WK::gguf, WL::ggml_blocks, 0, 2, "q4_0"},
    {"gguf-q3_k_m", 3, WK::gguf, WL::ggml_blocks, 0, 2, "q3_k"},
    {"gguf-q2_k", 2, WK::gguf, WL::ggml_blocks, 0, 2, "q2_k"},
    {"gguf-iq4_xs", 4, WK::gguf, WL::ggml_blocks, 0, 2, "iq4_xs"},
};

bool kind_is(std::string_view f, WeightKind k) {
    const WeightFormat* w = find_weight_format(f);
    return w && w->kind == k;
}

}  // namespace

const WeightFormat* find_weight_format(std::string_view name) {
    for (const auto& f : kFormats)
        if (name == f.name) return &f;
    return nullptr;
}

const std::vector<std::string>& weight_format_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& f : kFormats) v.emplace_back(f.name);
        return v;
    }();
    return names;
}

bool is_float_format(std::string_view f) { return kind_is(f, WK::floating); }
bool is_fp8_format(std::string_view f) { return kind_is(f, WK::fp8); }
bool is_bnb(std::string_view f) { return kind_is(f, WK::int8) || kind_is(f, WK::nf4); }
bool is_gguf(std::string_view f) { return kind_is(f, WK::gguf); }
bool is_packed(std::string_view f) { return kind_is(f, WK::packed); }
bool takes_group_size(std::string_view f) { return kind_is(f, WK::packed) || kind_is(f, WK::int_group); }

std::string gguf_ftype(std::string_view f) {
    constexpr std::string_view prefix = "gguf-";
    return is_gguf(f) ? std::string(f.substr(prefix.size())) : std::string();
}

double unquantized_bytes(std::string_view f) {
    const WeightFormat* w = find_weight_format(f);
    return w ? w->unquantized_bytes : 2.0;
}

}  // namespace vramcalc::detail
