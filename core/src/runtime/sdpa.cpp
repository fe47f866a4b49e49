// SDPA's kernel choice, read from pytorch/pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp @001f694a
// (the checks torch 2.11 ships) and the math path from aten/src/ATen/native/transformers/attention.cpp @bc8cb280
// (_scaled_dot_product_attention_math).
#include "runtime/sdpa.hpp"

namespace vramcalc::detail {
namespace {

// The compute capability's major version, from the architecture the catalog names (Ampere sm80/86, Ada sm89,
// Hopper sm90, Blackwell sm100/120). The checks below only ask "at least sm80" and "sm90 or sm10x".
int sm_major(const GpuSpec& g) {
    if (g.arch == "blackwell") return 10;
    if (g.arch == "hopper") return 9;
    if (g.arch == "ampere" || g.arch == "ada") return 8;
    if (g.arch == "turing" || g.arch == "volta") return 7;
    if (g.arch == "pascal") return 6;
    return 8;  // an unnamed architecture: today's
}

// cuDNN attention comes first on sm90 and sm10x with cuDNN above 9.15 (check_prefer_cudnn_attention, which under
// CUDA 13 accepts any minor version). It takes fp16/bf16 on sm80 to sm121, masks, dropout in steps of 1/16, a
// head dimension that is a multiple of 8 and at most 256 on sm90/sm10x (check_cudnn_tensor_shapes with
// cuDNN > 9.22), and backward only for d <= 128, d_qk 192 with d_v 128, or 256 (check_cudnn_d256_bprop_head_dim).
bool cudnn_ok(int sm, const SdpaCall& c) {
    if (sm < 9 || sm > 10 || c.dtype_bytes != 2) return false;
    if (c.dropout * 16.0 != static_cast<double>(static_cast<long long>(c.dropout * 16.0))) return false;
    if (c.head_dim % 8 != 0 || c.v_head_dim % 8 != 0 || c.head_dim > 256 || c.v_head_dim > 256) return false;
    if (!c.requires_grad) return true;
    return (c.head_dim <= 128 && c.v_head_dim <= 128) || (c.head_dim == 192 && c.v_head_dim == 128) ||
           (c.head_dim == 256 && c.v_head_dim == 256);
}

// Flash attention: sm80 to sm121, fp16/bf16, no attn_mask (check_for_attn_mask), q, k and v of one head
// dimension of at most 256 (check_head_dim_size_flash). The sm86/89/120 limit on training with head_dim in
// (192, 224] is left out: the catalog's "ampere" and "blackwell" do not say which chip.
bool flash_ok(int sm, const SdpaCall& c) {
    return sm >= 8 && c.dtype_bytes == 2 && !c.mask && c.head_dim == c.v_head_dim && c.head_dim <= 256;
}

// Memory-efficient attention: sm50 to sm121, fp16/fp32 (and bf16 from sm80), masks and dropout; the head
// dimensions must be multiples of the GEMM alignment (minimum_gemm_alignment: 8 elements for 16-bit inputs on
// tensor cores, 4 for fp32 from sm80, 1 below).
bool efficient_ok(int sm, const SdpaCall& c) {
    if (sm < 5 || (c.dtype_bytes == 2 && c.bf16 && sm < 8)) return false;
    const bool tensor_cores = sm >= 8 || (sm >= 7 && c.dtype_bytes == 2);
    const std::int64_t align = tensor_cores ? (c.dtype_bytes == 2 ? 8 : 4) : (sm >= 8 ? 4 : 1);
    return c.head_dim % align == 0 && c.v_head_dim % align == 0;
}

}  // namespace

const char* to_string(SdpaBackend b) {
    switch (b) {
        case SdpaBackend::cudnn:
            return "cuDNN";
        case SdpaBackend::flash:
            return "flash";
        case SdpaBackend::efficient:
            return "memory-efficient";
        case SdpaBackend::math:
            return "math";
    }
    return "math";
}

SdpaCall sdpa_call(const Scenario& s, double bytes, bool training) {
    const ModelSpec& m = s.model;
    SdpaCall c;
    c.dtype_bytes = bytes >= 4 ? 4 : 2;
    c.bf16 = training ? s.precision == Precision::bf16 || s.precision == Precision::bf16_mixed : s.weights != "fp16";
    c.head_dim = m.head_dim;
    c.v_head_dim = m.v_head_dim > 0 ? m.v_head_dim : m.head_dim;
    const std::int64_t len = training ? s.seq_len : s.prompt_len + s.gen_len;
    c.mask = m.sliding_window > 0 && len > m.sliding_window;
    c.dropout = training ? m.attention_dropout : 0.0;
    c.requires_grad = training;
    return c;
}

bool training_sdpa_math(const Scenario& s, const GpuSpec& gpu) {
    const double bytes = s.precision == Precision::fp32 ? 4 : 2;
    return s.attention == Attention::sdpa && sdpa_backend(gpu, sdpa_call(s, bytes, true)) == SdpaBackend::math;
}

// select_sdp_backend walks priority_order and takes the first kernel whose checks pass; math always runs.
SdpaBackend sdpa_backend(const GpuSpec& gpu, const SdpaCall& call) {
    // ROCm: AOTriton's flash and memory-efficient kernels take fp16, bf16 and fp32 (aotriton_mem_efficient_dtypes).
    if (gpu.vendor == "amd") return call.dtype_bytes == 2 ? SdpaBackend::flash : SdpaBackend::efficient;
    const int sm = sm_major(gpu);
    if (cudnn_ok(sm, call)) return SdpaBackend::cudnn;
    if (flash_ok(sm, call)) return SdpaBackend::flash;
    if (efficient_ok(sm, call)) return SdpaBackend::efficient;
    return SdpaBackend::math;
}

// _scaled_dot_product_attention_math upcasts 16-bit q, k, v to fp32 (unless
// allow_fp16_bf16_reduction_math_sdp, off by default), scales q and k, and keeps for backward what its ops
// save: the matmul's scaled q and the scaled, expanded k; _safe_softmax's output; dropout's mask and output;
// the second matmul's probabilities and expanded v.
double sdpa_math_scores_per_token_key(const SdpaCall& call, double heads) {
    return heads * (4.0 + (call.dropout > 0 ? 1.0 + 4.0 : 0.0));
}
double sdpa_math_inputs_per_token(const SdpaCall&, double q_width, double kv_width) { return 4.0 * (q_width + 2.0 * kv_width); }

}  // namespace vramcalc::detail
