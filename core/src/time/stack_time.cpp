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

double weight_elements(const StackLayer& l) {
    double n = 0;
    for (const auto& p : l.params) n += static_cast<double>(p.numel_each() * p.count);
    return n;
}

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

// Eager ops a layer issues from Python per forward (each records an autograd node, which the backward runs),
// counted as kernel_costs().eager_op_s counts them: views and transposes included (its 26 us are a Llama
// layer's 1.3 ms over its ~50 ops, views among them). From the modules' code (torch 2.x):
//  - nn.MultiheadAttention (batch_first, need_weights=False, torch/nn/functional.py multi_head_attention_forward):
//    the input's transpose; _in_projection_packed's linear, unflatten, unsqueeze, transpose, squeeze,
//    contiguous and three selects; q, k, v each view + transpose, then view again for SDPA; SDPA; the output's
//    permute, contiguous, view; out_proj; view; the transpose back: 26.
//  - nn.BatchNorm2d in training: F.batch_norm and num_batches_tracked.add_(1) (torch/nn/modules/batchnorm.py);
//    the counter's add records no backward: 2 forward, 1 backward.
//  - ViT's class token (expand, cat), to_tokens (reshape, permute), to_grid (permute, reshape), geglu (chunk,
//    gelu, product): 2, 2, 2, 3; identity none; every other layer one.
struct EagerOps {
    double forward = 1, backward = 1;
};
EagerOps eager_ops(const std::string& t) {
    if (t == "identity") return {0, 0};
    if (t == "multi_head_attention") return {26, 26};
    if (t == "batch_norm" || t == "batch_norm1d" || t == "batch_norm2d") return {2, 1};
    if (t == "class_token" || t == "to_tokens" || t == "to_grid") return {2, 2};
    if (t == "geglu") return {3, 3};
    return {};
}

bool is_matmul(const std::string& t) {
    return starts_with(t, "conv") || t == "linear" || t == "multi_head_attention" || t == "embedding";
}

bool is_batch_norm(const std::string& t) { return t == "batch_norm" || t == "batch_norm1d" || t == "batch_norm2d"; }

// The share of the GPU's streaming rate a kernel of `threads` threads reaches. A memory-bound kernel's rate is
// its bytes in flight over the memory latency (Little's law; V. Volkov, "Understanding Latency Hiding on GPUs",
// UC Berkeley 2016, ch. 4), and a thread keeps about as many loads in flight whatever the launch, so the rate
// grows with the threads resident until the GPU is full (sm_count x max_threads_per_sm, the catalog's figures),
// where streaming kernels reach kernel_costs().bandwidth_share. 1 (no penalty) where the catalog gives no SMs.
double resident_share(const GpuSpec& g, double threads) {
    const double resident = static_cast<double>(g.sm_count) * static_cast<double>(g.max_threads_per_sm);
    if (resident <= 0) return 1.0;
    return std::clamp(threads / resident, 1e-3, 1.0);
}

// Extra seconds of one batch-norm layer (whole micro-batch of `elements` outputs of `width` bytes) beyond the
// 8 full-rate passes pointwise_passes() counts, by the backend PyTorch picks (aten/src/ATen/native/
// Normalization.cpp, _select_batch_norm_backend, torch 2.x): cuDNN unless the input or weight is bf16, or the
// input is fp16 with fp16 weights; so fp32 and fp16 autocast (fp32 weights) run cuDNN, bf16 and pure fp16 runs
// PyTorch's own kernels. Both on NCHW (PyTorch's default, contiguous) tensors:
//  - PyTorch's kernels (aten/src/ATen/native/cuda/Normalization.cuh): batch_norm_stats_cuda_template (statistics,
//    1 pass over x) and batch_norm_backward_cuda_template (the fused backward: a reduction over dy and x, then
//    dx from dy and x: 5 passes) launch `dim3 blocks(input.size(1))` of MAX_BLOCK_SIZE = 512 threads, one
//    block per channel; the forward's elementwise kernel spreads over channels x batch and runs at full rate.
//    A 64-channel layer keeps 64 x 512 threads resident: on an H200 (132 SMs x 2048) 12 % of the GPU.
//  - cuDNN (NVIDIA/cudnn-frontend#134, H100, cuDNN 9, 2025: batch norm on NCHW tensors runs "about a factor of
//    2" slower than NHWC in forward and backward, and the profile shows a conversion to NHWC and back around
//    the NHWC kernels): forward converts x in and y out (4 passes), backward x and dy in and dx out (6 passes).
// Not on AMD GPUs (MIOpen's kernels are not described here), nor for BatchNorm1d's (N, C) inputs.
double batch_norm_extra_seconds(const Scenario& s, const StackLayer& l, double elements, double width, double bw) {
    if (s.gpu.vendor == "amd" || l.out_shape.size() < 3) return 0;
    const bool native = (width < 4 && s.precision != Precision::fp16_mixed);
    if (!native) return 10.0 * elements * width / bw;
    const double channels = static_cast<double>(l.out_shape.front());
    const double share = resident_share(s.gpu, channels * 512.0);
    return 6.0 * elements * width / bw * (1.0 / share - 1.0);
}

// Bytes per element of a layer's output. A pure fp32 or 16-bit run keeps one width throughout. Under autocast
// (bf16-mixed, fp16-mixed) it follows autocast's op lists (aten/src/ATen/autocast_mode.cpp, CUDA): convolutions,
// linears and attention's matmuls are in the lower-precision list and write 16-bit outputs; layer_norm and
// group_norm are in the fp32 list and write fp32; batch norm is on neither and keeps its input's dtype; an op
// with an fp32 parameter operand (ViT's class token and position embedding, ConvNeXt's layer scale) and an
// embedding lookup of fp32 weights give fp32, and a residual add promotes to the wider of its operands, so once
// the skip path is fp32 (`stream`) every add after it is too. Activations, pools and views keep their input's.
struct Widths {
    bool autocast = false;
    double base = 4;    // the run's width outside autocast
    double stream = 2;  // the width of the residual stream (the skip operand of the next add)
    double output(const std::string& t, double in) {
        if (!autocast) return base;
        if (t == "embedding") return 4;
        if (is_matmul(t) || t == "geglu") return 2;
        if (t == "layer_norm" || t == "group_norm" || t == "class_token" || t == "position_embedding" || t == "layer_scale")
            return stream = 4;
        if (t == "add" || t == "concat") return stream = std::max(in, stream);
        return in;
    }
};

// One matmul layer (a convolution as cuDNN's implicit GEMM, a linear, attention) forward + backward: each
// of its passes (forward, input gradient, weight gradient) is bounded by the larger of its FLOPs at the
// rate of its units, scaled by how much of a tensor-core tile its output channels fill, and its bytes.
struct MatmulLayer {
    double in = 0, out = 0;          // elements of its input and output, whole micro-batch
    double in_width = 4, width = 2;  // their bytes per element
    bool trains = true;
    double in_channels = 0;          // a convolution's input channels (C of C, H, W)
    double rate = 0;                 // the peak of its units (FLOP/s)
    bool tensor_core_convs = false;  // the run's convolutions use tensor cores (TF32 or 16-bit; peaks.cpp)
    double depthwise_share = 1;      // resident_share() of PyTorch's depthwise weight-gradient kernel (below)
};
double matmul_layer_seconds(const StackLayer& l, const MatmulLayer& m, double batch, double bw) {
    const double weights = weight_elements(l);
    // Output channels: a convolution's first dimension (C, H, W), a linear's or attention's last (T, D).
    const bool conv = starts_with(l.type, "conv");
    const double channels = l.out_shape.empty() ? 1 : static_cast<double>(conv ? l.out_shape.front() : l.out_shape.back());
    const double reduction = channels > 0 ? l.flops / 2.0 / std::max(1.0, elements(l.out_shape)) : 0;  // K of the GEMM
    // Tile fill: CUTLASS/cuDNN tensor-core GEMM tiles are 128 wide in N (output channels) and 32-64 deep in K
    // (cutlass/include/cutlass/gemm/device/default_gemm_configuration.h: ThreadblockShape 128x128x32 for
    // SM80 tensor-op GEMMs); a layer with fewer output channels or a shorter reduction leaves the rest of the
    // tile idle. Grouped convolutions (below) do not use tensor cores at all: their FLOPs are negligible and
    // the pass is bounded by its bytes.
    const double fill = std::min(1.0, channels / 128.0) * std::min(1.0, reduction / 64.0);
    const double flops = l.flops * batch;
    const double passes = m.trains ? 3.0 : 2.0;  // forward, input gradient, (weight gradient)
    // A grouped convolution's reduction is (C / groups) x kernel area, shorter than its input channels C only
    // when groups exceed the kernel area: depthwise convolutions (MobileNet, ConvNeXt, EfficientNet). PyTorch
    // runs those with its own NCHW depthwise kernels or cuDNN's grouped ones, not as a tensor-core GEMM.
    const bool grouped = conv && reduction < m.in_channels;
    // Even a full tile runs below the datasheet peak (kernel_costs().matmul_share).
    const bool tensor_cores = reduction >= 32 && !grouped;
    const double mm = tensor_cores ? flops * passes / (kernel_costs().matmul_share * m.rate * std::max(fill, 1e-3)) : 0;
    const double bytes = (m.width * (m.in + m.out) * passes + weights * m.width * (m.trains ? 3.0 : 1.0));
    double seconds = std::max(mm, bytes / bw);
    // PyTorch's depthwise weight gradient (aten/src/ATen/native/cuda/DepthwiseConv2d.cu,
    // conv_depthwise2d_grad_weight_kernel) runs one block per (channel, kernel tap) of getGradParamsNumThreads
    // = min(batch x 32, 256) threads, each block reading its channel's input and output gradient: with few
    // channels and taps it leaves most of the GPU idle (resident_share). Its reads of input and output gradient
    // are counted once above; the taps' re-reads of the same channel (from L2 while the channel's blocks run
    // together) are not.
    if (grouped && m.trains) seconds += m.width * (m.in + m.out) / bw * (1.0 / m.depthwise_share - 1.0);
    // cuDNN's tensor-core kernels work on NHWC; PyTorch's default (contiguous) format is NCHW, so cuDNN
    // transposes each operand in and the result out around every call (NVIDIA, "Tensor Ops Made Easier in
    // cuDNN", 2018: packed NCHW tensors are transformed for Tensor Cores; MosaicML Composer's ChannelsLast
    // method card: "the NCHW tensor must be transposed to NHWC before the convolution and transposed back to
    // NCHW after"; pytorch/pytorch#54324 profiles cudnn::ops::genericTranspose_kernel at 92 % of an fp16
    // model's kernel time; PyTorch's N. Gimelshein in pytorch/pytorch#44943: channels-last speeds up only fp16
    // convolutions on the V100 of 2020, whose fp32 convolutions ran on CUDA cores; TF32 convolutions on
    // Ampere and later are tensor-core kernels too). Each pass reads and writes its input-side and output-side
    // tensors once more: 2 x (in + out) elements a pass, in the convolution's own width.
    if (conv && m.tensor_core_convs && tensor_cores && l.out_shape.size() >= 3) seconds += 2.0 * (m.in + m.out) * m.width * passes / bw;
    // Under autocast an fp32 input is cast to 16 bits before the matmul (read 4 + write 2 bytes an element) and
    // its gradient back (read 2 + write 4); the weights' casts are counted by the caller.
    if (m.in_width > m.width) seconds += (m.in_width + m.width) * m.in * (m.trains ? 2.0 : 1.0) / bw;
    return seconds;
}

// resident_share() of a grouped convolution's weight gradient when PyTorch's depthwise kernel computes it
// (DepthwiseConv2d.cu: grid = output channels x kernel taps, min(batch x 32, 256) threads a block); 1 for other
// layers, and where cuDNN takes it instead (pure fp16 with 32+ channels, ConvParams::use_cudnn_depthwise in
// aten/src/ATen/native/Convolution.cpp) or on AMD GPUs.
double depthwise_grad_share(const Scenario& s, const StackLayer& l, double batch) {
    if (!starts_with(l.type, "conv") || l.out_shape.empty() || l.in_shape.empty() || s.gpu.vendor == "amd") return 1;
    const double channels = static_cast<double>(l.out_shape.front());
    const double in_channels = static_cast<double>(l.in_shape.front());
    const double taps = l.flops / 2.0 / std::max(1.0, elements(l.out_shape));  // (C / groups) x kernel area
    if (taps >= in_channels || (s.precision == Precision::fp16 && in_channels >= 32)) return 1;
    return resident_share(s.gpu, channels * taps * std::min(batch * 32.0, 256.0));
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
    const bool mixed = s.precision == Precision::bf16_mixed || s.precision == Precision::fp16_mixed;
    Widths w{mixed, s.precision == Precision::fp32 ? 4.0 : 2.0};
    const bool lora = s.method == Method::lora || s.method == Method::qlora;
    // cuDNN's NHWC tensor-core kernels (TF32 from Ampere on); MIOpen on AMD GPUs is not described here.
    const bool tensor_core_convs = s.gpu.vendor != "amd" && (s.precision != Precision::fp32 || s.gpu.peak_tf32_tflops > 0);
    // Images arrive as fp32 tensors. A layer that reads an earlier tensor ("input_from") is given the width of
    // the layer before it (the stacks shipped read an earlier tensor of the same width).
    double prev_width = mixed ? 4.0 : w.base;
    double kernels = 0, forward_ops = 0, backward_ops = 0, cast_ops = 0;
    for (const auto& l : s.model.stack->layers) {
        const double out = elements(l.out_shape);
        const double in = elements(l.in_shape);
        const double width = w.output(l.type, prev_width);
        if (is_matmul(l.type)) {
            MatmulLayer m;
            m.in = in * batch;
            m.out = out * batch;
            m.in_width = prev_width;
            m.width = width;
            m.trains = l.trainable && !lora;
            m.rate = starts_with(l.type, "conv") ? r.conv : r.matmul;
            m.in_channels = l.in_shape.empty() ? 0 : static_cast<double>(l.in_shape.front());
            m.tensor_core_convs = tensor_core_convs;
            m.depthwise_share = depthwise_grad_share(s, l, batch);
            t.matmul_s += matmul_layer_seconds(l, m, batch, bw);
            // Autocast's weight casts: read 4 + write 2 bytes an element forward, the gradient back in backward.
            if (mixed && l.type != "embedding") t.matmul_s += 6.0 * weight_elements(l) * (m.trains ? 2.0 : 1.0) / bw;
            kernels += m.trains ? 3 : 2;
            // Autocast casts the fp32 weight (and an fp32 input) with an op of its own (cached_cast,
            // aten/src/ATen/autocast_mode.cpp), each recorded for backward.
            if (mixed && l.type != "embedding") cast_ops += 1 + (m.in_width > m.width ? 1 : 0);
        } else {
            const Passes p = pointwise_passes(l.type);
            if (p.out > 0 || p.in > 0) {
                t.pointwise_s += (p.out * out * width + p.in * in * prev_width) * batch / bw;
                kernels += 3;
                if (is_batch_norm(l.type)) t.pointwise_s += batch_norm_extra_seconds(s, l, out * batch, width, bw);
            }
        }
        const EagerOps e = eager_ops(l.type);
        forward_ops += e.forward;
        backward_ops += e.backward;
        prev_width = width;
    }
    // Every kernel takes at least the launch floor on the GPU; eager PyTorch issues one op per layer in
    // forward and its autograd node in backward from the CPU, which the GPU waits on when its kernels are short.
    t.gpu_s = std::max(t.matmul_s + t.pointwise_s, kernels * k.kernel_floor_s);
    t.cpu_s = (forward_ops + cast_ops) * k.eager_op_s + (backward_ops + cast_ops) * k.backward_op_s;
    return t;
}

}  // namespace vramcalc::detail
