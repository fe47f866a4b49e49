#include "runtime/runtime.hpp"

#include <algorithm>

#include "bill/lines.hpp"
#include "common/checked.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::detail {

//  - Volta/Turing stacks (CUDA < 11.7 loads every kernel eagerly): 1343 MiB measured after torch CUDA
//    initialisation on a V100 (HF transformers docs, model_memory_anatomy.md).
//  - Newer GPUs run with lazy module loading (PyTorch >= 1.13 default, pytorch PR #86509): that PR measured
//    287,047,680 B for the context with lazy loading (636 MiB eager).
bool eager_kernel_loading(const GpuSpec& g) { return g.arch == "volta" || g.arch == "turing" || g.arch == "pascal"; }

CudaContext cuda_context(const GpuSpec& g) {
    if (eager_kernel_loading(g))
        return {1343.0 * kMiB, "CUDA context, eager kernel loading: 1343 MiB (HF training-anatomy, V100)"};
    return {287047680.0, "CUDA context with lazy kernel loading: 274 MiB (pytorch PR #86509)"};
}

// A PyTorch run's memory outside its allocator, on today's stack: measured by the project on an H200 with torch
// 2.11.0+cu130 and driver 580 (tests/data/gpu_runs_h200.json, "env"): total - free was 552,402,944 B before the
// first tensor and 650,969,088 B after it (the context and the kernels torch loads at start-up); over its 27
// training and inference runs, nvidia-smi's figure exceeded max_memory_reserved() by 767 to 847 MiB, median 787 MiB:
// the cuBLAS / cuBLASLt (and, for convolutions, cuDNN) handles and the kernel modules loaded on first use under
// lazy loading. The median is the figure; Volta-era stacks keep the eager figure of cuda_context().
CudaContext torch_run_context(const GpuSpec& g) {
    if (eager_kernel_loading(g)) return cuda_context(g);
    return {787.0 * kMiB,
            "CUDA context + cuBLAS/cuDNN handles and lazily loaded kernels: 787 MiB (measured, torch 2.11 + CUDA 13, "
            "H200: median of 27 runs, 767-847 MiB)"};
}

// PyTorch's caching allocator reserves more than it hands out (512 B rounding, 2 MiB and 20 MiB segments, and
// freed blocks that a later request cannot use). Where the training step or generate()'s prefill was replayed on
// the allocator's rules (training/step_replay.cpp, inference/generate_replay.cpp) the reserve is the replay's; elsewhere the least-squares fit of max_memory_reserved
// on max_memory_allocated over 9 single-GPU training runs logged in huggingface/peft#1469 stands in:
// reserved = 1.004 x allocated + 0.38 GiB.
std::int64_t reserved_bytes(std::int64_t allocated) {
    const double a = static_cast<double>(allocated);
    const double reserved = a > 0 ? 1.004 * a + 0.38 * kGiB : 0;
    return std::max(allocated, saturated_bytes(reserved, kSaturatedTotalBytes));
}

namespace {
std::string reserve_detail(const Bill& b, std::int64_t unclipped) {
    if (b.replay_reserve_bytes < 0)
        return "caching allocator: reserved = 1.004 x allocated + 0.38 GiB (fit to huggingface/peft#1469 runs; "
               "this step is not one the allocator replay describes)";
    const bool generate = b.peak_phase == "prefill" || b.peak_phase == "decode";
    std::string d = std::string("caching allocator, ") + (generate ? "generate's prefill" : "2 steps") +
                    " replayed on c10/cuda/CUDACachingAllocator.cpp's rules: " +
                    format_gib(b.replay_reserve_bytes) + " cached above the allocated peak";
    if (b.peak_reserved_bytes < unclipped) d += " on a larger GPU; this one fills up first, and the allocator frees its cache and retries";
    return d + "; " + format_gib(b.replay_pinned_bytes) + " of it sits in segments with a live block, which it cannot free";
}
}  // namespace

std::int64_t device_on_gpu(std::int64_t needed, std::int64_t unclipped_device, std::int64_t memory) {
    if (memory <= 0 || needed > memory) return unclipped_device;
    return std::max(needed, std::min(unclipped_device, memory));
}

// Allocated -> reserved -> device. On a GPU too small for the reserve the run would build on a larger one, the
// allocator frees its cached segments and retries instead of failing (CUDACachingAllocator.cpp malloc:
// release_cached_blocks, then alloc_block again), so what it reserves stops at the GPU; what the run needs is
// allocated plus what stays in segments with a live block (needed_bytes).
void close_torch_bill(Bill& b) {
    b.peak_allocated_bytes = component_sum(b) - b.torch_uncounted_bytes;
    const bool replayed = b.replay_reserve_bytes >= 0;
    const std::int64_t unclipped = replayed ? b.peak_allocated_bytes + b.replay_reserve_bytes : reserved_bytes(b.peak_allocated_bytes);
    const CudaContext context = torch_run_context(b.gpu);
    const std::int64_t outside = b.torch_uncounted_bytes + saturated_bytes(context.bytes);
    b.needed_bytes = replayed ? b.peak_allocated_bytes + b.replay_pinned_bytes + outside : unclipped + outside;
    b.peak_reserved_bytes = device_on_gpu(b.needed_bytes, unclipped + outside, b.gpu.memory_bytes) - outside;
    add_line(b, "allocator_slack", static_cast<double>(b.peak_reserved_bytes - b.peak_allocated_bytes), reserve_detail(b, unclipped));
    add_line(b, "cuda_context", context.bytes, context.detail);
    b.device_bytes = b.peak_reserved_bytes + outside;
    spill_paged_states(b);
    b.needed_bytes = std::min(b.needed_bytes, b.device_bytes);  // paged states spilled to host: the GPU is full
    b.fits = b.gpu.memory_bytes > 0 && b.needed_bytes <= b.gpu.memory_bytes;
}

// Paged optimizer states (bitsandbytes' paged optimizers) live in CUDA unified memory, which "transfers
// memory from the GPU to the CPU when GPU memory is exhausted" (bitsandbytes docs, optimizer reference).
// So when everything else fits, the run fits: the GPU fills up and the rest of the states stay in host
// RAM, moved over the host link at each optimizer step (time/speed.cpp).
void spill_paged_states(Bill& b) {
    const std::int64_t paged = b.torch_uncounted_bytes, cap = b.gpu.memory_bytes;
    const std::int64_t resident = b.device_bytes - paged;
    if (paged <= 0 || cap <= 0 || b.device_bytes <= cap || resident > cap) return;
    const std::int64_t spill = b.device_bytes - cap;
    // The line that holds the states gives up what leaves, so the lines still sum to the device figure.
    auto line = std::find_if(b.components.begin(), b.components.end(),
                             [&](const Component& c) { return c.id == "optimizer" && c.bytes >= spill; });
    if (line == b.components.end()) return;
    line->bytes -= spill;
    line->detail += "; " + format_gib(spill) + " of them paged out to host RAM (the GPU is full)";
    b.paged_to_host_bytes = spill;
    b.torch_uncounted_bytes -= spill;
    b.device_bytes = cap;
    b.cpu_bytes += spill;
    b.warnings.push_back("the paged optimizer states do not all fit beside the rest: CUDA unified memory keeps " +
                         format_gib(spill) +
                         " of them in host RAM and moves them over the host link at every "
                         "optimizer step (slower; the GPU is full)");
}

}  // namespace vramcalc::detail
