// Internal: what the CUDA runtime and PyTorch's caching allocator add around the tensors (allocated ->
// reserved -> device). Sources beside each figure in runtime.cpp; docs/methodology.md section 6.
#pragma once

#include <cstdint>
#include <string>

#include "vramcalc/bill.hpp"
#include "vramcalc/gpu.hpp"

namespace vramcalc::detail {

// CUDA context + kernels + library handles: seen by nvidia-smi, not by torch's counters.
struct CudaContext {
    double bytes = 0;
    std::string detail;
};
CudaContext cuda_context(const GpuSpec& g);
// Volta/Turing-era stacks load every kernel at start-up (cuda_context's eager figure).
bool eager_kernel_loading(const GpuSpec& g);
// What nvidia-smi shows on a GPU of `memory` bytes for a run that needs `needed` and would reach
// `unclipped_device` on a GPU that never runs out: a GPU too small for that reserve fills up (the allocator
// frees its cache and retries), one too small for `needed` does not run (the unclipped figure stands).
std::int64_t device_on_gpu(std::int64_t needed, std::int64_t unclipped_device, std::int64_t memory);
// The same for a PyTorch training or generate() run on today's stack: the context plus the library handles
// and kernels the run loads (measured).
CudaContext torch_run_context(const GpuSpec& g);

// torch.cuda.max_memory_reserved() for a max_memory_allocated() (bytes; never below `allocated`).
std::int64_t reserved_bytes(std::int64_t allocated);

// Moves the paged optimizer states that do not fit beside the rest of the bill to host RAM (CUDA unified
// memory): the device figure stops at the GPU's memory. Called by close_torch_bill.
void spill_paged_states(Bill& b);

// Closes a PyTorch bill whose components hold the allocated peak (plus b.torch_uncounted_bytes of
// memory outside torch's allocator): peak allocated / reserved, the allocator_slack and cuda_context
// lines, device_bytes and the verdict.
void close_torch_bill(Bill& b);

}  // namespace vramcalc::detail
