// Rules of the layers that move, merge or view tensors: activations, dropout, add/concat/mul, attention,
// upsample, the ViT pieces and flatten, and the dispatch on "type". Sources as in layer_ops.cpp.
#include "model/layer_op.hpp"

namespace vramcalc::detail {

using PC = ParamCategory;

// Activations. relu, sigmoid, tanh keep their result (`threshold_backward(grad, result, 0)`,
// `sigmoid_backward(grad, result)`, `tanh_backward(grad, result)`): in place, the result is the input's
// storage, so the pair keeps one tensor. gelu, silu, hardswish, hardsigmoid keep self; their in-place
// forms overwrite self, so autograd keeps a copy of the original (the generated in-place code saves
// `self.clone()` when a formula reads self).
bool Op::activation() {
    const bool inplace = r.boolean_or("inplace", false);
    const bool keeps_result = type == "relu" || type == "sigmoid" || type == "tanh";
    out.shape = in.shape;
    out.alias_input = inplace;
    if (keeps_result) out.save_output = true;
    else if (inplace) out.new_saved_elements = in_elems();
    else out.save_input = true;
    return true;
}

// dropout (derivatives.yaml `native_dropout`: `native_dropout_backward(grad, result1, scale)` keeps only
// the 1-byte bool mask).
bool Op::dropout() {
    const double p = r.number_or("p", 0.5, 0, 1);
    out.shape = in.shape;
    out.alias_input = p == 0;
    if (p > 0) out.saved_other_bytes = in_elems();
    return true;
}

// add: `self: grad, other: grad` keeps nothing. concat along dim 0 (`cat`: only sizes).
bool Op::merge(bool add) {
    out.shape = in.shape;
    for (const Shape& o : in.others) {
        if (add && o != in.shape) return fail("cannot add " + shape_text(o) + " to " + shape_text(in.shape));
        if (!add) {
            if (o.size() != in.shape.size() || o.empty() || !std::equal(o.begin() + 1, o.end(), in.shape.begin() + 1))
                return fail("cannot concatenate " + shape_text(o) + " with " + shape_text(out.shape) + " along channels");
            out.shape[0] += o[0];
            if (out.shape[0] > kMaxDimension) return fail("too many channels");
        }
    }
    return true;
}

// mul (squeeze-excitation's scale * x, broadcast over size-1 dimensions): derivatives.yaml `mul`
// (`self: mul_tensor_backward(grad, other, ...)`, `other: mul_tensor_backward(grad, self, ...)`) keeps
// both factors when both need gradients.
bool Op::mul() {
    out.shape = in.shape;
    for (const Shape& o : in.others) {
        if (o.size() != out.shape.size()) return fail("cannot multiply " + shape_text(o) + " with " + shape_text(out.shape));
        for (std::size_t i = 0; i < o.size(); ++i) {
            if (o[i] == out.shape[i] || o[i] == 1) continue;
            if (out.shape[i] != 1) return fail("cannot multiply " + shape_text(o) + " with " + shape_text(out.shape));
            out.shape[i] = o[i];
        }
    }
    out.save_input = true;
    out.save_others = true;
    return true;
}

// multi_head_attention (nn.MultiheadAttention, need_weights=False: in_proj [3D, D], scaled_dot_product_
// attention, out_proj [D, D]). Kept as in core/src/training/activations.cpp (sdpa): the in_proj input,
// q, k, v, the sdpa output, its fp32 log-sum-exp per head and row, and out_proj's input (a contiguous
// copy of the transposed output).
bool Op::attention() {
    if (in.shape.size() != 2) return fail("expects [T, D], got " + shape_text(in.shape));
    const i64 T = in.shape[0], D = in.shape[1];
    if (!check_in("embed_dim", D, "features")) return false;
    auto H = r.integer({"num_heads"}, 1, kMaxDimension);
    if (!H) return false;
    if (D % *H) return fail("num_heads " + std::to_string(*H) + " must divide embed_dim " + std::to_string(D));
    const bool bias = r.boolean_or("bias", true);
    param(PC::attention, Role::qkv, "in_proj", 3 * D, D, bias, true);
    param(PC::attention, Role::o, "out_proj", D, D, bias, true);
    out.shape = in.shape;
    const double t = static_cast<double>(T), d = static_cast<double>(D);
    out.flops = 2 * t * d * 4 * d + 2 * 2 * t * t * d;
    out.save_input = true;
    out.input_for_weights = true;
    out.new_saved_elements = 3 * t * d + t * d + t * d;
    out.weight_grad_elements = t * d;  // out_proj's input
    out.saved_other_bytes = 4.0 * t * static_cast<double>(*H);
    return true;
}

bool Op::upsample() {  // upsample_nearest/bilinear backward reads sizes only
    if (in.shape.size() < 2) return fail("expects [C, spatial...], got " + shape_text(in.shape));
    auto f = r.integer({"scale_factor"}, 1, 1024);
    const std::string mode = r.string_or("mode", "nearest");
    if (mode != "nearest" && mode != "bilinear") return fail("mode must be nearest or bilinear, got " + mode);
    if (!f) return false;
    out.shape = in.shape;
    for (std::size_t i = 1; i < out.shape.size(); ++i) out.shape[i] *= *f;
    return numel(out.shape) ? true : fail("output too large");
}

// ViT pieces: a learned class token prepended (cat: nothing kept), a learned position embedding added
// (add: nothing kept), the patch grid as tokens (reshape + permute: a view), one token selected (a
// view that keeps its base alive when saved). layer_scale (ConvNeXt: gamma * x keeps x for gamma's grad).
bool Op::vit_piece() {
    if (type == "to_tokens") {
        if (in.shape.size() < 2) return fail("expects [C, spatial...], got " + shape_text(in.shape));
        out.shape = {elems(Shape(in.shape.begin() + 1, in.shape.end())), in.shape[0]};
        out.alias_input = true;
        return true;
    }
    if (in.shape.size() != 2 && type != "layer_scale") return fail("expects [T, D], got " + shape_text(in.shape));
    if (in.shape.empty()) return fail("needs an input");
    out.shape = in.shape;
    if (type == "class_token") {
        param(PC::embeddings, Role::embed, "class_token", in.shape[1], 1, false, false);
        out.shape[0] += 1;
    } else if (type == "position_embedding") {
        param(PC::embeddings, Role::embed, "pos_embedding", in.shape[0], in.shape[1], false, false);
    } else if (type == "select_token") {
        const i64 idx = r.integer_or({"index"}, 0, 0, in.shape[0] - 1);
        (void)idx;
        out.shape = {in.shape[1]};
        out.alias_input = true;
    } else {  // layer_scale
        param(PC::norms, Role::norm, "layer_scale", in.shape[0], 1, false, false);
        out.save_input = true;
        out.input_for_weights = true;
    }
    return true;
}

bool Op::flatten() {  // a view: [C, H, W] -> [C*H*W]
    auto n = numel(in.shape);
    if (!n) return fail("input too large");
    out.shape = {*n};
    out.alias_input = true;
    return true;
}

bool Op::run() {
    if (type == "linear") return linear();
    if (type == "conv1d") return conv(1, false);
    if (type == "conv2d") return conv(2, false);
    if (type == "conv3d") return conv(3, false);
    if (type == "conv_transpose2d") return conv(2, true);
    if (type == "batch_norm" || type == "batch_norm1d" || type == "batch_norm2d") return batch_norm();
    if (type == "layer_norm") return layer_norm();
    if (type == "group_norm") return group_norm();
    if (type == "embedding") return embedding();
    if (type.rfind("max_pool", 0) == 0) return pool(true, false);
    if (type == "avg_pool") return pool(false, false);
    if (type == "adaptive_avg_pool") return pool(false, true);
    if (type == "dropout") return dropout();
    if (type == "add" || type == "concat") return merge(type == "add");
    if (type == "mul") return mul();
    if (type == "multi_head_attention") return attention();
    if (type == "upsample") return upsample();
    if (type == "flatten") return flatten();
    if (type == "identity") { out.shape = in.shape; out.alias_input = true; return true; }
    if (type == "class_token" || type == "position_embedding" || type == "to_tokens" || type == "select_token" ||
        type == "layer_scale")
        return vit_piece();
    return activation();
}


std::optional<OpResult> apply_layer(const json& layer, const std::string& type, const std::string& name,
                                    const OpInput& in, const std::string& where, Problems& errors) {
    if (in.is_index && type != "embedding") {
        errors.push_back({where, type + " cannot read token ids; the first layer of an index input is an embedding"});
        return std::nullopt;
    }
    const std::size_t before = errors.size();
    Op op{layer, type, name, in, where, errors, FieldReader(layer, where, errors), {}};
    if (!op.run() || errors.size() != before) return std::nullopt;
    if (!numel(op.out.shape)) {
        errors.push_back({where, type + " output " + shape_text(op.out.shape) + " is too large"});
        return std::nullopt;
    }
    return op.out;
}

}  // namespace vramcalc::detail
