// Internal: where an inference engine puts a model: the compute dtype, the tensor / layer split over
// GPUs, and the layers the most loaded GPU holds.
#pragma once

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// The compute dtype's bytes: fp32 checkpoints compute in fp32; everything else in 16 bit.
double compute_bytes(const Scenario& s);

// Tensor and layer (pipeline) parallel degrees for inference. `tp`/`pp` as given; otherwise num_gpus
// > 1 means vLLM's --tensor-parallel-size (its usual use) or, for the PyTorch engines, transformers'
// device_map="auto", which splits the layers across the GPUs.
struct Split {
    i64 tp = 1, pp = 1;
};
Split split_of(const Scenario& s);

// Decoder layers on the most loaded GPU of a layer split.
i64 layers_per_stage(const Scenario& s);

}  // namespace vramcalc::detail
