// Internal: which of the GPU's peaks (presets/gpus.json, vramcalc/gpu.hpp) each part of a training step runs
// at, and the bandwidth of the links its collectives and offload traffic cross. docs/methodology.md, "Time".
#pragma once

#include <string>

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// Dense peaks (FLOP/s) of the step's matmuls by kind, for the scenario's precision and float8 recipe.
struct MatmulRates {
    double reference = 0;  // the dense bf16 peak: the rate the published MFU is a share of
    double matmul = 0;     // attention core, output layer, and linears outside float8
    double linear = 0;     // linear layers (fp8 under a float8 recipe)
    double conv = 0;       // convolutions (TF32 under fp32: cuDNN's default)
    double attention = 0;  // the attention core (SDPA's kernels; 3xTF32 under fp32 on NVIDIA Ampere and later)
    std::string text;      // what the rates are, for the speed basis ("" when all are the bf16 peak)
    std::string missing;   // a figure the catalog lacks and what stands in for it ("" = none)
};
MatmulRates matmul_rates(const Scenario& s);

// Per-direction bandwidth (bytes/s) of the PCIe host link, of the link a collective between the job's GPUs
// runs over, and whether the GPU's PCIe generation was not given (Gen4 x16 assumed: the bill warns).
double host_bytes_per_s(const GpuSpec& g);
double link_bytes_per_s(const GpuSpec& g, std::int64_t gpus);
bool pcie_assumed(const GpuSpec& g);

}  // namespace vramcalc::detail
