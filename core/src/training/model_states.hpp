// Internal: the model states of one training step on one GPU before any sharding (weights, master
// weights, LoRA adapters as bill lines; gradient and optimizer sizes for the step).
#pragma once

#include "formats/recipes.hpp"
#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

struct TrainedStates {
    double trainable = 0;       // trainable parameters
    double grad_total = 0;      // gradient bytes of every trainable parameter
    double grad_per_layer = 0;  // of one layer of the stacks (decoder, and encoder too for T5): backward adds them layer by layer
    double grad_head = 0;       // of the embeddings and head
    double opt = 0;             // optimizer state bytes
    double opt_temp = 0;        // the optimizer step's transient (foreach AdamW's sqrt(exp_avg_sq))
    double adapter_bytes = 4;   // bytes per LoRA adapter element
};

// Writes the weights, master_weights and lora lines of `m` (the layout the framework builds) into `b`
// and returns the sizes the step needs.
TrainedStates model_states(const Scenario& s, const ModelSpec& m, const ParamBreakdown& p, Bill& b);

// Trainable parameters of method llama-adapter / adapter-v2 (LitGPT's adapter layout).
double adapter_trainable_params(const Scenario& s, const ModelSpec& m);

}  // namespace vramcalc::detail
