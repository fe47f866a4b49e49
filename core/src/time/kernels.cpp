// Kernel-by-kernel terms of a training step (time/kernels.hpp): the optimizer step, PEFT's DoRA weight norm,
// transformers' eager MoE expert loop, and the figures they share. docs/methodology.md, "Time", step time.
#include "time/kernels.hpp"

#include <algorithm>

#include "model/lora_targets.hpp"
#include "parallel/layout.hpp"
#include "time/speed.hpp"

namespace vramcalc::detail {

// - bandwidth_share 0.8: streaming kernels (copy, scale, add, triad) reach about 80 % of the datasheet's HBM
//   bandwidth on NVIDIA data-centre GPUs: BabelStream's published results, e.g. ~1.55 of 1.94 TB/s on A100
//   PCIe and ~2.6-2.9 of 3.35 TB/s on H100 SXM (Deakin et al., "Evaluating the performance of HPC-style
//   SYCL applications", and the BabelStream README results), the same share decode.cpp's fits find (62-72 %
//   for whole decode steps, which also pay launch gaps).
// - kernel_floor_s 5 us: the shortest a kernel occupies the GPU from one launch to the next in a stream of
//   launches: CUDA's launch overhead is "on the order of microseconds" per kernel (NVIDIA, "CUDA Graph Best
//   Practice for PyTorch", and Modal's GPU glossary, "CUDA Graph"); PyTorch's issue 161104 times a 1024-
//   element add at 1.1-1.3 us of GPU time; 5 us is the launch-to-launch spacing of back-to-back eager kernels.
// - eager_op_s 26 us per op per forward-equivalent pass: the launch floor of speed.cpp (1.3 ms per layer per
//   pass, fitted on Qwen-1's profile) over the ~50 eager ops of a Llama-style decoder layer in transformers'
//   modeling_llama.py (two RMSNorms of 8 ops each, q/k/v/o and three MLP linears, their views and
//   transposes, rotary embedding's 14, SDPA, the activation, the gate product, two residual adds): 1.3 ms
//   / 50 = 26 us. Backward runs in the autograd engine's C++ loop and is counted as speed.cpp counts it, two
//   passes. The bare floor of one eager op is lower (4.5 us for x + 1 without autograd, "Micro-optimizations
//   for the most micro of benchmarks", dev-discuss.pytorch.org); autograd, nn.Module hooks and autocast's
//   casts make up the rest.
// - backward_op_s 52 us: two eager_op_s, since speed.cpp's launch floor counts a backward as two
//   forward-equivalent passes.
// - matmul_share 0.8: even large GEMMs run below the datasheet peak: the maximum achievable matmul FLOPS
//   is about 80 % of it (Stas Bekman, ml-engineering, compute/accelerator/README.md, "Maximum Achievable
//   Matmul FLOPS": H100 SXM BF16 ~794 of 989 TFLOPS).
const KernelCosts& kernel_costs() {
    static const KernelCosts k{0.8, 5e-6, 26e-6, 52e-6, 0.8};
    return k;
}

namespace {

// Passes over the optimizer's per-parameter tensors per step, counting one read or one write of one tensor
// as one pass, from PyTorch's implementations (torch/optim/adam.py, `_multi_tensor_adam` and
// `_single_tensor_adam`, shared by AdamW; torch/optim/sgd.py; torch 2.x):
//  - AdamW foreach/for-loop: params *= 1 - lr wd (2), exp_avg.lerp_(grad) (3), exp_avg_sq *= beta2 (2),
//    exp_avg_sq.addcmul_(grad, grad) (4), denom = exp_avg_sq.sqrt() (2), / bias_correction2_sqrt (2),
//    + eps (2), params.addcdiv_(exp_avg, denom) (4): 21 passes, 9 ops.
//  - AdamW fused (`_fused_adamw_`, one kernel per tensor list): read param, grad, exp_avg, exp_avg_sq, write
//    param, exp_avg, exp_avg_sq: 7 passes, 1 op.
//  - SGD with momentum foreach: buf *= momentum (2), buf += grad (3), param -= lr buf (3): 8 passes, 3 ops;
//    plain SGD param -= lr grad: 3 passes, 1 op.
//  - Lion (lucidrains/lion-pytorch, one op chain per tensor): about 12 passes, 6 ops; Adafactor (factored
//    second moments: their row/column states are small): about 12 passes, 10 ops; 8-bit AdamW
//    (bitsandbytes' fused 8-bit kernel): read param, grad, two 1-byte states, write three: 7 passes, 1 op.
// HF Trainer also clips the gradients (max_grad_norm 1.0 by default: clip_grad_norm_ reads every gradient
// for the norm and scales it in place): 3 passes, 2 ops.
struct OptimizerPasses {
    double passes = 0, ops = 0;
};
OptimizerPasses optimizer_passes(const Scenario& s) {
    OptimizerPasses p;
    switch (s.optimizer) {
        case Optimizer::adamw:
            p = s.adamw_impl == AdamwImpl::fused ? OptimizerPasses{7, 1} : OptimizerPasses{21, 9};
            break;
        case Optimizer::adamw_8bit:
        case Optimizer::paged_adamw_8bit:
            p = {7, 1};
            break;
        case Optimizer::sgd:
            p = {3, 1};
            break;
        case Optimizer::sgd_momentum:
            p = {8, 3};
            break;
        case Optimizer::lion:
            p = {12, 6};
            break;
        case Optimizer::adafactor:
            p = {12, 10};
            break;
    }
    if (s.framework == Framework::hf) p = {p.passes + 3, p.ops + 2};
    return p;
}

}  // namespace

// The optimizer step, after backward and not overlapped with it: its passes over memory at streaming
// bandwidth, in the states' own width (fp32, or the parameters' dtype for a pure bf16/fp16 run, whose
// states torch creates like the parameters), against the launches it needs. foreach and fused launch per
// op over chunks of a tensor list (multi_tensor_apply: 65,536-element chunks, up to 320 blocks per launch,
// aten/src/ATen/native/cuda/MultiTensorApply.cuh), so their launches are few; the for-loop implementation
// launches each op once per tensor, which for models of many small tensors (CNNs, LoRA adapters) is
// the bound: ops x tensors x the eager op time.
double optimizer_step_seconds(const Scenario& s, double trainable_params, double trainable_tensors) {
    if (trainable_params <= 0) return 0;
    const OptimizerPasses p = optimizer_passes(s);
    const KernelCosts& k = kernel_costs();
    const bool half_states = s.precision == Precision::bf16 || s.precision == Precision::fp16;
    const bool lora = s.method == Method::lora || s.method == Method::qlora;
    const double width = half_states && !lora ? 2.0 : 4.0;  // PEFT's adapters are fp32 (model_states.cpp)
    const double bw = peak_bytes_per_s(s.gpu) * k.bandwidth_share;
    const double memory = bw > 0 ? p.passes * width * trainable_params / bw : 0;
    const bool per_tensor = s.optimizer == Optimizer::adamw ? s.adamw_impl == AdamwImpl::for_loop : false;
    const double chunks = trainable_params / (65536.0 * 320.0);
    const double launches = per_tensor ? p.ops * trainable_tensors : p.ops * std::max(1.0, chunks);
    return std::max(memory, launches * (per_tensor ? k.eager_op_s : k.kernel_floor_s));
}

double trainable_tensors(const Scenario& s) {
    const bool lora = s.method == Method::lora || s.method == Method::qlora;
    double n = 0;
    for (const auto& g : s.model.params) {
        if (!lora) n += static_cast<double>(g.count);
        else if (lora_targets(s.lora, g)) n += static_cast<double>(g.count) * (s.lora.use_dora ? 3.0 : 2.0);
    }
    return n;
}

// PEFT's DoRA (peft/tuners/lora/dora.py, DoraLinearLayer.forward, peft 0.12 and later): every forward of an
// adapted linear builds the adapted weight to take its row norms: x_eye = eye(in) through lora_A and lora_B
// (lora_weight, out x in), weight + scaling x lora_weight, its norm over each row, detached; then the
// magnitude over that norm rescales the base and adapter outputs. About 18 eager ops a call beyond plain
// LoRA's (eye, lora_A, lora_B and the transpose of the eye path; the cast, scale, add, norm and cast of
// get_weight_norm; detach, divide, view; the adapter path's lora_A, lora_B; and the four products and sums
// of result_dora), each at the eager op time, per forward-equivalent pass as speed.cpp counts them; and
// its bytes: the eye (in^2, written and read), the adapted weight written, scaled, added (reading the base
// weight) and read for the norm (about 7 x out x in), in the activation dtype.
DoraTime dora_seconds(const Scenario& s) {
    if (!s.lora.use_dora || (s.method != Method::lora && s.method != Method::qlora)) return {};
    const KernelCosts& k = kernel_costs();
    double linears = 0, elements = 0;
    for (const auto& g : s.model.params) {
        if (!lora_targets(s.lora, g)) continue;
        const double n = static_cast<double>(g.count);
        linears += n;
        elements += n * (7.0 * static_cast<double>(g.rows) * static_cast<double>(g.cols) +
                         2.0 * static_cast<double>(g.cols) * static_cast<double>(g.cols));
    }
    const double forwards = static_cast<double>(s.grad_accum) * (recomputes_layers(s.checkpointing) ? 2.0 : 1.0);
    const double passes = static_cast<double>(s.grad_accum) * (3.0 + (recomputes_layers(s.checkpointing) ? 1.0 : 0.0));
    const double bw = peak_bytes_per_s(s.gpu) * k.bandwidth_share;
    return {linears * 18.0 * k.eager_op_s * passes, bw > 0 ? forwards * elements * 2.0 / bw : 0};
}

// transformers' eager MoE blocks (e.g. MixtralSparseMoeBlock / the `eager` experts implementation, v4.x-5.x)
// find the experts that received tokens (`expert_hit`, a host sync), then loop over them: per expert
// torch.where over the routing mask, index the tokens, the gate/up projection, the activation, the product,
// the down projection, the routing weight, index_add_ into the output: about 9 eager ops per expert, each
// at the eager op time, per forward-equivalent pass. Experts hit = min(experts, tokens x top_k) per micro-
// batch. A grouped GEMM (grouped_mm, torchtitan, Megatron) runs all experts in one launch and pays none of it.
double moe_loop_seconds(const Scenario& s) {
    const MoeSpec& m = s.model.moe;
    if (m.experts <= 0 || (s.framework != Framework::hf && s.framework != Framework::deepspeed)) return 0;
    const double tokens = static_cast<double>(s.micro_batch) * static_cast<double>(s.seq_len);
    const double hit = std::min(static_cast<double>(m.experts), tokens * static_cast<double>(std::max<i64>(1, m.top_k)));
    const double layers = static_cast<double>(m.moe_layers > 0 ? m.moe_layers : s.model.layers);
    const double passes = static_cast<double>(s.grad_accum) * (3.0 + (recomputes_layers(s.checkpointing) ? 1.0 : 0.0));
    return layers * hit * 9.0 * kernel_costs().eager_op_s * passes;
}

// transformers' NewGELUActivation (activations.py: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 *
// pow(x, 3))))) runs 8 eager kernels forward, each reading and writing the MLP's width: pow 2 passes, the
// scale 2, the add 3, the scale 2, tanh 2, 1 + 2, 0.5 x 2, the product 3 (18); autograd runs their backwards:
// the product's two gradients 6, 0.5 x 2, tanh_backward 3, the scale 2, the scale 2, pow_backward (x^2, x 3,
// x grad) 7, and the sums of x's three gradients 6 (28). One GeLU kernel makes 2 passes forward and 3 back:
// 41 passes more per MLP and micro-batch, 16 more when checkpointing runs the forward again. Under autocast
// `pow` runs in fp32 (aten/src/ATen/autocast_mode.cpp, the CUDA fp32 list), and the ops after it promote to
// fp32, so the chain moves 4-byte elements unless the whole run is bf16/fp16. torch.compile fuses the chain.
double eager_gelu_seconds(const Scenario& s) {
    const ModelSpec& m = s.model;
    if (!m.traits.gelu_tanh_eager || s.compile || m.stack || (s.framework != Framework::hf && s.framework != Framework::deepspeed))
        return 0;
    const double bw = peak_bytes_per_s(s.gpu) * kernel_costs().bandwidth_share;
    if (bw <= 0) return 0;
    const double passes = 41.0 + (recomputes_layers(s.checkpointing) ? 16.0 : 0.0);
    const double width = s.precision == Precision::bf16 || s.precision == Precision::fp16 ? 2.0 : 4.0;
    const double elements = static_cast<double>(s.micro_batch) * static_cast<double>(s.seq_len) *
                            static_cast<double>(m.intermediate) * static_cast<double>(m.layers) /
                            static_cast<double>(std::max<std::int64_t>(1, s.tp));  // a tensor-parallel rank holds 1/tp of the width
    return static_cast<double>(s.grad_accum) * passes * width * elements / bw;
}

}  // namespace vramcalc::detail
