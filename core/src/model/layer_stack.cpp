// The layer-stack reader: walks the layers (expanding blocks), resolves skip connections by name and
// counts each tensor autograd keeps once, however many ops keep it (a conv's input that an in-place ReLU
// produced is the ReLU's saved result: one tensor). The rules of each type are in layer_ops.cpp.
#include "vramcalc/layer_stack.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "vramcalc/json_text.hpp"

#include "common/checked.hpp"
#include "io/json_reader.hpp"
#include "model/layer_ops.hpp"

namespace vramcalc {

namespace detail {
namespace {

constexpr std::size_t kMaxStackErrors = 20;  // the first problems are the useful ones

struct Value {  // a tensor as the walker sees it: its storage and its shape
    int tensor = 0;
    Shape shape;
};

struct Storage {
    double elements = 0;
    bool saved = false;
    bool index = false;          // int64 token ids (embedding input): its bytes are counted by the embedding
    bool requires_grad = false;  // produced by a layer that trains or from a tensor that requires grad
    i64 first = 0, last = 0;     // the layer that makes it and the last layer that reads it (forward liveness)
};

struct Walker {
    Problems& errors;
    LayerStack& stack;
    std::vector<Storage> storages;
    std::vector<std::map<std::string, Value>> scopes{1};
    std::map<std::string, std::string> types_by_name{};  // qualified name -> layer type, for a name used twice
    i64 expanded = 0;

    bool stop() const { return errors.size() >= kMaxStackErrors; }

    const Value* lookup(const std::string& name) const {
        for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
            auto f = it->find(name);
            if (f != it->end()) return &f->second;
        }
        return nullptr;
    }

    void keep(int tensor, StackLayer& layer) {
        Storage& s = storages[static_cast<std::size_t>(tensor)];
        if (s.saved || s.index) return;
        s.saved = true;
        layer.saved_elements += s.elements;
    }

    bool resolve(const json& ref, const std::string& where, std::vector<Value>& out) {
        if (ref.is_string()) {
            const Value* v = lookup(ref.get<std::string>());
            if (!v) {
                errors.push_back({where, "\"from\": no earlier layer is named \"" + ref.get<std::string>() + "\""});
                return false;
            }
            out.push_back(*v);
            return true;
        }
        if (ref.is_array() && !ref.empty() && ref.size() <= 64) {
            for (const auto& x : ref)
                if (!resolve(x, where, out)) return false;
            return true;
        }
        errors.push_back({where, "\"from\": got " + describe(ref) + ", expected a layer name or a list of up to 64"});
        return false;
    }

    // One name is one module. torchvision's ResNet calls its parameter-free `relu` twice, and the stacks
    // mirror that, but a name that returns as another type, or as a layer with weights (which would be
    // counted twice), is a contradiction (issue 42).
    bool same_module(const std::string& qualified, const std::string& type, bool has_params, const std::string& where) {
        const auto [it, first] = types_by_name.emplace(qualified, type);
        if (first) return true;
        if (it->second != type)
            errors.push_back({where, "the name \"" + qualified + "\" already names a " + it->second + " layer: one module cannot be a " +
                                         type + " too; give this layer its own name"});
        else if (has_params)
            errors.push_back({where, "the " + type + " \"" + qualified + "\" appears twice and has weights, which would be counted twice; "
                                                                         "give the second its own name"});
        else return true;
        return false;
    }

    bool block(const json& l, const std::string& at, const std::string& where, const std::string& qualified, int depth,
               bool trains, Value& cur) {
        FieldReader r(l, where, errors);
        if (depth >= kMaxStackDepth) {
            errors.push_back({where, "blocks nested deeper than " + std::to_string(kMaxStackDepth)});
            return false;
        }
        auto repeat = r.integer_or({"repeat"}, 1, 1, kMaxStackLayers);
        const i64 start = r.integer_or({"start"}, 0, 0, kMaxStackLayers);
        if (!r.has("layers") || !l.at("layers").is_array() || l.at("layers").empty()) {
            r.error("layers", "missing or empty: a block needs a list of at least one layer");
            return false;
        }
        const bool numbered = repeat > 1 || r.has("start");
        for (i64 i = 0; i < repeat && !stop(); ++i) {
            scopes.emplace_back();
            std::string prefix = qualified;  // appended piece by piece: GCC 12's -Wrestrict misfires on "." + s
            if (numbered) prefix.append(".").append(std::to_string(start + i));
            prefix.append(".");
            const bool ok = walk(l.at("layers"), at + ".layers", prefix, depth + 1, trains, cur);
            scopes.pop_back();
            if (!ok) return false;
        }
        return true;
    }

    bool layer(const json& l, std::size_t i, const std::string& path, const std::string& prefix, int depth, bool trains,
               Value& cur) {
        const std::string at = path + "[" + std::to_string(i) + "]";
        if (++expanded > kMaxStackLayers) {
            errors.push_back({at, "more than " + std::to_string(kMaxStackLayers) + " layers after expanding repeats"});
            return false;
        }
        if (!l.is_object()) {
            errors.push_back({at, "got " + describe(l) + ", expected a layer object with a \"type\""});
            return false;
        }
        FieldReader r(l, at, errors);
        const std::string type = r.string_or("type", "");
        const std::string own = r.string_or("name", "");
        const std::string qualified = prefix + (own.empty() ? std::to_string(i) : own);
        const std::string where = at + " (" + qualified + ")";
        const auto& types = layer_stack_types();
        if (std::find(types.begin(), types.end(), type) == types.end()) {
            errors.push_back({where, type.empty() ? "missing \"type\"" : "unknown layer type \"" + type + "\""});
            return false;
        }
        trains = r.boolean_or("trainable", trains);
        if (type == "block") {
            if (!block(l, at, where, qualified, depth, trains, cur)) return false;
        } else if (!op(l, type, qualified, where, trains, cur)) {
            return false;
        }
        if (!own.empty()) scopes.back()[own] = cur;  // a later "from" reads the latest output of that name
        return true;
    }

    bool op(const json& l, const std::string& type, const std::string& qualified, const std::string& where, bool trains,
            Value& cur) {
        OpInput in;
        Value src = cur;
        if (l.contains("input_from")) {
            std::vector<Value> v;
            if (!resolve(l.at("input_from"), where, v) || v.size() != 1) return false;
            src = v.front();
        }
        std::vector<Value> others;
        if (type == "add" || type == "concat" || type == "mul" || type == "to_grid") {
            if (!l.contains("from")) {
                errors.push_back({where, type + (type == "to_grid" ? " needs \"from\": an earlier [C, H, W] tensor whose grid it restores"
                                                                   : " needs \"from\": the earlier layer(s) to merge with its input")});
                return false;
            }
            if (!resolve(l.at("from"), where, others)) return false;
            if (type == "to_grid" && others.size() != 1) {
                errors.push_back({where, "to_grid: \"from\" names one tensor"});
                return false;
            }
        } else if (type == "multi_head_attention" && l.contains("kv_from")) {  // cross-attention
            if (!resolve(l.at("kv_from"), where, others)) return false;
            if (others.size() != 1) {
                errors.push_back({where, "multi_head_attention: \"kv_from\" names one tensor"});
                return false;
            }
        }
        for (const auto& o : others) in.others.push_back(o.shape);
        const i64 at_layer = static_cast<i64>(stack.layers.size());
        storages[static_cast<std::size_t>(src.tensor)].last = at_layer;
        for (const auto& o : others) storages[static_cast<std::size_t>(o.tensor)].last = at_layer;
        in.shape = src.shape;
        in.is_index = storages[static_cast<std::size_t>(src.tensor)].index;
        auto res = apply_layer(l, type, qualified, in, where, errors);
        if (!res || !same_module(qualified, type, !res->params.empty(), where)) return false;
        StackLayer L;
        L.name = qualified;
        L.type = type;
        L.in_shape = src.shape;
        L.out_shape = res->shape;
        L.params = std::move(res->params);
        L.buffers = res->buffers;
        L.flops = res->flops;
        L.trainable = trains;
        // Autograd records an op only when some input requires grad (a trained weight or an upstream tensor).
        bool in_grad = storages[static_cast<std::size_t>(src.tensor)].requires_grad;
        for (const auto& o : others) in_grad = in_grad || storages[static_cast<std::size_t>(o.tensor)].requires_grad;
        const bool weights_train = trains && !L.params.empty();
        const bool recorded = in_grad || weights_train;
        if (recorded) {
            if (res->save_input && (weights_train || !res->input_for_weights)) keep(src.tensor, L);
            if (res->save_others && (weights_train || !res->input_for_weights))
                for (const auto& o : others) keep(o.tensor, L);
        }
        Value out{src.tensor, res->shape};
        if (!res->alias_input) {
            out.tensor = static_cast<int>(storages.size());
            storages.push_back({static_cast<double>(*numel(res->shape)), false, false, false, at_layer, at_layer});
        }
        storages[static_cast<std::size_t>(out.tensor)].requires_grad = recorded;
        if (recorded) {
            if (res->save_output) keep(out.tensor, L);
            L.saved_elements += res->new_saved_elements - (weights_train ? 0 : res->weight_grad_elements);
            L.saved_other_bytes = res->saved_other_bytes;
            L.saved_per_batch_bytes = res->saved_per_batch_bytes;
        }
        stack.layers.push_back(std::move(L));
        cur = out;
        return true;
    }

    // The forward working set without autograd: each tensor is alive from its producer to its last reader
    // (a difference array over the layers), the final output to the end.
    void liveness(int output) {
        // At least one layer: "layers" and every block's list are refused when empty (issue 42: an empty
        // block once left none, and the difference array below was written past its end).
        const std::size_t n = stack.layers.size();
        std::vector<double> delta(n + 1, 0.0);
        storages[static_cast<std::size_t>(output)].last = static_cast<i64>(n) - 1;
        for (const auto& s : storages) {
            delta[static_cast<std::size_t>(s.first)] += s.elements;
            delta[static_cast<std::size_t>(std::max(s.first, s.last)) + 1] -= s.elements;
            stack.largest_tensor_elements = std::max(stack.largest_tensor_elements, s.elements);
        }
        double live = 0;
        for (std::size_t i = 0; i < n; ++i) stack.forward_peak_elements = std::max(stack.forward_peak_elements, live += delta[i]);
    }

    bool walk(const json& layers, const std::string& path, const std::string& prefix, int depth, bool trains, Value& cur) {
        for (std::size_t i = 0; i < layers.size() && !stop(); ++i)
            if (!layer(layers[i], i, path, prefix, depth, trains, cur)) return false;
        return !stop();
    }
};

bool read_input(const json& j, const std::string& field, Shape& out, Problems& errors) {
    if (!j.is_array() || j.empty() || j.size() > 4) {
        errors.push_back({field, "got " + describe(j) + ", expected 1 to 4 positive sizes ([C, H, W], [T, D], [N])"});
        return false;
    }
    for (const auto& d : j) {
        if (!d.is_number_integer() || d.get<i64>() < 1 || d.get<i64>() > kMaxDimension) {
            errors.push_back({field, "got " + describe(j) + ", expected sizes from 1 to " + std::to_string(kMaxDimension)});
            return false;
        }
        out.push_back(d.get<i64>());
    }
    if (!numel(out)) {
        errors.push_back({field, "got " + describe(j) + ": too many elements"});
        return false;
    }
    return true;
}

// Further named inputs besides "input" ({"context": [77, 768], "timestep": [320]}: a UNet's text
// conditioning and timestep features), per sample; a layer reads one with "input_from" or "kv_from".
// They need no gradient (the text encoder is not in the stack).
bool read_inputs(const json& j, const std::string& p, Walker& w, Problems& errors) {
    if (!j.contains("inputs")) return true;
    const json& ins = j.at("inputs");
    if (!ins.is_object() || ins.size() > 8) {
        errors.push_back({p + "inputs", "got " + describe(ins) + ", expected an object of up to 8 named shapes, e.g. {\"context\": [77, 768]}"});
        return false;
    }
    for (const auto& [name, shape] : ins.items()) {
        Shape s;
        if (name.empty()) {
            errors.push_back({p + "inputs", "an input needs a name"});
            return false;
        }
        if (!read_input(shape, p + "inputs." + name, s, errors)) return false;
        w.scopes.front()[name] = Value{static_cast<int>(w.storages.size()), s};
        w.storages.push_back({static_cast<double>(*numel(s)), false, false, false});
    }
    return true;
}

}  // namespace
}  // namespace detail

const std::vector<std::string>& layer_stack_types() {
    static const std::vector<std::string> types = {
        "linear", "conv1d", "conv2d", "conv3d", "conv_transpose2d", "batch_norm", "batch_norm1d", "batch_norm2d",
        "layer_norm", "group_norm", "embedding", "max_pool", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool",
        "adaptive_avg_pool", "relu", "gelu", "silu", "sigmoid", "hardswish", "hardsigmoid", "tanh", "dropout",
        "add", "concat", "mul", "flatten", "multi_head_attention", "upsample", "identity", "block", "class_token",
        "position_embedding", "to_tokens", "select_token", "layer_scale", "geglu", "to_grid"};
    return types;
}

Result<LayerStack> layer_stack_from_json(const nlohmann::json& j, const std::string& field_prefix) {
    using namespace detail;
    Result<LayerStack> res;
    const std::string p = field_prefix.empty() ? "" : field_prefix + ".";
    if (!j.is_object()) {
        res.errors.push_back({field_prefix, "got " + describe(j) + ", expected an object with \"input\" and \"layers\""});
        return res;
    }
    LayerStack st;
    if (!j.contains("input")) res.errors.push_back({p + "input", "missing: the per-sample input shape, e.g. [3, 224, 224]"});
    else read_input(j.at("input"), p + "input", st.input, res.errors);
    if (!j.contains("layers") || !j.at("layers").is_array() || j.at("layers").empty())
        res.errors.push_back({p + "layers", "missing or empty: a list of layer objects"});
    if (!res.errors.empty()) return res;
    const json& layers = j.at("layers");
    Walker w{res.errors, st, {}};
    const bool tokens = st.input.size() == 1 && layers[0].is_object() && layers[0].value("type", json()) == "embedding";
    w.storages.push_back({static_cast<double>(*numel(st.input)), false, tokens, false});
    Value cur{0, st.input};
    if (!read_inputs(j, p, w, res.errors)) return res;
    if (j.contains("loss")) {
        const json& loss = j.at("loss");
        if (loss == "mse") st.loss = LayerStack::Loss::mse;
        else if (loss != "cross_entropy") {
            res.errors.push_back({p + "loss", "got " + describe(loss) + ", expected \"cross_entropy\" or \"mse\""});
            return res;
        }
    }
    if (!w.walk(layers, p + "layers", "", 0, true, cur)) return res;
    w.liveness(cur.tensor);
    Checked params = 0, trainable = 0, buffers = 0;
    for (const auto& l : st.layers) {
        for (const auto& g : l.params) {
            const Checked n = Checked(g.rows) * Checked(g.cols) + Checked(g.bias ? g.rows : 0);
            params += n;
            if (l.trainable) trainable += n;
        }
        buffers += l.buffers;
    }
    if (params.overflow || trainable.overflow || buffers.overflow) {
        res.errors.push_back({p + "layers", "the parameter count does not fit in 64 bits"});
        return res;
    }
    st.parameters = params.value;
    st.trainable_parameters = trainable.value;
    st.buffers = buffers.value;
    res.value = std::move(st);
    return res;
}

Result<LayerStack> layer_stack_from_text(std::string_view text) {
    std::string why;  // the nesting limit: dumping and copying a 100 000-deep value recurse (json_text.hpp)
    auto j = parse_json_text(text, why);
    if (!j) {
        Result<LayerStack> r;
        r.errors.push_back({"", why});
        return r;
    }
    return layer_stack_from_json(*j);
}

bool is_layer_stack_json(const nlohmann::json& j) {
    return j.is_object() && j.contains("layers") && !j.contains("model_type");
}

Result<ModelSpec> model_from_layer_stack_json(const nlohmann::json& j, const std::string& name, const std::string& field_prefix) {
    auto st = layer_stack_from_json(j, field_prefix);
    Result<ModelSpec> r;
    r.errors = std::move(st.errors);
    r.warnings = std::move(st.warnings);
    if (st.value && r.errors.empty()) r.value = model_from_layer_stack(std::move(*st.value), name);
    return r;
}

}  // namespace vramcalc
