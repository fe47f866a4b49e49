// A GPU as the estimator sees it: usable memory as the driver reports it, plus compute figures
// for display. Sources for each catalog entry are in presets/gpus.json.
#pragma once

#include <cstdint>
#include <string>

namespace vramcalc {

struct GpuSpec {
    std::string id;            // preset id ("h100-80gb"); "custom" for a user-defined GPU
    std::string name;          // display name
    std::string vendor;        // "nvidia" | "amd"
    std::string arch;          // "hopper", "ampere", ... (CUDA context size depends on it)
    std::int64_t memory_bytes = 0;  // total as nvidia-smi / torch total_memory reports it
    bool bf16 = true;
    double peak_bf16_tflops = 0;    // dense
    double memory_bandwidth_gbps = 0;
    std::string source;
};

}  // namespace vramcalc
