// A PyTorch module repr (`print(model)`) -> a layer stack, for sequential-style models. The repr lists
// the leaf modules in the order they were registered, with their constructor arguments
// (`(conv1): Conv2d(3, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)`); it does not
// show forward's control flow. So the leaves are taken to run in print order, and what that misses is
// reported: residual adds of blocks, branches such as a `downsample` that reads the block's input,
// functional calls (`torch.flatten` in forward: a flatten is inserted before a linear that follows a
// pooling or conv), and modules with no layer type here.
#include "vramcalc/torch_repr.hpp"
#include "vramcalc/json_text.hpp"

#include <cctype>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace vramcalc {

namespace {

using json = nlohmann::json;

std::string trim(std::string_view s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return std::string(s.substr(a, b - a));
}

// One constructor argument: "64", "(3, 3)", "(768,)", "True", "'nearest'", "0.5" -> JSON.
std::optional<json> value_of(const std::string& v) {
    if (v == "True") return json(true);
    if (v == "False") return json(false);
    if (v == "None") return json(nullptr);
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) return json(v.substr(1, v.size() - 2));
    if (!v.empty() && v.front() == '(') {
        json a = json::array();
        std::string cur;
        for (char c : v.substr(1, v.size() - 2)) {
            if (c == ',') {
                if (!trim(cur).empty()) a.push_back(parse_json_or_discarded(trim(cur)));
                cur.clear();
            } else {
                cur += c;
            }
        }
        if (!trim(cur).empty()) a.push_back(parse_json_or_discarded(trim(cur)));
        for (const auto& x : a)
            if (x.is_discarded()) return std::nullopt;
        return a;
    }
    json n = parse_json_or_discarded(v);
    if (n.is_discarded() || !n.is_number()) return json(v);  // an unquoted word (approximate=none, mode=row)
    return n;
}

// "3, 64, kernel_size=(7, 7), bias=False" -> positional and keyword arguments (commas inside () kept).
void split_args(const std::string& s, std::vector<json>& pos, std::map<std::string, json>& kw) {
    std::vector<std::string> parts;
    std::string cur;
    int depth = 0;
    for (char c : s) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) {
            parts.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) parts.push_back(trim(cur));
    for (const auto& p : parts) {
        const auto eq = p.find('=');
        if (eq != std::string::npos && p.find('(') > eq) {
            if (auto v = value_of(trim(p.substr(eq + 1)))) kw[trim(p.substr(0, eq))] = *v;
        } else if (auto v = value_of(p)) {
            pos.push_back(*v);
        }
    }
}

// The torch class -> our layer (nullopt: no layer type for it).
std::optional<json> layer_of(const std::string& cls, const std::vector<json>& pos, std::map<std::string, json>& kw) {
    auto arg = [&](std::size_t i, const char* key) -> json {
        if (kw.count(key)) return kw[key];
        return i < pos.size() ? pos[i] : json();
    };
    json l;
    auto copy = [&](const char* from, const char* to) {
        if (kw.count(from) && !kw[from].is_null()) l[to] = kw[from];
    };
    static const std::map<std::string, std::string> convs = {{"Conv1d", "conv1d"}, {"Conv2d", "conv2d"}, {"Conv3d", "conv3d"}, {"ConvTranspose2d", "conv_transpose2d"}};
    static const std::map<std::string, std::string> acts = {{"ReLU", "relu"}, {"GELU", "gelu"}, {"SiLU", "silu"}, {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"}, {"Hardswish", "hardswish"}, {"Hardsigmoid", "hardsigmoid"}};
    if (auto c = convs.find(cls); c != convs.end()) {
        l = {{"type", c->second}, {"in_channels", arg(0, "in_channels")}, {"out_channels", arg(1, "out_channels")}, {"kernel_size", arg(2, "kernel_size")}};
        for (const char* k : {"stride", "padding", "dilation", "groups", "bias", "output_padding"}) copy(k, k);
    } else if (cls == "Linear" || cls == "NonDynamicallyQuantizableLinear") {
        l = {{"type", "linear"}, {"in_features", arg(0, "in_features")}, {"out_features", arg(1, "out_features")}};
        copy("bias", "bias");
    } else if (cls == "BatchNorm1d" || cls == "BatchNorm2d") {
        l = {{"type", "batch_norm"}, {"num_features", arg(0, "num_features")}};
        copy("affine", "affine");
        copy("track_running_stats", "track_running_stats");
    } else if (cls == "LayerNorm") {
        json n = arg(0, "normalized_shape");
        l = {{"type", "layer_norm"}, {"normalized_shape", n.is_array() && n.size() == 1 ? n[0] : n}};
        copy("elementwise_affine", "elementwise_affine");
    } else if (cls == "GroupNorm") {
        l = {{"type", "group_norm"}, {"num_groups", arg(0, "num_groups")}, {"num_channels", arg(1, "num_channels")}};
        copy("affine", "affine");
    } else if (cls == "Embedding") {
        l = {{"type", "embedding"}, {"num_embeddings", arg(0, "num_embeddings")}, {"embedding_dim", arg(1, "embedding_dim")}};
    } else if (auto a = acts.find(cls); a != acts.end()) {
        l = {{"type", a->second}};
        copy("inplace", "inplace");
    } else if (cls == "MaxPool1d" || cls == "MaxPool2d" || cls == "MaxPool3d" || cls == "AvgPool2d") {
        l = {{"type", cls == "AvgPool2d" ? "avg_pool" : "max_pool"}, {"kernel_size", arg(0, "kernel_size")}};
        for (const char* k : {"stride", "padding", "dilation", "ceil_mode"}) copy(k, k);
    } else if (cls == "AdaptiveAvgPool1d" || cls == "AdaptiveAvgPool2d" || cls == "AdaptiveAvgPool3d") {
        l = {{"type", "adaptive_avg_pool"}, {"output_size", arg(0, "output_size")}};
    } else if (cls == "Dropout" || cls == "Dropout2d") {
        l = {{"type", "dropout"}, {"p", kw.count("p") ? kw["p"] : json(0.5)}};
    } else if (cls == "Flatten") {
        l = {{"type", "flatten"}};
    } else if (cls == "Identity") {
        l = {{"type", "identity"}};
    } else if (cls == "Upsample") {
        l = {{"type", "upsample"}};
        copy("scale_factor", "scale_factor");
        copy("mode", "mode");
    } else {
        return std::nullopt;
    }
    // A stride or padding printed as None is the default; drop nulls so the reader applies its own.
    for (auto it = l.begin(); it != l.end();) it = it->is_null() ? l.erase(it) : std::next(it);
    return l;
}

bool is_container(const std::string& cls) { return cls == "Sequential" || cls == "ModuleList" || cls == "ModuleDict"; }

}  // namespace

Result<ReprImport> layer_stack_from_torch_repr(std::string_view text, const std::vector<i64>& input) {
    Result<ReprImport> out;
    ReprImport imp;
    json layers = json::array();
    std::vector<std::string> scope;  // qualified names of the open containers
    std::size_t line_no = 0, start = 0;
    std::string last_type;
    while (start <= text.size()) {
        const std::size_t nl = text.find('\n', start);
        const std::string line = trim(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
        start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        ++line_no;
        if (line.empty()) continue;
        if (line == ")") {
            if (!scope.empty()) scope.pop_back();
            continue;
        }
        // "(name): Class(args)" or "(name): Class(" or the top "Class(".
        std::string name, rest = line;
        if (line.front() == '(') {
            const auto close = line.find("): ");
            if (close == std::string::npos) {
                imp.notes.push_back("line " + std::to_string(line_no) + " not understood: " + line.substr(0, 80));
                continue;
            }
            name = line.substr(1, close - 1);
            rest = line.substr(close + 3);
        }
        const auto paren = rest.find('(');
        const std::string cls = rest.substr(0, paren);
        std::string qualified;
        for (const auto& s : scope)
            if (!s.empty()) qualified += s + ".";
        qualified += name;
        if (paren == std::string::npos) {
            imp.notes.push_back("line " + std::to_string(line_no) + " not understood: " + line.substr(0, 80));
            continue;
        }
        if (rest.back() == '(') {  // a container opens
            scope.push_back(name.empty() ? std::string() : name);
            if (!name.empty() && !is_container(cls))
                imp.notes.push_back(qualified + " (" + cls +
                                    "): its forward is not in the repr; its layers are taken in print "
                                    "order, each once (add {\"type\": \"add\", \"from\": ...} for a residual, \"input_from\" for a branch, "
                                    "and repeat a module forward calls twice)");
            if (name == "downsample" || name == "shortcut")
                imp.notes.push_back(qualified + ": a " + name +
                                    " branch reads the block's input, not the previous layer; "
                                    "give its first layer \"input_from\" and add the branches");
            continue;
        }
        if (scope.empty() && name.empty()) scope.emplace_back();  // a one-line top module
        std::vector<json> pos;
        std::map<std::string, json> kw;
        split_args(rest.substr(paren + 1, rest.size() - paren - 2), pos, kw);
        auto l = layer_of(cls, pos, kw);
        if (!l) {
            imp.notes.push_back(qualified + " (" + cls + "): no layer type for this module; left out");
            continue;
        }
        const std::string type = (*l)["type"];
        if (type == "linear" && (last_type == "adaptive_avg_pool" || last_type == "max_pool" || last_type == "avg_pool")) {
            layers.push_back({{"type", "flatten"}});
            imp.notes.push_back("a flatten was inserted before " + qualified + " (forward's torch.flatten is not in the repr)");
        }
        if (!name.empty()) (*l)["name"] = qualified;
        layers.push_back(*l);
        last_type = type;
    }
    if (layers.empty()) {
        out.errors.push_back({"repr", "no layer found: paste the output of print(model)"});
        return out;
    }
    imp.stack = {{"input", input}, {"layers", std::move(layers)}};
    out.warnings = imp.notes;
    out.value = std::move(imp);
    return out;
}

json repr_answer(const Result<ReprImport>& r) {
    if (r.ok()) return {{"ok", true}, {"stack", r->stack}, {"notes", r->notes}};
    json errors = json::array();
    for (const auto& e : r.errors) errors.push_back({{"field", e.field}, {"message", e.message}});
    if (errors.empty()) errors.push_back({{"field", "repr"}, {"message", "no conversion"}});
    return {{"ok", false}, {"errors", std::move(errors)}};
}

}  // namespace vramcalc
