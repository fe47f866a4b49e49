// Internal: what vLLM's weight loading adds on AMD GPUs. ROCm builds pad some weights for good (real memory),
// and from PR #12624 (2025-02) until PR #39801 (2026-04-27) they logged "Model loading took" as the device's
// total - free memory, which also counts what PyTorch's caching allocator kept from the weight
// post-processing; that figure is what vLLM then takes from its KV budget. docs/methodology.md, "vLLM on
// AMD GPUs", has the sources.
#pragma once

#include <string>

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

struct RocmLoading {
    double padding = 0;  // bytes of weight padding kept (VLLM_ROCM_MOE_PADDING, VLLM_ROCM_FP8_PADDING)
    double cached = 0;   // bytes reserved but not allocated when loading ends (counted only by total - free)
    std::string detail;  // what the padding and the cache come from, for the bill
};

// One tensor-parallel rank's loading on an AMD GPU (zeros for any other vendor or a model without shapes).
RocmLoading rocm_loading(const Scenario& s);

}  // namespace vramcalc::detail
