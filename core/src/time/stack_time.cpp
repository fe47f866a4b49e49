// A layer stack's training step kernel by kernel (time/kernels.hpp): each layer's forward and backward
// kernels priced at the rate of what bounds them, plus the CPU time eager PyTorch takes to issue them.
#include <algorithm>
#include <string>

#include "time/kernels.hpp"
#include "time/peaks.hpp"
#include "time/speed.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {
namespace {

double elements(const std::vector<i64>& shape) {
    double n = 1;
    for (i64 d : shape) n *= static_cast<double>(d);
    return shape.empty() ? 0 : n;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Tensor passes a pointwise layer makes over memory in forward plus backward, in units of its output (E) and
// input (I) elements: one read or one write of a tensor is one pass. From the kernels PyTorch runs for each
// (aten/src/ATen/native/cuda/Normalization.cuh for batch norm's training path: a statistics pass over x,
// then y = (x - mean) * invstd * w + b; backward a reduction pass over dy and x, then dx from dy and x;
// layer_norm.cu: one fused forward, backward dx plus a gamma/beta reduction pass over dy and x; activations
// read x and write y, their backward reads dy and x (or y) and writes dx; add reads two and writes one, its
// gradient is passed on and summed where the skip branch joins; pooling reads its input and writes its
// output, backward the reverse plus the zero fill of dx).
struct Passes {
    double out = 0, in = 0;
};
Passes pointwise_passes(const std::string& t) {
    if (t == "batch_norm" || t == "batch_norm1d" || t == "batch_norm2d") return {8, 0};
    if (t == "layer_norm" || t == "group_norm") return {7, 0};
    if (t == "relu" || t == "gelu" || t == "silu" || t == "sigmoid" || t == "hardswish" || t == "hardsigmoid" ||
        t == "tanh" || t == "dropout")
        return {5, 0};
    if (t == "add") return {6, 0};
    if (t == "mul" || t == "layer_scale") return {7, 0};
    if (t == "geglu") return {10, 0};
    if (starts_with(t, "max_pool") || starts_with(t, "avg_pool") || starts_with(t, "adaptive_avg_pool") || t == "upsample")
        return {2, 3};
    if (t == "concat" || t == "class_token" || t == "position_embedding") return {4, 0};
    return {0, 0};  // views: flatten, identity, to_tokens, select_token, to_grid
}

bool is_matmul(const std::string& t) {
    return starts_with(t, "conv") || t == "linear" || t == "multi_head_attention" || t == "embedding";
}

// One matmul layer (a convolution as cuDNN's implicit GEMM, a linear, attention) forward + backward: each
// of its passes (forward, input gradient, weight gradient) is bounded by the larger of its FLOPs at the
// rate of its units, scaled by how much of a tensor-core tile its output channels fill, and its bytes.
double matmul_layer_seconds(const StackLayer& l, double in_elems, double batch, double act_bytes, bool trains,
                            double rate, double bw) {
    const double out = elements(l.out_shape) * batch;
    const double in = in_elems * batch;
    double weights = 0;
    for (const auto& p : l.params) weights += static_cast<double>(p.count);
    const double channels = l.out_shape.empty() ? 1 : static_cast<double>(l.out_shape.front());
    const double reduction = channels > 0 ? l.flops / 2.0 / std::max(1.0, elements(l.out_shape)) : 0;  // K of the GEMM
    // Tile fill: CUTLASS/cuDNN tensor-core GEMM tiles are 128 wide in N (output channels) and 32-64 deep in K
    // (cutlass/include/cutlass/gemm/device/default_gemm_configuration.h: ThreadblockShape 128x128x32 for
    // SM80 tensor-op GEMMs); a layer with fewer output channels or a shorter reduction leaves the rest of the
    // tile idle. Depthwise convolutions (K = kernel area, 9-25) do not use tensor cores at all: their FLOPs
    // are negligible and the pass is bounded by its bytes.
    const double fill = std::min(1.0, channels / 128.0) * std::min(1.0, reduction / 64.0);
    const double flops = l.flops * batch;
    const double passes = trains ? 3.0 : 2.0;  // forward, input gradient, (weight gradient)
    // Even a full tile runs below the datasheet peak: the maximum achievable matmul FLOPS of large GEMMs is
    // about 80 % of it (Stas Bekman, ml-engineering, compute/accelerator/README.md, "Maximum Achievable
    // Matmul FLOPS": H100 SXM BF16 ~794 of 989 TFLOPS).
    const double mm = reduction < 32 ? 0 : flops * passes / (0.8 * rate * std::max(fill, 1e-3));
    const double bytes = act_bytes * (in + out) * passes + weights * act_bytes * (trains ? 3.0 : 1.0);
    return std::max(mm, bytes / bw);
}

}  // namespace

StackTime stack_micro_batch_time(const Scenario& s) {
    StackTime t;
    if (!s.model.stack) return t;
    const KernelCosts& k = kernel_costs();
    const MatmulRates r = matmul_rates(s);
    const double bw = peak_bytes_per_s(s.gpu) * k.bandwidth_share;
    if (bw <= 0 || r.conv <= 0 || r.matmul <= 0) return t;
    const double batch = static_cast<double>(s.micro_batch);
    const double act_bytes = s.precision == Precision::fp32 ? 4.0 : 2.0;
    const bool lora = s.method == Method::lora || s.method == Method::qlora;
    double prev = elements(s.model.stack->input);
    double kernels = 0, ops = 0;
    for (const auto& l : s.model.stack->layers) {
        const double out = elements(l.out_shape);
        if (is_matmul(l.type)) {
            const bool trains = l.trainable && !lora;
            const double rate = starts_with(l.type, "conv") ? r.conv : r.matmul;
            t.matmul_s += matmul_layer_seconds(l, prev, batch, act_bytes, trains, rate, bw);
            kernels += trains ? 3 : 2;
            ops += 1;
        } else {
            const Passes p = pointwise_passes(l.type);
            if (p.out > 0 || p.in > 0) {
                t.pointwise_s += (p.out * out + p.in * prev) * batch * act_bytes / bw;
                kernels += 3;
                ops += 1;
            }
        }
        prev = out;
    }
    // Every kernel takes at least the launch floor on the GPU; eager PyTorch issues one op per layer in
    // forward and its autograd node in backward from the CPU, which the GPU waits on when its kernels are short.
    t.gpu_s = std::max(t.matmul_s + t.pointwise_s, kernels * k.kernel_floor_s);
    t.cpu_s = ops * (k.eager_op_s + k.backward_op_s);
    return t;
}

}  // namespace vramcalc::detail
