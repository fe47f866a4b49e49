// Internal: the compute peaks and links of a GPU, read the same way from a catalog entry
// (presets/gpus.json) and from a scenario's custom `gpu` object, and written back by the scenario writer.
#pragma once

#include "io/json_reader.hpp"
#include "vramcalc/gpu.hpp"

namespace vramcalc {

// peak_{fp32,tf32,bf16,fp16,fp8,fp4}_tflops, memory_bandwidth_gbps, gpu_link_gbps, pcie_gen, pcie_lanes.
void read_compute_and_links(detail::FieldReader& r, GpuSpec& g);
// The same keys, each left out where it holds its default (0; 16 lanes).
void write_compute_and_links(const GpuSpec& g, detail::json& out);

}  // namespace vramcalc
