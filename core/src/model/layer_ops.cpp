// The rules of each layer type. What autograd saves follows PyTorch's tools/autograd/derivatives.yaml
// (the backward formula of each op names the tensors its node keeps; the code generator saves an input
// only when a gradient that needs it is required). docs/methodology.md "Layer stacks" repeats them.
#include "model/layer_ops.hpp"

#include "common/checked.hpp"
#include "io/json_reader.hpp"

namespace vramcalc::detail {

std::optional<i64> numel(const Shape& s) {
    Checked n = 1;
    for (i64 d : s) n = n * Checked(d);
    if (n.overflow || n.value > kMaxDimension * kMaxDimension) return std::nullopt;
    return n.value;
}

std::string shape_text(const Shape& s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

namespace {

using PC = ParamCategory;

struct Op {
    const json& j;
    const std::string& type;
    const std::string& name;
    const OpInput& in;
    const std::string& where;
    Problems& errors;
    FieldReader r{j, where, errors};
    OpResult out;

    bool fail(std::string message) {
        errors.push_back({where, type + " " + std::move(message)});
        return false;
    }
    i64 elems(const Shape& s) const { return numel(s).value_or(kMaxDimension * kMaxDimension); }
    double in_elems() const { return static_cast<double>(elems(in.shape)); }

    // A size given as one integer or one per spatial dimension.
    std::optional<Shape> sizes(std::string_view key, std::size_t n, i64 fallback, i64 lo, bool required = false) {
        if (!r.has(key)) {
            if (required) { r.error(key, "missing required key"); return std::nullopt; }
            return Shape(n, fallback);
        }
        const json& v = j.at(std::string(key));
        if (v.is_array()) {
            if (v.size() != n) { r.error(key, "got " + describe(v) + ", expected " + std::to_string(n) + " integers"); return std::nullopt; }
            Shape s;
            for (std::size_t i = 0; i < n; ++i) {
                json one = json::object({{std::string(key), v[i]}});
                FieldReader ri(one, where, errors);
                auto x = ri.integer({key}, lo, kMaxDimension);
                if (!x) return std::nullopt;
                s.push_back(*x);
            }
            return s;
        }
        auto x = r.integer({key}, lo, kMaxDimension);
        if (!x) return std::nullopt;
        return Shape(n, *x);
    }

    void param(PC c, Role role, std::string leaf, i64 rows, i64 cols, bool bias, bool linear) {
        ParamGroup g;
        g.name = name + "." + std::move(leaf);
        g.category = c;
        g.role = role;
        g.rows = rows;
        g.cols = cols;
        g.bias = bias;
        g.is_linear = linear;
        out.params.push_back(g);
    }

    bool check_in(std::string_view key, i64 actual, const char* what) {
        const i64 declared = r.integer_or({key}, actual, 1, kMaxDimension);
        if (declared != actual)
            return fail("expects " + std::to_string(declared) + " " + what + ", got " + std::to_string(actual) +
                        " (input " + shape_text(in.shape) + ")");
        return true;
    }

    // Linear (derivatives.yaml `linear` -> addmm/mm: `mat2: mat1.t().mm(grad)` keeps the input when the
    // weight trains). Applies to the last dimension, or to dim 0 of [C, ...] with "over": "channels".
    bool linear() {
        if (in.shape.empty()) return fail("needs an input with at least one dimension");
        const bool channels = r.string_or("over", "last") == "channels";
        const std::size_t d = channels ? 0 : in.shape.size() - 1;
        const i64 fin = in.shape[d];
        auto fout = r.integer({"out_features"}, 1, kMaxDimension);
        if (!fout || !check_in("in_features", fin, "input features")) return false;
        param(PC::mlp, Role::up, "weight", *fout, fin, r.boolean_or("bias", true), true);
        out.shape = in.shape;
        out.shape[d] = *fout;
        out.flops = 2.0 * static_cast<double>(elems(out.shape)) * static_cast<double>(fin);
        out.save_input = true;
        return true;
    }

    // Convolution (derivatives.yaml `convolution`: backward reads input and weight; the input is kept
    // because the weight trains). out = floor((in + 2p - d(k-1) - 1) / s) + 1; transposed:
    // (in - 1)s - 2p + d(k-1) + output_padding + 1 (torch.nn.Conv*/ConvTranspose* docs).
    bool conv(std::size_t n, bool transposed) {
        if (in.shape.size() != n + 1)
            return fail("expects an input [C, " + std::string(n == 1 ? "L" : n == 2 ? "H, W" : "D, H, W") +
                        "], got " + shape_text(in.shape));
        const i64 cin = in.shape[0];
        auto cout = r.integer({"out_channels"}, 1, kMaxDimension);
        auto k = sizes("kernel_size", n, 1, 1, true);
        auto s = sizes("stride", n, 1, 1);
        auto p = sizes("padding", n, 0, 0);
        auto d = sizes("dilation", n, 1, 1);
        auto op = sizes("output_padding", n, 0, 0);
        const i64 g = r.integer_or({"groups"}, 1, 1, kMaxDimension);
        if (!cout || !k || !s || !p || !d || !op || !check_in("in_channels", cin, "input channels")) return false;
        if (cin % g || *cout % g)
            return fail("groups " + std::to_string(g) + " must divide input channels " + std::to_string(cin) +
                        " and out_channels " + std::to_string(*cout));
        out.shape = {*cout};
        Checked kernel = 1;
        for (std::size_t i = 0; i < n; ++i) {
            const Checked span = Checked((*d)[i]) * Checked((*k)[i] - 1) + Checked(1);
            Checked o = transposed ? Checked(in.shape[i + 1] - 1) * Checked((*s)[i]) + Checked(-2 * (*p)[i]) + span + Checked((*op)[i])
                                   : Checked(in.shape[i + 1] + 2 * (*p)[i]) + Checked(-span.value);
            if (o.overflow || span.overflow) return fail("sizes overflow");
            const i64 size = transposed ? o.value : (o.value < 0 ? 0 : o.value / (*s)[i] + 1);
            if (size < 1 || o.value < 0)
                return fail("kernel " + shape_text(*k) + " does not fit input " + shape_text(in.shape) +
                            " (padding " + shape_text(*p) + ", dilation " + shape_text(*d) + ")");
            out.shape.push_back(size);
            kernel = kernel * Checked((*k)[i]);
        }
        const i64 per_out = transposed ? *cout / g : cin / g;
        const Checked cols = Checked(per_out) * kernel;
        if (cols.overflow || !numel(out.shape)) return fail("sizes overflow");
        // Weight [Cout, Cin/g, k...] (transposed: [Cin, Cout/g, k...]); bias Cout.
        if (transposed) {
            param(PC::mlp, Role::up, "weight", cin, cols.value, false, false);
            if (r.boolean_or("bias", true)) param(PC::mlp, Role::up, "bias", *cout, 1, false, false);
            out.flops = 2.0 * in_elems() * static_cast<double>(cols.value);
        } else {
            param(PC::mlp, Role::up, "weight", *cout, cols.value, r.boolean_or("bias", true), false);
            out.flops = 2.0 * static_cast<double>(elems(out.shape)) * static_cast<double>(cols.value);
        }
        out.save_input = true;
        return true;
    }

    // batch_norm (derivatives.yaml `native_batch_norm`: backward reads input, weight, running stats and
    // the saved per-channel mean and invstd (result1, result2), fp32 for any input dtype).
    bool batch_norm() {
        if (in.shape.empty()) return fail("needs [C] or [C, ...]");
        const i64 c = in.shape[0];
        if (!check_in("num_features", c, "channels")) return false;
        if (r.boolean_or("affine", true)) param(PC::norms, Role::norm, "weight", c, 1, true, false);
        out.buffers = r.boolean_or("track_running_stats", true) ? 2 * c : 0;
        out.shape = in.shape;
        out.save_input = true;
        out.saved_per_batch_bytes = 2.0 * 4 * static_cast<double>(c);
        return true;
    }

    // layer_norm (derivatives.yaml `native_layer_norm`: input, weight, bias and per-row fp32 mean and
    // rstd). Over the last dimension, or over the channels of [C, H, W] ("over": "channels", ConvNeXt's
    // LayerNorm2d: a permute, a last-dim layer norm and a permute back).
    bool layer_norm() {
        if (in.shape.empty()) return fail("needs an input with at least one dimension");
        const bool channels = r.string_or("over", "last") == "channels";
        const i64 width = channels ? in.shape[0] : in.shape.back();
        if (!check_in("normalized_shape", width, "features")) return false;
        if (r.boolean_or("elementwise_affine", true)) param(PC::norms, Role::norm, "weight", width, 1, true, false);
        out.shape = in.shape;
        out.save_input = true;
        out.saved_other_bytes = 8.0 * in_elems() / static_cast<double>(width);
        return true;
    }

    // group_norm (derivatives.yaml `native_group_norm`: input, weight and per-group fp32 mean and rstd).
    bool group_norm() {
        if (in.shape.empty()) return fail("needs [C, ...]");
        const i64 c = in.shape[0];
        auto groups = r.integer({"num_groups"}, 1, kMaxDimension);
        if (!groups || !check_in("num_channels", c, "channels")) return false;
        if (c % *groups) return fail("num_groups " + std::to_string(*groups) + " must divide " + std::to_string(c) + " channels");
        if (r.boolean_or("affine", true)) param(PC::norms, Role::norm, "weight", c, 1, true, false);
        out.shape = in.shape;
        out.save_input = true;
        out.saved_other_bytes = 8.0 * static_cast<double>(*groups);
        return true;
    }

    // embedding (derivatives.yaml `embedding`: `embedding_backward(grad, indices, ...)` keeps the int64 ids).
    bool embedding() {
        if (!in.is_index || in.shape.size() != 1) return fail("reads token ids: the stack input [T] must feed it directly");
        auto n = r.integer({"num_embeddings"}, 1, kMaxDimension);
        auto d = r.integer({"embedding_dim"}, 1, kMaxDimension);
        if (!n || !d) return false;
        param(PC::embeddings, Role::embed, "weight", *n, *d, false, false);
        out.shape = {in.shape[0], *d};
        out.saved_other_bytes = 8.0 * static_cast<double>(in.shape[0]);
        return true;
    }

    // Pooling. max_pool (derivatives.yaml `max_pool2d_with_indices`: self and the int64 indices result1);
    // avg_pool and adaptive_avg_pool (`avg_pool2d_backward(grad, self, ...)`,
    // `_adaptive_avg_pool2d_backward(grad, self)`: self is kept, although only its shape is read).
    bool pool(bool max, bool adaptive) {
        if (in.shape.size() < 2) return fail("expects [C, spatial...], got " + shape_text(in.shape));
        const std::size_t n = in.shape.size() - 1;
        out.shape = {in.shape[0]};
        if (adaptive) {
            auto o = sizes("output_size", n, 1, 1);
            if (!o) return false;
            for (i64 x : *o) out.shape.push_back(x);
        } else {
            auto k = sizes("kernel_size", n, 1, 1, true);
            if (!k) return false;
            auto s = sizes("stride", n, 1, 1);
            if (!r.has("stride")) s = k;  // torch: stride defaults to kernel_size
            auto p = sizes("padding", n, 0, 0);
            auto d = sizes("dilation", n, 1, 1);
            if (!s || !p || !d) return false;
            const bool ceil = r.boolean_or("ceil_mode", false);
            for (std::size_t i = 0; i < n; ++i) {
                const i64 span = (*d)[i] * ((*k)[i] - 1) + 1;
                const i64 room = in.shape[i + 1] + 2 * (*p)[i] - span;
                if (room < 0 || 2 * (*p)[i] > (*k)[i])
                    return fail("kernel " + shape_text(*k) + " does not fit input " + shape_text(in.shape));
                i64 o = (ceil ? (room + (*s)[i] - 1) / (*s)[i] : room / (*s)[i]) + 1;
                if (ceil && (o - 1) * (*s)[i] >= in.shape[i + 1] + (*p)[i]) --o;  // torch's ceil_mode rule
                out.shape.push_back(o);
            }
        }
        out.save_input = true;
        if (max) out.saved_other_bytes = 8.0 * static_cast<double>(elems(out.shape));
        return true;
    }

    // Activations. relu, sigmoid, tanh keep their result (`threshold_backward(grad, result, 0)`,
    // `sigmoid_backward(grad, result)`, `tanh_backward(grad, result)`): in place, the result is the input's
    // storage, so the pair keeps one tensor. gelu, silu, hardswish, hardsigmoid keep self; their in-place
    // forms overwrite self, so autograd keeps a copy of the original (the generated in-place code saves
    // `self.clone()` when a formula reads self).
    bool activation() {
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
    bool dropout() {
        const double p = r.number_or("p", 0.5, 0, 1);
        out.shape = in.shape;
        out.alias_input = p == 0;
        if (p > 0) out.saved_other_bytes = in_elems();
        return true;
    }

    // add: `self: grad, other: grad` keeps nothing. concat along dim 0 (`cat`: only sizes).
    bool merge(bool add) {
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
    bool mul() {
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
    bool attention() {
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
        out.new_saved_elements = 3 * t * d + t * d + t * d;
        out.saved_other_bytes = 4.0 * t * static_cast<double>(*H);
        return true;
    }

    bool upsample() {  // upsample_nearest/bilinear backward reads sizes only
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
    bool vit_piece() {
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
        }
        return true;
    }

    bool flatten() {  // a view: [C, H, W] -> [C*H*W]
        auto n = numel(in.shape);
        if (!n) return fail("input too large");
        out.shape = {*n};
        out.alias_input = true;
        return true;
    }

    bool run() {
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
};

}  // namespace

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
