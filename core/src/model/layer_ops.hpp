// Internal: one layer type's rules (output shape, parameters, FLOPs and what autograd saves), applied to
// the shapes of its inputs. The walker in layer_stack.cpp owns names, blocks and tensor identity.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {

using Shape = std::vector<i64>;

struct OpInput {
    Shape shape;                // the tensor the layer reads
    std::vector<Shape> others;  // add/concat: the shapes named by "from"
    bool is_index = false;      // the stack input of token ids (embedding)
};

// What autograd keeps, in terms the walker can deduplicate by tensor.
struct OpResult {
    Shape shape;
    std::vector<ParamGroup> params;
    i64 buffers = 0;
    double flops = 0;
    bool alias_input = false;  // the output is the input's storage (in place, or a view)
    bool save_input = false;   // keeps the input tensor (its whole storage if it is a view)
    bool save_output = false;  // keeps the output tensor
    // Frozen weights (PyTorch saves a tensor only for a gradient that is required): a linear, conv,
    // attention projection or layer scale keeps its input only for its weight's gradient; the input's
    // gradient needs the weight alone (derivatives.yaml `mm`: `self: grad.mm(mat2.t())`).
    bool input_for_weights = false;
    double weight_grad_elements = 0;  // part of new_saved_elements kept only for a weight's gradient
    bool save_others = false;         // keeps the tensors named by "from" (mul)
    double new_saved_elements = 0;    // further tensors in the activation dtype that only this op keeps
    double saved_other_bytes = 0;     // int64 indices, 1-byte masks, fp32 per-row statistics
    double saved_per_batch_bytes = 0;
};

// Applies `layer` (its "type" already checked against layer_stack_types()) to `in`. Problems are
// reported under `where` ("layers[3] (conv1)"); returns nothing when the layer cannot be applied.
std::optional<OpResult> apply_layer(const nlohmann::json& layer, const std::string& type, const std::string& name,
                                    const OpInput& in, const std::string& where, Problems& errors);

// Element count of a shape, nullopt on overflow past kMaxDimension^2.
std::optional<i64> numel(const Shape& s);
std::string shape_text(const Shape& s);

}  // namespace vramcalc::detail
