// Internal: the training step of training_step.hpp replayed tensor by tensor on the model of PyTorch's caching
// allocator (runtime/caching_allocator.hpp), to learn what the allocator reserves at the peak and how much of
// that it could not give back when the GPU runs out. docs/methodology.md section 6.
#pragma once

#include <optional>
#include <vector>

#include "training/activations.hpp"
#include "training/training_step.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// The tensors behind the step's aggregates. Sizes are relative: the replay scales each list to the aggregate
// of StepInputs it splits (layer_act, grad_per_layer, grad_head, optimizer_temp), so sharding and parallel
// splits applied to StepInputs carry over.
struct StepTensors {
    std::vector<double> layer_saved;   // one layer's saved tensors, in forward order
    std::vector<double> layer_params;  // one trained layer's parameter tensors (gradients, states, step temporaries)
    std::vector<double> head_params;   // the trained tensors outside the layers (embeddings, lm_head, final norm)
    double optimizer_states = 0;       // bytes of the optimizer's states, created at the first optimizer.step()
    // The loss's tensors are logits-shaped: the fp32 logits of the micro-batch (tokens x vocab x 4 B) is the unit
    // its saved and transient aggregates split into (the 16-bit logits are half of one).
    double logits_tensor = 0;
    int states_per_param = 2;  // AdamW: exp_avg and exp_avg_sq (torch/optim/adamw.py _init_group)
    // A layer stack (ModelSpec::stack) replaces the uniform layers: what each stack layer is the first to save, in
    // forward order (relative, scaled to StepInputs::extra_act), and the gradient of each layer's output, which
    // backward holds while it runs that layer (bytes).
    std::vector<double> stack_saved;
    std::vector<double> stack_grads;
};

struct ReplayPeak {
    double allocated = 0;  // max_memory_allocated()
    double reserved = 0;   // max_memory_reserved() on a GPU large enough never to run out
    // The most the run holds in segments that still have a live block: what a smaller GPU must have. When
    // cudaMalloc fails, the allocator frees every cached segment with no live block and tries again
    // (CUDACachingAllocator.cpp, malloc: release_cached_blocks then alloc_block), so only these count.
    double needed = 0;
};

// The tensors of a single-GPU step of `m` as PyTorch allocates them (the relative sizes StepTensors holds), or
// nothing when the step is not one the replay describes: several GPUs, sharding or offload (their engines
// allocate flat buffers of their own), optimizer in backward, DeepSpeed and Megatron, and models known only by
// their parameter count.
std::optional<StepTensors> step_tensors(const Scenario& s, const ModelSpec& m, const ActivationSetup& a, double optimizer_states);

// Replays `steps` training steps (the first creates the optimizer's states, as torch does lazily) and returns
// the peaks over all of them.
ReplayPeak replay_step(const StepInputs& in, const StepTensors& t, int steps = 2);

}  // namespace vramcalc::detail
