// Internal: the one table of inference weight formats (a scenario's `weights` value). Every reader asks
// it (find_weight_format and the predicates below) instead of testing the name's spelling; the scenario
// reader refuses a name not in it. The bytes of a whole model in a format are weight_formats.cpp's
// (weight_bytes), which dispatches on the row's `layout`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vramcalc::detail {

// What a format stores its quantised weights as.
enum class WeightKind {
    floating,   // fp32 / bf16 / fp16: every tensor in one dtype, nothing quantised
    fp8,        // e4m3 weights with fp32 scales (vLLM / compressed-tensors checkpoints)
    int8,       // bitsandbytes LLM.int8
    nf4,        // bitsandbytes 4-bit (NF4; FP4 is the same size)
    packed,     // GPTQ / AWQ integer weights packed in int32 with fp16 scales per group
    gguf,       // a llama.cpp GGUF file type (per-tensor ggml type mix)
    fp4,        // e2m1 weights with block scales (MXFP4, NVFP4: pre-quantised checkpoints)
    int_group,  // compressed-tensors pack-quantized integers (W4A16): int32-packed, 16-bit scales per group
};

// How the quantised linears are laid out (the byte rule weight_formats.cpp applies).
enum class WeightLayout {
    dense,          // bits / 8 bytes per element, no scales
    tensor_scale,   // fp8: + one fp32 scale per tensor
    channel_scale,  // fp8-channel: + one fp32 scale per output row
    block_128,      // fp8-block: + one fp32 scale per 128 x 128 block
    row_scale,      // LLM.int8: + one fp32 scale per output row (SCB)
    block_64,       // NF4: + one fp32 absmax per 64 weights
    block_64_dq,    // NF4 double-quantised: 8-bit absmax per 64 + fp32 per 256 blocks
    gptq_group,     // AutoGPTQ QuantLinear: qweight, qzeros, fp16 scales per group, int32 g_idx
    awq_group,      // AutoAWQ WQLinear_GEMM: the same without g_idx, packed along the outputs
    ggml_blocks,    // llama.cpp's per-tensor ggml block types (weight_formats.cpp gguf_tensor_type)
    mx_block_32,    // MXFP4: 4-bit e2m1 + one e8m0 byte per 32 inputs
    nv_block_16,    // NVFP4: 4-bit e2m1 + one e4m3 byte per 16 inputs + fp32 global and input scales
    ct_pack_group,  // compressed-tensors pack-quantized: int32-packed weights, bf16 scales per group, weight_shape
};

struct WeightFormat {
    const char* name;  // the `weights` value
    double bits;       // nominal bits per weight (the rule of thumb's; GGUF by its base type)
    WeightKind kind;
    WeightLayout layout;
    double dense_bytes;        // bytes per element when every tensor is stored alike (0: linears are quantised)
    double unquantized_bytes;  // bytes per element of what stays unquantised (embeddings, norms, lm_head, ...)
    const char* ggml_base;     // GGUF: the file type's default ggml tensor type ("q4_k" for q4_k_m), else ""
};

// The row of a `weights` value, or nullptr for a name not in the table.
const WeightFormat* find_weight_format(std::string_view name);
// Every name of the table, in the order the scenario's documentation lists them.
const std::vector<std::string>& weight_format_names();

// The predicates readers use (false for an unknown name).
bool is_float_format(std::string_view f);   // fp32 / bf16 / fp16
bool is_fp8_format(std::string_view f);     // fp8, fp8-channel, fp8-block
bool is_bnb(std::string_view f);            // bitsandbytes' int8, nf4, nf4-dq
bool is_gguf(std::string_view f);           // gguf-*
bool is_packed(std::string_view f);         // GPTQ / AWQ (group_size applies)
bool takes_group_size(std::string_view f);  // GPTQ / AWQ / W4A16: the scenario's group_size sets the scale groups
// GGUF's file type ("q4_k_m" for "gguf-q4_k_m"), "" for another format.
std::string gguf_ftype(std::string_view f);
// Bytes per element of the compute dtype the format's tensors are used in, and of whatever the format
// leaves unquantised: 4 for fp32, else 2.
double unquantized_bytes(std::string_view f);

}  // namespace vramcalc::detail
