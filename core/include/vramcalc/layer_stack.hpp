// LayerStack: a model described by its layers (CNNs, ViTs, custom networks), not by a config.json.
//
// Input JSON (shapes are per sample, without the batch dimension):
//   {"input": [C, H, W] | [T, D] | [N] | [T] (token ids, for a first `embedding`),
//    "layers": [{"type": "conv2d", "out_channels": 64, "kernel_size": 7, "stride": 2, "padding": 3,
//                "bias": false, "name": "conv1"}, ...]}
// Types: linear, conv1d/conv2d/conv3d, conv_transpose2d, batch_norm (batch_norm1d/2d), layer_norm,
// group_norm, embedding, max_pool (max_pool1d/2d/3d), avg_pool, adaptive_avg_pool, relu, gelu, silu,
// sigmoid, hardswish, hardsigmoid, tanh (with "inplace"), dropout, add and concat (skip connections:
// "from" names an earlier layer, or a list of them), mul (a broadcast product with "from": squeeze-
// excitation), flatten, multi_head_attention (embed_dim, num_heads),
// upsample (scale_factor, mode nearest/bilinear), identity, block (a named sub-list "layers" repeated
// "repeat" times), and the ViT/ConvNeXt pieces class_token, position_embedding, to_tokens, select_token,
// layer_scale, and the UNet pieces geglu and to_grid ([H*W, C] -> [C, H, W] like the tensor "from"
// names). Any layer may read a named earlier output instead of the previous one ("input_from"), or a
// further named stack input ("inputs": {"context": [77, 768]}); multi_head_attention with "kv_from" is
// cross-attention; add may broadcast a per-channel [C] operand over [C, H, W].
// "trainable": false on a layer or a block freezes its parameters: autograd then keeps only what the
// gradients still required need (nothing at all before the first trainable layer).
// docs/methodology.md, "Layer stacks", lists each rule with its source.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

// One layer after shape inference (a block's layers appear expanded, each instance once).
struct StackLayer {
    std::string name;            // qualified: "layer3.0.conv1" (block name, instance, layer name)
    std::string type;            // as written: "conv2d", "relu", ...
    std::vector<i64> in_shape;   // per sample: the tensor it reads (its input, or the one "input_from" names)
    std::vector<i64> out_shape;  // per sample
    std::vector<ParamGroup> params;
    i64 buffers = 0;        // non-trained state elements (batch norm running mean and variance)
    bool trainable = true;  // "trainable": false (on a layer or a block) freezes its parameters
    // What autograd keeps for backward that this layer is the first to save, per sample:
    double saved_elements = 0;         // elements in the activation dtype (inputs, outputs, q/k/v, ...)
    double saved_other_bytes = 0;      // fixed-dtype tensors: int64 pool indices, 1-byte dropout masks, fp32 stats
    double saved_per_batch_bytes = 0;  // independent of the batch: batch norm's per-channel mean/invstd
    double flops = 0;                  // forward FLOPs per sample: 2 x multiply-accumulates of conv/linear/attention

    double saved_bytes(double activation_bytes) const {
        return saved_elements * activation_bytes + saved_other_bytes;
    }
};

struct LayerStack {
    std::vector<i64> input;
    // The training loss on the stack's output ("loss": "cross_entropy", the default, or "mse": a diffusion
    // UNet's noise prediction).
    enum class Loss { cross_entropy,
                      mse } loss = Loss::cross_entropy;
    std::vector<StackLayer> layers;
    i64 parameters = 0;            // all parameter elements (nn.Module.parameters(), what torchvision's num_params counts)
    i64 trainable_parameters = 0;  // those not frozen by "trainable": false
    i64 buffers = 0;
    // A forward without autograd (inference), per sample, in elements of the activation dtype: the most
    // tensors alive at once (each from the layer that makes it to the last layer that reads it; the stack's
    // output lives to the end), and the largest single tensor (a backward's gradient buffers are sized by it).
    double forward_peak_elements = 0;
    double largest_tensor_elements = 0;

    // Bytes autograd keeps for backward per sample (each tensor counted once however many ops save it).
    double saved_bytes_per_sample(double activation_bytes) const;
    double saved_bytes_per_batch() const;  // per-channel statistics, once per step
    double flops_per_sample() const;
    std::vector<i64> output_shape() const { return layers.empty() ? input : layers.back().out_shape; }
    // The parameter inventory as one list (count 1 per tensor), for a ModelSpec.
    std::vector<ParamGroup> param_groups() const;
};

// Limits that keep absurd input from exhausting memory or the stack.
inline constexpr int kMaxStackDepth = 16;  // nested blocks
// Layers after expanding every repeat. The largest real stack we ship is SD 1.5's UNet at 693; 5,000 leaves
// room for SDXL-size UNets and 1000-layer ResNets. At 100,000 a 100-byte stack (one block repeated) cost the
// page 2.6-3.3 s of main thread on every change, since each estimate walks every layer and the advisor
// reads the scenario again for each change it tries (issue 42). At 5,000, with the last stack read kept
// (scenario/read.cpp), a change's bill, catalog, advice and curves take about 40 ms natively.
inline constexpr i64 kMaxStackLayers = 5000;
inline constexpr i64 kMaxDimension = i64{1} << 31;  // any size or hyper-parameter

Result<LayerStack> layer_stack_from_json(const nlohmann::json& j, const std::string& field_prefix = "");
Result<LayerStack> layer_stack_from_text(std::string_view text);

// The model description the estimator reads (model.hpp): the stack's param_groups() as the inventory, the
// stack itself held by the spec for its saved bytes, forward working set and FLOPs.
ModelSpec model_from_layer_stack(LayerStack stack, std::string name);
// Both: the stack's JSON read as the model named `name` (its problems named under `field_prefix`).
Result<ModelSpec> model_from_layer_stack_json(const nlohmann::json& j, const std::string& name, const std::string& field_prefix);
// A JSON object is a layer stack (not a config.json) when it has "layers" and no "model_type".
bool is_layer_stack_json(const nlohmann::json& j);

// The layer types the reader understands.
const std::vector<std::string>& layer_stack_types();

}  // namespace vramcalc
