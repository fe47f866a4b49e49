// Internal: the stored bytes of a model's weights in an inference format (fp8, bitsandbytes, GPTQ/AWQ,
// GGUF with llama.cpp's per-tensor type mix), split by where the tensors live (input embedding, each
// decoder layer, output head) so that engines can place layers on GPUs or the CPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/weight_format_table.hpp"  // is_bnb, is_gguf, is_fp8_format, ...
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

// A ggml tensor type: `block_bytes` bytes hold `block_weights` weights (ggml/src/ggml-common.h).
struct GgmlType {
    const char* name;
    int block_weights;
    int block_bytes;
};
const GgmlType* ggml_type(std::string_view name);  // "q8_0", "q6_k", "iq4_xs", "f16", ...

// Bytes of one 2-D ggml tensor of `rows` x `cols` (cols = ne[0], the quantised dimension) in a type.
double ggml_tensor_bytes(const GgmlType& t, i64 rows, i64 cols);

// The type llama.cpp's quantizer gives one tensor of a GGUF file made with `--ftype` (llama_tensor_get_type).
// `role`: "token_embd", "output", "attn_v", "attn_k", "attn_q", "attn_output", "ffn_down", "ffn_up",
// "ffn_gate", "other"; `i_layer` of `n_layer`. Includes the fallback for shapes a block does not divide.
struct GgufContext {
    std::string ftype;  // "q4_k_m", ...
    std::string arch;   // model_type ("falcon" changes some rules)
    i64 n_layer = 0, n_gqa = 1, n_expert = 0;
    bool tied_embeddings = false;
    bool type_70b = false;  // llama.cpp LLM_TYPE_70B (80-layer Llama-2/3 70B, Qwen2-72B)
};
const GgmlType& gguf_tensor_type(const GgufContext& c, const std::string& role, i64 i_layer, i64 cols);
// The class of layer i of n that gguf_tensor_type's choice depends on (layers of one class get the same types).
int gguf_layer_class(i64 i, i64 n);

// Where the weight bytes of a model live.
struct WeightBytes {
    double input = 0;            // input embedding(s) (and position embeddings)
    double output = 0;           // final norm and LM head (0 bytes of head when tied)
    std::vector<double> layers;  // per decoder layer (encoder stacks are counted in `input`)
    double total() const;
    double quantized_params = 0;                           // parameters stored in a quantised format
    double largest_layer_linear = 0;                       // weights of the largest quantised linear in a decoder layer
    double quantized_head = 0;                             // weights of the lm_head when it is quantised (else 0)
    std::vector<std::pair<std::string, double>> gguf_mix;  // GGUF: parameters per ggml type
    std::string detail;
};

// Stored bytes of one GPTQ (AutoGPTQ QuantLinear, `gptq`) or AWQ (AutoAWQ WQLinear_GEMM) linear of `rows`
// outputs and `cols` inputs at `bits` per weight, `group_size` inputs per scale/zero group (-1: one
// group), bias excluded: packed int32 qweight and qzeros, fp16 scales, GPTQ's int32 g_idx.
double packed_linear_bytes(bool gptq, double bits, i64 group_size, i64 rows, i64 cols);
// Stored bytes of one compressed-tensors pack-quantized linear (W4A16: `bits` 4) with scales per `group_size`
// inputs (-1: one per channel) and, when `asymmetric`, packed zero points; bias excluded.
double ct_packed_linear_bytes(double bits, i64 group_size, bool asymmetric, i64 rows, i64 cols);

// `format`: a `weights` value of the scenario; `group_size`: GPTQ/AWQ group (-1 = per output channel).
// Sets `ok` false for an unknown format. Unquantised tensors keep 16 bits (fp32 for "fp32"). The lm_head
// stays 16-bit (transformers' quantizers skip it) unless `head_quantized` (LitGPT's bitsandbytes plugin).
WeightBytes weight_bytes(const ModelSpec& m, const std::string& format, i64 group_size, bool* ok = nullptr,
                         bool head_quantized = false);

// Nominal bytes per parameter of a format (what the rule of thumb multiplies by): the table's bits / 8,
// 2 for bf16, 0.5 for 4-bit, GGUF by its base type's bits; 2 for a name not in the table.
double nominal_bytes_per_param(const std::string& format);

// The names of tensors as llama.cpp's quantizer sees them, from our HF module names.
std::string gguf_role(const ModelSpec& m, const ParamGroup& g);

}  // namespace vramcalc::detail
