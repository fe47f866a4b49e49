// Internal: the time of a training step and the speed of generation (Bill::speed). See vramcalc/bill.hpp
// for the figures and docs/methodology.md, section "Time", for the formulas and their sources.
#pragma once

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// The assumed model-FLOPs utilisation for the scenario's GPU (published figures per architecture).
double default_mfu(const GpuSpec& g);
// The memory bandwidth (bytes/s) of the GPU that MFU was measured on: the non-matmul rest of a step scales
// with it over the scenario GPU's bandwidth.
double mfu_source_bytes_per_s(const GpuSpec& g);

// How much faster torch.compile makes a training step than eager PyTorch at the same settings (1 without
// compile; the fit and its rows are in speed.cpp).
double compile_speedup(const Scenario& s);

// The GPU's peak memory bandwidth (bytes/s) and dense bf16 peak (FLOP/s), from the GPU catalog.
double peak_bytes_per_s(const GpuSpec& g);
double peak_flops_per_s(const GpuSpec& g);

// Generation speed of an inference bill (decode.cpp).
void inference_speed(const Scenario& s, const Bill& b, Speed& sp);

// Fills b.speed from the scenario and its (solved) bill.
void estimate_speed(const Scenario& s, Bill& b);

}  // namespace vramcalc::detail
