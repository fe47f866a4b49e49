// The activations of a layer-stack model (CNNs, ViTs, custom networks) for the step timeline: what the
// stack's reader (model/layer_stack.cpp) counted per sample, times the micro-batch, in the recipe's
// activation dtype. docs/methodology.md, "Layer stacks".
#include "training/stack_training.hpp"

#include <algorithm>

#include "common/format.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::detail {

namespace {

// Autocast casts each fp32 conv/linear weight to the compute dtype when the layer runs and the op's
// backward keeps that copy (grad_input needs the weight), so the 16-bit copies of the trained layers'
// weights live from their forward to their backward (torch autocast `cached_cast`,
// aten/src/ATen/autocast_mode.cpp), as for the transformer layers (training.cpp autocast_weight_copies).
// Matmul weights are the 2-D groups of convs, linears and attention projections (biases and norm
// vectors have one column and are not cast for a matmul).
double autocast_copies(const LayerStack& st, double compute) {
    double elements = 0;
    for (const auto& l : st.layers) {
        if (!l.trainable) continue;
        for (const auto& g : l.params)
            if (g.cols > 1 && (g.category == ParamCategory::mlp || g.category == ParamCategory::attention))
                elements += static_cast<double>(g.rows * g.cols);
    }
    return compute * elements;
}

}  // namespace

std::string stack_activation_inputs(const Scenario& s, const ModelSpec& m, const ActivationSetup& a, StepInputs& in,
                                    std::string& loss_detail, std::vector<std::string>& warnings) {
    const LayerStack& st = *m.stack;
    const double bsz = static_cast<double>(s.micro_batch);
    // The stack is one unit of the timeline: its saved tensors all exist at the end of forward and its
    // gradients appear in backward (grad_head in model_states.cpp), so layers = 0 here.
    in.layers = in.trained_layers = 0;
    const double per_sample = st.saved_bytes_per_sample(a.compute);
    in.extra_act = per_sample * bsz + st.saved_bytes_per_batch();
    if (a.autocast) in.extra_act += autocast_copies(st, a.compute);
    // Backward of one layer holds the gradient of its output and of its input at once: two of the largest
    // tensor (autograd's engine frees a gradient once its consumer ran).
    in.layer_transient = 2 * st.largest_tensor_elements * a.compute * bsz;
    // The loss: cross_entropy runs log_softmax in fp32 under autocast (torch.amp's fp32 op list) and keeps
    // that output for nll_loss's backward, one value per output element. mse (diffusers' training scripts:
    // `F.mse_loss(model_pred.float(), target.float())`) keeps both fp32 operands (derivatives.yaml
    // `mse_loss`: `mse_loss_backward(grad, self, target, ...)`).
    const std::vector<i64> out = st.output_shape();
    double out_elements = 1;
    for (i64 d : out) out_elements *= static_cast<double>(d);
    if (st.loss == LayerStack::Loss::mse) {
        in.logits_saved = 8 * out_elements * bsz;
        loss_detail = "MSE over " + whole(out_elements) + " outputs x " + std::to_string(s.micro_batch) + " (fp32 prediction and target)";
    } else {
        in.logits_saved = 4 * out_elements * bsz;
        loss_detail = "cross-entropy over " + whole(out_elements) + " outputs x " + std::to_string(s.micro_batch) + " (fp32 log_softmax)";
    }

    if (s.checkpointing != Checkpointing::none)
        warnings.push_back("checkpointing \"" + std::string(to_string(s.checkpointing)) +
                           "\" is not modelled for a layer stack: the bill keeps every saved activation (an upper bound)");
    if (s.method == Method::lora || s.method == Method::qlora)
        warnings.push_back(
            "LoRA on a layer stack: activations are those of the stack as written (its \"trainable\" flags); "
            "a frozen base keeps less (frozen convs and linears keep no input), so this is an upper bound");
    if (s.compile) warnings.push_back("compile is not modelled for a layer stack: eager autograd's saved tensors are counted");
    return printf_string("%.1f MiB", per_sample / kMiB) + " saved per sample x " + std::to_string(s.micro_batch) + " (" + whole(a.compute) +
           " B activations, " + std::to_string(st.layers.size()) + " layers)";
}

}  // namespace vramcalc::detail
