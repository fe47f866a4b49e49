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
CudaContext cuda_context(const GpuSpec& g) {
    if (g.arch == "volta" || g.arch == "turing" || g.arch == "pascal")
        return {1343.0 * kMiB, "CUDA context, eager kernel loading: 1343 MiB (HF training-anatomy, V100)"};
    return {287047680.0, "CUDA context with lazy kernel loading: 274 MiB (pytorch PR #86509)"};
}

// PyTorch's caching allocator reserves more than it hands out (512 B rounding, 2 MiB and 20 MiB
// segments, fragmentation). Least-squares fit of max_memory_reserved on max_memory_allocated over 9
// single-GPU training runs logged in huggingface/peft#1469: reserved = 1.004 x allocated + 0.38 GiB.
std::int64_t reserved_bytes(std::int64_t allocated) {
    const double a = static_cast<double>(allocated);
    const double reserved = a > 0 ? 1.004 * a + 0.38 * kGiB : 0;
    return std::max(allocated, saturated_bytes(reserved, kSaturatedTotalBytes));
}

void close_torch_bill(Bill& b) {
    b.peak_allocated_bytes = component_sum(b) - b.torch_uncounted_bytes;
    b.peak_reserved_bytes = reserved_bytes(b.peak_allocated_bytes);
    add_line(b, "allocator_slack", static_cast<double>(b.peak_reserved_bytes - b.peak_allocated_bytes),
             "caching allocator: reserved = 1.004 x allocated + 0.38 GiB (fit to huggingface/peft#1469 runs)");
    const CudaContext context = cuda_context(b.gpu);
    add_line(b, "cuda_context", context.bytes, context.detail);
    b.device_bytes = b.peak_reserved_bytes + b.torch_uncounted_bytes + saturated_bytes(context.bytes);
    spill_paged_states(b);
    b.fits = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
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
                         format_gib(spill) + " of them in host RAM and moves them over the host link at every "
                         "optimizer step (slower; the GPU is full)");
}

}  // namespace vramcalc::detail
