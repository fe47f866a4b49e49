#include "training/training_step.hpp"

#include "common/checked.hpp"

#include <algorithm>

namespace vramcalc::detail {

StepPeak simulate_step(const StepInputs& in) {
    StepPeak p;
    const auto L = in.layers;
    const auto first_trained = L - in.trained_layers;  // layers below this keep nothing (freeze)
    // Bytes a layer keeps through forward under each checkpointing mode.
    double kept = in.layer_act;
    if (in.checkpointing == Checkpointing::full) kept = in.layer_input;
    if (in.checkpointing == Checkpointing::selective_op) kept = in.layer_op_kept;
    if (in.checkpointing == Checkpointing::offload) kept = 0;  // layer inputs live in host memory
    if (in.checkpointing == Checkpointing::offload) p.cpu_bytes = in.layer_input * static_cast<double>(in.trained_layers);
    const bool recompute = recomputes_layers(in.checkpointing);

    double act = 0, logits = 0, grads = in.grads_persist ? in.grad_total : 0, temp = 0;
    auto point = [&](const char* phase) {
        const double total = in.static_bytes + act + logits + grads + temp;
        p.timeline.push_back({phase, saturated_bytes(total, kSaturatedTotalBytes)});
        if (total > p.bytes) {
            p.bytes = total;
            p.phase = phase;
            p.activations = act;
            p.logits = logits;
            p.gradients = grads;
            p.temporaries = temp;
        }
    };

    point("forward");
    act += in.extra_act;
    for (std::int64_t i = first_trained; i < L; ++i) {
        // The layer's full activations exist while it runs; under checkpointing only its input stays.
        temp = recompute ? in.layer_act : 0;
        act += kept;
        if (i == L - 1 || i == first_trained) point("forward");
    }
    temp = 0;
    point("forward");
    logits = in.logits_saved + in.logits_forward_peak;
    point("loss");
    // A hand-written loop's outputs (keep_outputs) stay from here to the end of the optimizer step; at the loss
    // they are part of its forward peak already.
    const double outputs = in.outputs_kept;
    logits = in.logits_saved + in.logits_backward_peak + outputs;
    const bool oib = in.optimizer_in_backward;
    // Per-layer share of the optimizer-step temporaries (optimizer in backward steps one layer at a time).
    const double layer_share = in.grad_total > 0 ? in.grad_per_layer / in.grad_total : 0;
    if (oib) temp = in.grad_head + in.optimizer_temp * (in.grad_total > 0 ? in.grad_head / in.grad_total : 0);
    else if (!in.grads_persist) grads += in.grad_head;
    point("backward");
    logits = outputs;
    temp = 0;
    for (std::int64_t i = L - 1; i >= first_trained; --i) {
        // Recompute (checkpointing) brings the layer's activations back; its backward adds gradient
        // transients and the layer's parameter gradients; then its activations are freed.
        temp = (recompute ? in.layer_act : 0) + in.layer_transient;
        if (oib) temp += in.grad_per_layer + in.optimizer_temp * layer_share;
        else if (!in.grads_persist) grads += in.grad_per_layer;
        if (i == L - 1 || i == first_trained || i == (L - 1 + first_trained) / 2) point("backward");
        act -= kept;
    }
    temp = 0;
    act = 0;
    point("backward");
    temp = oib ? 0 : in.optimizer_temp;
    point("optimizer");
    temp = 0;
    grads = in.grads_persist ? in.grad_total : 0;  // zero_grad(set_to_none=True) frees them
    logits = 0;
    point("optimizer");
    return p;
}

}  // namespace vramcalc::detail
