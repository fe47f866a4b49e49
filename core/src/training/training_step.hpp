// Internal: one training step simulated as a timeline of allocations and frees (forward layer by
// layer, loss, backward layer by layer with gradients appearing and activations freed, optimizer
// step). The peak is the maximum over the timeline, not a sum of maxima.
#pragma once

#include <string>
#include <vector>

#include "training/activations.hpp"
#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

struct StepInputs {
    double static_bytes = 0;          // weights, master weights, adapters, optimizer states (live all step)
    double grad_total = 0;            // gradients of all trainable parameters
    double grad_per_layer = 0;        // gradients of one layer's trainable parameters
    double grad_head = 0;             // lm_head / embeddings / final norm gradients
    double optimizer_temp = 0;        // optimizer.step() temporaries
    double layer_act = 0;             // one layer's saved activations
    double layer_input = 0;           // one layer's input (kept per layer under full checkpointing)
    double layer_op_kept = 0;         // what per-op selective checkpointing keeps of one layer
    double layer_transient = 0;       // a layer's backward transients
    double extra_act = 0;             // embedding output, final norm and other per-model saved tensors
    double logits_saved = 0;          // what the loss keeps for backward
    double logits_forward_peak = 0;   // the loss's transient peak in forward (on top of saved)
    double logits_backward_peak = 0;  // the loss's transient peak in backward
    double outputs_kept = 0;          // the model's outputs a hand-written loop holds from the loss to the step's end
    std::int64_t layers = 0;
    std::int64_t trained_layers = 0;  // layers whose activations are kept (freeze: the last N)
    Checkpointing checkpointing = Checkpointing::none;
    bool grads_persist = false;  // gradient accumulation keeps gradients between micro-batches
    // Optimizer in backward (torchtune optimizer_in_bwd): each parameter is stepped from its gradient
    // hook and its gradient freed at once; only the gradients and step temporaries of the parameters in
    // flight exist. optimizer_temp then applies per layer (scaled from the whole-model figure).
    bool optimizer_in_backward = false;
};

struct StepPeak {
    double bytes = 0;
    std::string phase;
    // The parts at the peak (they sum to `bytes`).
    double activations = 0, logits = 0, gradients = 0, temporaries = 0;
    double cpu_bytes = 0;
    std::vector<TimelinePoint> timeline;
};

StepPeak simulate_step(const StepInputs& in);

}  // namespace vramcalc::detail
