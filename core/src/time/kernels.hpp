// Internal: the time of a training step built up kernel by kernel, for what does not run as a large matmul:
// a layer stack's convolutions by shape, its norms, activations and elementwise ops as memory-bound passes,
// the optimizer step over its states (foreach, fused or for-loop), eager PyTorch's per-op issue time, and
// frameworks' known overheads (PEFT's DoRA weight norm, transformers' MoE expert loop).
// docs/methodology.md, "Time", step time.
#pragma once

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// Measured and published figures the kernel-by-kernel terms use (each cited where it is defined).
struct KernelCosts {
    double bandwidth_share = 0;  // of the catalog's peak HBM bandwidth that streaming elementwise kernels reach
    double kernel_floor_s = 0;   // the shortest a kernel takes on the GPU (launch to completion)
    double eager_op_s = 0;       // CPU time eager PyTorch spends issuing one op with autograd (forward)
    double backward_op_s = 0;    // CPU time the autograd engine spends per op in backward
    double matmul_share = 0;     // of a datasheet matmul peak that large GEMMs reach
};
const KernelCosts& kernel_costs();

// A layer stack's step, one micro-batch: the GPU time of its kernels and the CPU time to issue them.
struct StackTime {
    double gpu_s = 0, cpu_s = 0;
    double matmul_s = 0, pointwise_s = 0;  // the parts of gpu_s: convolutions/linears/attention, the rest
};
StackTime stack_micro_batch_time(const Scenario& s);

// The optimizer step of one GPU: its states read and written once per pass over them (memory-bound), or
// the issue time of its kernels when that is longer. Trainable parameters and tensors are this GPU's.
double optimizer_step_seconds(const Scenario& s, double trainable_params, double trainable_tensors);

// How many trainable tensors the optimizer steps (the for-loop implementation launches per tensor).
double trainable_tensors(const Scenario& s);

// Extra time per step that PEFT's DoRA spends rebuilding each adapted weight to take its norm: the CPU time
// of its eager ops and the GPU time of its bytes.
struct DoraTime {
    double issue_s = 0, gpu_s = 0;
};
DoraTime dora_seconds(const Scenario& s);

// Extra time per step of transformers' eager MoE path: the experts run one after another.
double moe_loop_seconds(const Scenario& s);

// Extra GPU time per step of transformers' NewGELUActivation ("gelu_new": GPT-2, GPT-J, Phi-1/2): the tanh
// formula as eager elementwise ops where one GeLU kernel would do.
double eager_gelu_seconds(const Scenario& s);

}  // namespace vramcalc::detail
