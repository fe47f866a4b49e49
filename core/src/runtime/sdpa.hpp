// Internal: which kernel torch.nn.functional.scaled_dot_product_attention runs on an NVIDIA GPU, as PyTorch picks
// it (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp, select_sdp_backend), and what each keeps for backward.
// docs/methodology.md section 3, "SDPA's kernel".
#pragma once

#include <cstdint>
#include <string>

#include "vramcalc/gpu.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

enum class SdpaBackend { cudnn,
                         flash,
                         efficient,
                         math };
const char* to_string(SdpaBackend b);

// One SDPA call as the kernel checks see it.
struct SdpaCall {
    int dtype_bytes = 2;          // q, k, v: 2 (fp16 / bf16) or 4 (fp32)
    bool bf16 = true;             // with dtype_bytes 2: bfloat16 rather than float16
    std::int64_t head_dim = 128;  // q and k
    std::int64_t v_head_dim = 128;
    bool mask = false;  // an explicit attn_mask (transformers passes one for padding, sliding windows, ...)
    double dropout = 0;
    bool requires_grad = true;  // training (q, k or v needs a gradient)
};

// The call transformers' attention makes for `s` with q, k, v of `bytes` per element: the model's head dimensions,
// its attention dropout, and a mask where a sliding window shorter than the sequence must be applied (with no
// padding, transformers 5 passes none and lets SDPA's is_causal do it: masking_utils.py, sdpa_mask's
// allow_is_causal_skip). `training`: q, k and v need gradients.
SdpaCall sdpa_call(const Scenario& s, double bytes, bool training);

// Does a training step of `s` on `gpu` run attention sdpa on the math path? (training's compute dtype: fp32 for
// precision fp32, else 16-bit.) The activations then depend on the GPU, not only on the scenario.
bool training_sdpa_math(const Scenario& s, const GpuSpec& gpu);

// The kernel select_sdp_backend returns on `gpu` for `call` with PyTorch's default settings on today's wheels
// (torch 2.11, CUDA 13, cuDNN above 9.15). AMD GPUs run their own (AOTriton) flash / efficient kernels: flash
// unless the call needs the math path's dtypes.
SdpaBackend sdpa_backend(const GpuSpec& gpu, const SdpaCall& call);

// Bytes per token and per key position that SDPA keeps for backward beside its inputs and output, for `heads`
// query heads: the fused kernels keep an fp32 log-sum-exp per row (per token, not per key), counted by the
// caller; the math path keeps the softmax output (fp32: it upcasts 16-bit inputs) and, with dropout, the
// mask (1 B) and the dropped probabilities.
double sdpa_math_scores_per_token_key(const SdpaCall& call, double heads);
// Bytes per token of the math path's fp32 copies of q, k and v (scaled q and k, value upcast) that its
// matmuls keep, for `q_width` and `kv_width` elements per token (k and v expanded to every head).
double sdpa_math_inputs_per_token(const SdpaCall& call, double q_width, double kv_width);

}  // namespace vramcalc::detail
