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

// add: `self: grad, other: grad` keeps nothing; the operand named by "from" may broadcast, its gradient then
// a sum. Broadcasting is PyTorch's (trailing dimensions aligned, each equal or 1: [C, 1, 1] or [1, W] over
// [C, H, W]), plus one convention of this format: a one-dimensional [C] over [C, ...] is per channel, the
// `temb[:, :, None, None]` of a UNet's timestep embedding written without its reshape. The operand cannot
// grow the result. concat along dim 0 (`cat`: only sizes).
namespace {
bool broadcasts_onto(const Shape& o, const Shape& to) {
    if (o.empty() || o.size() > to.size()) return false;
    if (o.size() == 1 && to.size() > 1 && o[0] == to[0]) return true;  // per channel, by the convention above
    const std::size_t offset = to.size() - o.size();
    for (std::size_t i = 0; i < o.size(); ++i)
        if (o[i] != to[offset + i] && o[i] != 1) return false;
    return true;
}
}  // namespace

bool Op::merge(bool add) {
    out.shape = in.shape;
    for (const Shape& o : in.others) {
        if (add && o != in.shape && !broadcasts_onto(o, in.shape))
            return fail("cannot add " + shape_text(o) + " to " + shape_text(in.shape) +
                        " (the shapes must match or broadcast as in PyTorch, trailing dimensions equal or 1, such as"
                        " [C, 1, 1]; a one-dimensional [C] is taken per channel)");
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
// copy of the transposed output). "qkv_bias" / "out_bias" override "bias" for the projections (diffusers'
// Attention: to_q/to_k/to_v without bias, to_out with one). With "kv_from" (a name, e.g. a stack input
// "context" [S, Dc]) it is cross-attention: q from the input, k and v projected from that tensor
// (to_k, to_v [D, Dc]), which their weights' gradients keep; k and v have S rows.
bool Op::attention() {
    if (in.shape.size() != 2) return fail("expects [T, D], got " + shape_text(in.shape));
    const i64 T = in.shape[0], D = in.shape[1];
    if (!check_in("embed_dim", D, "features")) return false;
    auto H = r.integer({"num_heads"}, 1, kMaxDimension);
    if (!H) return false;
    if (D % *H) return fail("num_heads " + std::to_string(*H) + " must divide embed_dim " + std::to_string(D));
    const bool bias = r.boolean_or("bias", true);
    const bool qkv_bias = r.boolean_or("qkv_bias", bias), out_bias = r.boolean_or("out_bias", bias);
    const bool cross = !in.others.empty();
    i64 S = T, Dc = D;
    if (cross) {
        const Shape& c = in.others.front();
        if (c.size() != 2) return fail("kv_from: expects a [S, D] tensor, got " + shape_text(c));
        S = c[0];
        Dc = c[1];
        param(PC::attention, Role::qkv, "to_q", D, D, qkv_bias, true);
        param(PC::attention, Role::qkv, "to_kv", 2 * D, Dc, qkv_bias, true);
        out.save_others = true;
    } else {
        param(PC::attention, Role::qkv, "in_proj", 3 * D, D, qkv_bias, true);
    }
    param(PC::attention, Role::o, "out_proj", D, D, out_bias, true);
    out.shape = in.shape;
    const double t = static_cast<double>(T), d = static_cast<double>(D), s = static_cast<double>(S);
    out.flops = 2 * t * d * 2 * d + 2 * s * static_cast<double>(Dc) * 2 * d + 2 * 2 * t * s * d;
    out.save_input = true;
    out.input_for_weights = true;
    out.new_saved_elements = t * d + 2 * s * d + t * d + t * d;  // q, k, v, the sdpa output, out_proj's input
    out.weight_grad_elements = t * d;                            // out_proj's input
    out.saved_other_bytes = 4.0 * t * static_cast<double>(*H);
    return true;
}

// geglu (diffusers' GEGLU after its projection: `hidden, gate = x.chunk(2, -1); hidden * gelu(gate)`):
// the halves are views of the input, gelu keeps gate and mul keeps hidden and gelu(gate), so the whole
// input and one half-size tensor are kept.
bool Op::geglu() {
    if (in.shape.empty() || in.shape.back() % 2) return fail("expects an even last dimension, got " + shape_text(in.shape));
    out.shape = in.shape;
    out.shape.back() /= 2;
    out.save_input = true;
    out.new_saved_elements = in_elems() / 2;
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

// to_grid: tokens back to a feature map, [H*W, C] -> [C, H, W] with the spatial size of the [C', H, W]
// tensor named by "from" (diffusers' Transformer2DModel: reshape, permute, `.contiguous()`: a copy that
// keeps nothing).
bool Op::to_grid() {
    if (in.shape.size() != 2) return fail("expects [T, C], got " + shape_text(in.shape));
    const Shape& like = in.others.front();
    if (like.size() < 2) return fail("from: expects a [C, spatial...] tensor, got " + shape_text(like));
    out.shape = {in.shape[1]};
    out.shape.insert(out.shape.end(), like.begin() + 1, like.end());
    if (elems(Shape(like.begin() + 1, like.end())) != in.shape[0])
        return fail(std::to_string(in.shape[0]) + " tokens do not make the grid " + shape_text(Shape(like.begin() + 1, like.end())));
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
    if (type == "geglu") return geglu();
    if (type == "to_grid") return to_grid();
    if (type == "identity") {
        out.shape = in.shape;
        out.alias_input = true;
        return true;
    }
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
