// Internal: bytes per parameter of each training recipe and storage format.
#pragma once

#include <string>

#include "vramcalc/model.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// Bytes per trainable (or frozen) parameter for a precision recipe as a framework implements it.
struct Recipe {
    double weight = 4;   // the model's own parameters
    double master = 0;   // a separate fp32 master copy (DeepSpeed/Megatron mixed precision)
    double grad = 4;     // gradients of trainable parameters
    double state = 4;    // one optimizer state element
    std::string note;
};
Recipe training_recipe(Precision p, Framework f);

// Optimizer-state bytes for a set of trainable tensors.
double optimizer_bytes_per_param(Optimizer o, double state_bytes);

// Bytes of a quantized nn.Linear weight in a per-tensor format (fp8, int8, nf4, nf4-dq: the QLoRA bases
// and the simple inference formats) for a tensor with `rows` outputs and `cols` inputs. Returns <0 for any
// other format (GPTQ/AWQ packing and GGUF's per-tensor mix are weight_formats.cpp's).
double quantized_linear_bytes(const std::string& format, i64 rows, i64 cols);

// The quantized_linear_bytes format name of a QLoRA base (nf4, nf4-dq; int8 otherwise).
const char* qlora_format(Quantization q);

// Bytes per element of a 16/32-bit or 8-bit float format name, or 0 if not a plain dtype.
double plain_dtype_bytes(const std::string& format);

}  // namespace vramcalc::detail
