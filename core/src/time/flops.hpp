// Internal: floating-point operations from the model description (the same roles and shapes that count
// parameters and activations). A matmul of an (n x k) by (k x m) is 2nkm FLOPs; a forward pass per token
// is 2 x the parameters each token passes through plus the attention scores; backward is twice the
// forward for the weights that train (input and weight gradients) and once for frozen ones (input
// gradients only). Conventions of Kaplan et al. 2020 (Sec. 2.1) and Narayanan et al. 2021 (Megatron-LM,
// Sec. 5.1, appendix: model FLOPs count the full attention score matrix, not only the causal half).
#pragma once

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// Forward FLOPs of one token that attends to `context` positions, split by what they belong to.
struct TokenFlops {
    double linear_trained = 0;  // linears whose weights train (full fine-tuning, freeze's last layers)
    double linear_frozen = 0;   // linears whose weights do not (LoRA/QLoRA bases, frozen layers)
    double adapters = 0;        // LoRA A and B
    double attention = 0;       // q.k scores and probabilities @ v, every layer (full matrix)
    double logits = 0;          // the output layer
    bool head_trained = false;
    double forward() const { return linear_trained + linear_frozen + adapters + attention + logits; }
};
TokenFlops token_flops(const Scenario& s, const ModelSpec& m, double context);

// One optimizer step of the whole job (all GPUs): forward, backward and recomputation FLOPs.
struct StepFlops {
    double tokens = 0;  // micro_batch x seq_len x grad_accum x data-parallel replicas
    double forward = 0, backward = 0, recompute = 0;
    // Of the executed FLOPs: those of the linear layers (not the output layer or the attention core; what
    // torchao's float8 converts) and those of convolutions (a layer stack's conv layers; cuDNN runs them).
    // And those of the attention core (q.k scores and probabilities @ v, recomputation included): SDPA's kernels,
    // whose units under fp32 differ from the linears' (peaks.cpp).
    double linears = 0, convs = 0, attention = 0;
    double model() const { return forward + backward; }  // what MFU is computed on
    double executed() const { return forward + backward + recompute; }
};
StepFlops training_flops(const Scenario& s);

}  // namespace vramcalc::detail
