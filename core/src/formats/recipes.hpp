// Internal: bytes per parameter of each training recipe and storage format.
#pragma once

#include <string>

#include "vramcalc/model.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// Bytes per trainable (or frozen) parameter for a precision recipe as a framework implements it.
struct Recipe {
    double weight = 4;  // the model's own parameters
    double master = 0;  // a separate fp32 master copy (DeepSpeed/Megatron mixed precision)
    double grad = 4;    // gradients of trainable parameters
    double state = 4;   // one optimizer state element
    std::string note;
};
Recipe training_recipe(Precision p, Framework f);

// Optimizer-state bytes for a set of trainable tensors.
double optimizer_bytes_per_param(Optimizer o, double state_bytes);
// bitsandbytes' paged optimizers keep their states in CUDA unified memory (cudaMallocManaged): outside torch's
// counters, and paged to host RAM when the GPU is full (runtime.cpp, spill_paged_states).
inline bool paged_states(Optimizer o) { return o == Optimizer::paged_adamw_8bit; }

// Bytes of a quantized nn.Linear weight in a per-tensor format (fp8, fp8-channel, fp8-block, int8, nf4,
// nf4-dq: the QLoRA bases and the simple inference formats; weight_format_table.hpp's layout) for a tensor
// with `rows` outputs and `cols` inputs. Returns <0 for any other
// format (GPTQ/AWQ packing and GGUF's per-tensor mix are weight_formats.cpp's).
double quantized_linear_bytes(const std::string& format, i64 rows, i64 cols);

// The format name of a QLoRA base (nf4, nf4-dq, gptq-int4, awq-int4; int8 otherwise).
const char* qlora_format(Quantization q);

// bitsandbytes' 4-bit matmul on more than one row (MatMul4Bit.forward, bitsandbytes 0.41
// autograd/_functions.py: F.dequantize_4bit(B, state).to(A.dtype)) dequantises the weight to the dtype it
// was quantised from, then casts it to the input's: 16-bit copies of the weight that exist at once.
// Lightning's plugin (LitGPT) quantises from fp16 (_Linear4bit._quantize_weight: `.to("cuda", torch.half)`),
// so a bf16 run holds two; transformers quantises from the compute dtype: one. (One-row decode takes
// gemv_4bit and dequantises nothing.)
inline double bnb_dequant_copies(Framework f, bool compute_fp16) { return f == Framework::litgpt && !compute_fp16 ? 2.0 : 1.0; }

// A QLoRA base that is a pre-quantised GPTQ / AWQ checkpoint (packed int4, fp16 scales per group).
inline bool packed_checkpoint(Quantization q) { return q == Quantization::gptq_int4 || q == Quantization::awq_int4; }

// Stored bytes of one quantised linear of a QLoRA base (bias excluded): quantized_linear_bytes for the
// bitsandbytes formats, weight_formats.cpp's packed_linear_bytes for GPTQ / AWQ with `group_size`.
double qlora_linear_bytes(Quantization q, i64 group_size, i64 rows, i64 cols);

// Bytes per element of a format storing every tensor alike (fp32, bf16, fp16, gguf-f16), or 0.
double plain_dtype_bytes(const std::string& format);

}  // namespace vramcalc::detail
