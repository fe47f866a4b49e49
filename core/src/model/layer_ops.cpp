// The rules of each layer type. What autograd saves follows PyTorch's tools/autograd/derivatives.yaml
// (the backward formula of each op names the tensors its node keeps; the code generator saves an input
// only when a gradient that needs it is required). docs/methodology.md "Layer stacks" repeats them.
// This file: weights, norms and pools; layer_ops_flow.cpp: activations, merges, attention and views.
#include "model/layer_op.hpp"

#include "common/checked.hpp"

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

using PC = ParamCategory;

// A size given as one integer or one per spatial dimension.
std::optional<Shape> Op::sizes(std::string_view key, std::size_t n, i64 fallback, i64 lo, bool required) {
    if (!r.has(key)) {
        if (required) {
            r.error(key, "missing required key");
            return std::nullopt;
        }
        return Shape(n, fallback);
    }
    const json& v = j.at(std::string(key));
    if (v.is_array()) {
        if (v.size() != n) {
            r.error(key, "got " + describe(v) + ", expected " + std::to_string(n) + " integers");
            return std::nullopt;
        }
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

void Op::param(PC c, Role role, std::string leaf, i64 rows, i64 cols, bool bias, bool linear) {
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

bool Op::check_in(std::string_view key, i64 actual, const char* what) {
    const i64 declared = r.integer_or({key}, actual, 1, kMaxDimension);
    if (declared != actual)
        return fail("expects " + std::to_string(declared) + " " + what + ", got " + std::to_string(actual) +
                    " (input " + shape_text(in.shape) + ")");
    return true;
}

// Linear (derivatives.yaml `linear` -> addmm/mm: `mat2: mat1.t().mm(grad)` keeps the input when the
// weight trains). Applies to the last dimension, or to dim 0 of [C, ...] with "over": "channels".
bool Op::linear() {
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
    out.input_for_weights = true;
    return true;
}

// Convolution (derivatives.yaml `convolution`: backward reads input and weight; the input is kept
// because the weight trains). out = floor((in + 2p - d(k-1) - 1) / s) + 1; transposed:
// (in - 1)s - 2p + d(k-1) + output_padding + 1 (torch.nn.Conv*/ConvTranspose* docs).
bool Op::conv(std::size_t n, bool transposed) {
    if (in.shape.size() != n + 1)
        return fail("expects an input [C, " + std::string(n == 1 ? "L" : n == 2 ? "H, W"
                                                                                : "D, H, W") +
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
    out.input_for_weights = true;
    return true;
}

// batch_norm (derivatives.yaml `native_batch_norm`: backward reads input, weight, running stats and
// the saved per-channel mean and invstd (result1, result2), fp32 for any input dtype).
bool Op::batch_norm() {
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
bool Op::layer_norm() {
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
bool Op::group_norm() {
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
bool Op::embedding() {
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
bool Op::pool(bool max, bool adaptive) {
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
}  // namespace vramcalc::detail
