// config.json's quantization_config -> CheckpointQuant: which weight format a pre-quantised checkpoint stores
// its linears in, and which of them its exclusion list keeps in 16 bits (ParamGroup::checkpoint_16bit).
// Read for the four producers whose checkpoints vLLM loads from the config alone:
//  - transformers' FP8 / DeepSeek's native fp8 (quant_method "fp8"): weight_block_size [128, 128] gives one
//    fp32 weight_scale_inv per block (vLLM Fp8LinearMethod, block quant), null a per-tensor scale;
//    modules_to_not_convert.
//  - MXFP4 (quant_method "mxfp4", gpt-oss): 4-bit e2m1 in `_blocks` and one e8m0 byte per 32 weights in
//    `_scales` (transformers integrations/mxfp4.py; vLLM model_executor/layers/quantization/mxfp4.py);
//    modules_to_not_convert.
//  - NVIDIA ModelOpt (quant_method "modelopt", or a bare quant_algo): "FP8" one fp32 weight_scale and
//    input_scale per tensor; "NVFP4" e2m1 weights, one e4m3 weight_scale per 16 inputs, fp32 weight_scale_2
//    and input_scale (vLLM quantization/modelopt.py ModelOptFp8Config / ModelOptNvFp4Config); exclude_modules
//    (or ignore).
//  - compressed-tensors (quant_method "compressed-tensors"): config_groups' weights {num_bits, type,
//    strategy, group_size, block_structure, symmetric} and targets, ignore (compressed-tensors
//    quantization/quant_scheme.py; vLLM quantization/compressed_tensors/compressed_tensors.py).
// GPTQ / AWQ (bits, group_size) and bitsandbytes (load_in_4bit / load_in_8bit) map onto their formats.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <set>

#include "model/families.hpp"
#include "model/quant_config.hpp"

namespace vramcalc::detail {
namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
std::string str(const json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}
i64 integer(const json& o, const char* key, i64 fallback) {
    const auto it = o.find(key);
    return it != o.end() && it->is_number_integer() ? it->get<i64>() : fallback;
}
const json& member(const json& o, const char* key) {
    static const json null;
    const auto it = o.find(key);
    return it != o.end() ? *it : null;
}

// The regular expressions exclusion lists use (".*mlp.gate$", "re:.*self_attn.*",
// "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"): literals, '.', escapes, [classes], groups "(...)" / "(?:...)",
// alternation and '*' '+' '?' after an atom, matched against the whole name by backtracking. Counted repeats
// ("{2}") and look-arounds are not read: the entry then names nothing. No exception is thrown, which the page's
// wasm build does not catch.
class Regex {
public:
    static std::optional<Regex> parse(std::string_view src) {
        Regex r;
        if (!src.empty() && src.front() == '^') src.remove_prefix(1);
        if (!src.empty() && src.back() == '$' && (src.size() < 2 || src[src.size() - 2] != '\\')) src.remove_suffix(1);
        std::size_t i = 0;
        const int root = r.alternation(src, i, 0);
        if (root < 0 || i != src.size()) return std::nullopt;
        r.root_ = root;
        return r;
    }
    bool matches(std::string_view s) const {
        return match(root_, s, 0, [&](std::size_t end) { return end == s.size(); });
    }

private:
    // A node: a character set (one character), a sequence of nodes, or a choice between sequences; any node
    // may repeat (min, max).
    struct Node {
        enum Kind { chars, sequence, choice } kind = chars;
        bool any = false, negate = false;
        std::string set;
        std::vector<int> parts;
        int min = 1, max = 1;  // max -1: unbounded
    };
    std::vector<Node> nodes_;
    int root_ = -1;
    static constexpr int kMaxDepth = 64;

    int add(Node n) {
        nodes_.push_back(std::move(n));
        return static_cast<int>(nodes_.size()) - 1;
    }
    int alternation(std::string_view s, std::size_t& i, int depth) {
        if (depth > kMaxDepth) return -1;
        Node c;
        c.kind = Node::choice;
        for (;;) {
            const int seq = sequence(s, i, depth);
            if (seq < 0) return -1;
            c.parts.push_back(seq);
            if (i < s.size() && s[i] == '|') {
                ++i;
                continue;
            }
            break;
        }
        return c.parts.size() == 1 ? c.parts[0] : add(std::move(c));
    }
    int sequence(std::string_view s, std::size_t& i, int depth) {
        Node q;
        q.kind = Node::sequence;
        while (i < s.size() && s[i] != '|' && s[i] != ')') {
            const int a = atom(s, i, depth);
            if (a < 0) return -1;
            if (i < s.size() && (s[i] == '*' || s[i] == '+' || s[i] == '?')) {
                nodes_[static_cast<std::size_t>(a)].min = s[i] == '+' ? 1 : 0;
                nodes_[static_cast<std::size_t>(a)].max = s[i] == '?' ? 1 : -1;
                ++i;
            }
            q.parts.push_back(a);
        }
        return add(std::move(q));
    }
    int atom(std::string_view s, std::size_t& i, int depth) {
        const char c = s[i];
        if (c == '(') {
            ++i;
            if (s.substr(i, 2) == "?:") i += 2;
            else if (i < s.size() && s[i] == '?') return -1;  // look-arounds, named groups
            const int inner = alternation(s, i, depth + 1);
            if (inner < 0 || i >= s.size() || s[i] != ')') return -1;
            ++i;
            Node wrap;  // its own node, so a repeat applies to the group
            wrap.kind = Node::sequence;
            wrap.parts = {inner};
            return add(std::move(wrap));
        }
        if (c == '{' || c == '}' || c == '*' || c == '+' || c == '?') return -1;
        Node n;
        if (c == '\\') {
            if (i + 1 >= s.size()) return -1;
            const char e = s[i + 1];
            if (e == 'd') n.set = "0123456789";
            else if (e == 'w') n.set = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
            else n.set = std::string(1, e);
            i += 2;
        } else if (c == '[') {
            const std::size_t end = s.find(']', i + 1);
            if (end == std::string_view::npos) return -1;
            std::string_view set = s.substr(i + 1, end - i - 1);
            n.negate = !set.empty() && set.front() == '^';
            if (n.negate) set.remove_prefix(1);
            for (std::size_t k = 0; k < set.size(); ++k) {
                if (k + 2 < set.size() && set[k + 1] == '-') {
                    for (int ch = set[k]; ch <= set[k + 2]; ++ch) n.set += static_cast<char>(ch);
                    k += 2;
                } else {
                    n.set += set[k];
                }
            }
            i = end + 1;
        } else {
            n.any = c == '.';
            if (!n.any) n.set = std::string(1, c);
            ++i;
        }
        return add(std::move(n));
    }

    using Next = std::function<bool(std::size_t)>;
    // Whether node `id` matches s from `at` with the rest of the pattern (`next`) matching after it.
    bool match(int id, std::string_view s, std::size_t at, const Next& next) const {
        const Node& n = nodes_[static_cast<std::size_t>(id)];
        return repeat(n, id, s, at, 0, next);
    }
    bool repeat(const Node& n, int id, std::string_view s, std::size_t at, int done, const Next& next) const {
        // Greedy: one more, then stop (when enough are done). A repetition past its minimum must consume input.
        if (n.max < 0 || done < n.max) {
            const bool more = once(n, s, at, [&](std::size_t end) {
                return (end != at || done + 1 <= n.min) && repeat(n, id, s, end, done + 1, next);
            });
            if (more) return true;
        }
        return done >= n.min && next(at);
    }
    bool once(const Node& n, std::string_view s, std::size_t at, const Next& next) const {
        switch (n.kind) {
            case Node::chars:
                return at < s.size() && (n.any || ((n.set.find(s[at]) != std::string::npos) != n.negate)) && next(at + 1);
            case Node::choice:
                for (int p : n.parts)
                    if (match(p, s, at, next)) return true;
                return false;
            case Node::sequence: return seq(n, 0, s, at, next);
        }
        return false;
    }
    bool seq(const Node& n, std::size_t k, std::string_view s, std::size_t at, const Next& next) const {
        if (k == n.parts.size()) return next(at);
        return match(n.parts[k], s, at, [&](std::size_t end) { return seq(n, k + 1, s, end, next); });
    }
};

// One entry of an exclusion (or target) list, read as the producers write them: "re:<regex>" (compressed-
// tensors), a glob with '*' (ModelOpt's fnmatch, gpt-oss's "model.layers.*.self_attn"), or a literal module
// name matched as a run of whole dotted segments ("lm_head", "gate", or one layer's
// "model.layers.4.mixer.in_proj"). Layer and expert indices of literals become '#', counted per name.
struct Pattern {
    std::string text;           // literal with '#' indices, or the pattern as given
    std::optional<Regex> re;
    bool layer_index = false;   // a literal naming one layer: counts instances, not the whole group
    bool expert_index = false;  // ... and one expert
    i64 times = 1;              // how many entries normalised to this literal
};

// "model.layers.12.mlp.experts.3.up_proj" -> "model.layers.#.mlp.experts.#.up_proj".
std::string hash_indices(const std::string& s, bool& layer, bool& expert) {
    std::string out;
    std::size_t i = 0;
    while (i < s.size()) {
        const bool start = i == 0 || s[i - 1] == '.';
        std::size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (start && j > i && (j == s.size() || s[j] == '.')) {
            const bool after_experts = out.size() >= 8 && out.compare(out.size() - 8, 8, "experts.") == 0;
            (after_experts ? expert : layer) = true;
            out += '#';
            i = j;
        } else {
            out += s[i++];
        }
    }
    return out;
}

std::string glob_to_regex(const std::string& g) {
    std::string r;
    for (char c : g) {
        if (c == '*') r += ".*";
        else if (c == '?') r += '.';
        else if (std::string_view(".+()[]{}^$|\\").find(c) != std::string_view::npos) (r += '\\') += c;
        else r += c;
    }
    return r;
}

std::vector<Pattern> read_patterns(const json& list) {
    std::map<std::string, Pattern> literals;
    std::vector<Pattern> out;
    if (!list.is_array()) return out;
    for (const auto& e : list) {
        if (!e.is_string()) continue;
        const std::string s = e.get<std::string>();
        Pattern p;
        const bool regex = s.rfind("re:", 0) == 0, glob = s.find('*') != std::string::npos || s.find('?') != std::string::npos;
        if (regex || glob) {
            p.re = Regex::parse(regex ? s.substr(3) : glob_to_regex(s));
            if (!p.re) continue;  // a pattern the small matcher does not read names nothing
            p.text = s;
            out.push_back(std::move(p));
            continue;
        }
        p.text = hash_indices(s, p.layer_index, p.expert_index);
        auto [it, fresh] = literals.emplace(p.text, p);
        if (!fresh) ++it->second.times;
    }
    for (auto& [k, p] : literals) out.push_back(std::move(p));
    return out;
}

// A literal run of segments inside a dotted path.
bool segment_run(const std::string& path, const std::string& lit) {
    for (std::size_t at = path.find(lit); at != std::string::npos; at = path.find(lit, at + 1)) {
        const bool left = at == 0 || path[at - 1] == '.';
        const std::size_t end = at + lit.size();
        if (left && (end == path.size() || path[end] == '.')) return true;
    }
    return false;
}

// The module paths a tensor group may have in a checkpoint: the families' HF names under the layer prefixes
// and parents the producers' lists use ('#' for the layer and expert index).
std::vector<std::string> module_paths(const ParamGroup& g) {
    static const char* const layer_prefixes[] = {"model.layers.#.", "backbone.layers.#.", "model.language_model.layers.#.",
                                                 "language_model.model.layers.#."};
    std::vector<const char*> parents;
    switch (g.category) {
        case ParamCategory::attention: parents = {"self_attn.", "attn.", "attention.", "mixer."}; break;
        case ParamCategory::mamba: parents = {"mixer.", "linear_attn.", "mamba."}; break;
        case ParamCategory::mlp:
            parents = {"mlp.", "feed_forward.", "mixer.", "mlp.shared_expert.", "mlp.shared_experts.", "mixer.shared_experts.",
                       "feed_forward.shared_expert.", "block_sparse_moe."};
            break;
        case ParamCategory::experts:
            parents = {"mlp.experts.#.", "mlp.experts.", "block_sparse_moe.experts.#.", "mixer.experts.#.", "feed_forward.experts."};
            break;
        case ParamCategory::router: parents = {"mlp.", "block_sparse_moe.", "mixer.", "feed_forward."}; break;
        case ParamCategory::lm_head: return {g.name};
        case ParamCategory::embeddings: return {"model." + g.name, "backbone." + g.name, "model.language_model." + g.name};
        default: return {};
    }
    std::vector<std::string> out;
    for (const char* l : layer_prefixes)
        for (const char* p : parents) out.push_back(std::string(l) + p + g.name);
    return out;
}

// Whether a pattern names the module at `path` or one of its parents (a module's exclusion covers its
// children: "model.layers.*.self_attn" keeps q/k/v/o_proj).
bool names(const Pattern& p, const std::string& path) {
    if (!p.re) return segment_run(path, p.text);
    std::string concrete = path;  // '#' stands for any index: try index 0
    for (auto& c : concrete)
        if (c == '#') c = '0';
    std::size_t end = concrete.size();
    while (true) {
        if (p.re->matches(std::string_view(concrete).substr(0, end))) return true;
        const std::size_t dot = concrete.rfind('.', end - 1);
        if (dot == std::string::npos || dot == 0) return false;
        end = dot;
    }
}

// How many of the group's `count` tensors the patterns name (all of them when a pattern names no one layer).
// A pattern naming single layers names `times` tensors per layer's worth in all: `left` (one entry per
// pattern) hands them out once, so two groups of one name (Nemotron-H's Mamba mixers split by what follows
// them) do not both take the same layers; the caller offers the groups the family marks first.
i64 instances_named(const ParamGroup& g, const std::vector<Pattern>& patterns, std::vector<i64>& left, i64 experts) {
    if (patterns.empty()) return 0;
    const auto paths = module_paths(g);
    i64 n = 0;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        const Pattern& p = patterns[i];
        if (std::none_of(paths.begin(), paths.end(), [&](const std::string& path) { return names(p, path); })) continue;
        if (!p.layer_index) return g.count;
        const i64 per_layer = g.routed_expert && experts > 0 && !p.expert_index ? experts : 1;
        const i64 take = std::min(left[i] * per_layer, g.count - n);
        n += take;
        left[i] -= take / per_layer;
    }
    return std::min(n, g.count);
}

i64 named_in(const ParamGroup& g, const std::vector<Pattern>& patterns, i64 experts) {
    std::vector<i64> left;
    for (const auto& p : patterns) left.push_back(p.times);
    return instances_named(g, patterns, left, experts);
}

struct Reading {
    std::string format, note;
    i64 group_size = 0;
    bool asymmetric = false;
    std::vector<Pattern> keep;     // the exclusion list
    std::vector<Pattern> targets;  // compressed-tensors targets other than "Linear" (empty: every linear)
};

// ModelOpt's quant_algo (vLLM quantization/modelopt.py: QUANT_ALGOS "FP8", "FP8_PER_CHANNEL_PER_TOKEN",
// "FP8_PB_WO", "NVFP4"). MIXED_PRECISION names a format per module: not read.
std::string modelopt_format(const std::string& algo) {
    if (algo == "FP8") return "fp8";
    if (algo == "FP8_PER_CHANNEL_PER_TOKEN") return "fp8-channel";
    if (algo == "FP8_PB_WO") return "fp8-block";
    if (algo == "NVFP4") return "nvfp4";
    return "";
}

// compressed-tensors: one config group's weights scheme -> a format (quant_scheme.py QuantizationArgs:
// num_bits, type int|float, strategy tensor|channel|group|block|tensor_group, group_size, block_structure).
bool compressed_tensors(const json& q, Reading& r, std::string& why) {
    const json& groups = member(q, "config_groups");
    if (!groups.is_object() || groups.empty()) {
        why = "compressed-tensors without config_groups";
        return false;
    }
    std::string first;
    for (const auto& [name, grp] : groups.items()) {
        if (!grp.is_object()) continue;
        const json& w = member(grp, "weights");
        if (!w.is_object()) continue;
        const i64 bits = integer(w, "num_bits", 0);
        const std::string type = str(w, "type"), strategy = str(w, "strategy");
        std::string f;
        if (type == "float" && bits == 8) {
            if (strategy == "tensor") f = "fp8";
            else if (strategy == "channel") f = "fp8-channel";
            else if (strategy == "block") {
                const json& b = member(w, "block_structure");
                if (b.is_array() && b.size() == 2 && b[0] == 128 && b[1] == 128) f = "fp8-block";
            }
        } else if (type == "float" && bits == 4) {
            const i64 g = integer(w, "group_size", 0);
            if (g == 16) f = "nvfp4";
            else if (g == 32) f = "mxfp4";
        } else if (type == "int" && bits == 4 && (strategy == "group" || strategy == "channel")) {
            f = "w4a16";
            r.group_size = strategy == "group" ? integer(w, "group_size", 128) : -1;
            const auto sym = w.find("symmetric");
            r.asymmetric = sym != w.end() && sym->is_boolean() && !sym->get<bool>();
        }
        if (f.empty()) {
            why = "compressed-tensors group \"" + name + "\" (" + type + " " + std::to_string(bits) + "-bit, strategy " + strategy +
                  ") has no byte rule yet";
            return false;
        }
        if (!first.empty() && f != first) {
            why = "compressed-tensors groups of two formats (" + first + ", " + f + ")";
            return false;
        }
        first = f;
        const json& t = member(grp, "targets");
        if (t.is_array())
            for (const auto& e : t)
                if (e.is_string() && e.get<std::string>() != "Linear") r.targets = read_patterns(t);
    }
    if (first.empty()) {
        why = "compressed-tensors config_groups without weights";
        return false;
    }
    r.format = first;
    return true;
}

bool read_reading(const json& q, Reading& r, std::string& why) {
    std::string method = lower(str(q, "quant_method"));
    if (method.empty() && q.contains("quant_algo")) method = "modelopt";  // ModelOpt's hf_quant_config shape
    if (method == "fp8") {
        // transformers FineGrainedFP8Config / DeepSeek's native fp8: weight_block_size [128, 128] or per-tensor.
        const json& b = member(q, "weight_block_size");
        if (b.is_array() && b.size() == 2 && b[0] == 128 && b[1] == 128) r.format = "fp8-block";
        else if (b.is_null()) r.format = "fp8";
        else {
            why = "fp8 weight_block_size " + b.dump() + " (only [128, 128] has a byte rule)";
            return false;
        }
        r.keep = read_patterns(member(q, "modules_to_not_convert"));
    } else if (method == "mxfp4") {
        r.format = "mxfp4";
        r.keep = read_patterns(member(q, "modules_to_not_convert"));
    } else if (method == "modelopt" || method == "modelopt_fp4") {
        const std::string algo = str(q, "quant_algo");
        r.format = modelopt_format(algo);
        if (r.format.empty()) {
            why = "ModelOpt quant_algo \"" + algo + "\"";
            return false;
        }
        r.keep = read_patterns(q.contains("exclude_modules") ? member(q, "exclude_modules") : member(q, "ignore"));
    } else if (method == "compressed-tensors") {
        if (!compressed_tensors(q, r, why)) return false;
        r.keep = read_patterns(member(q, "ignore"));
    } else if (method == "gptq" || method == "awq") {
        const i64 bits = integer(q, "bits", integer(q, "w_bit", 4));
        if (bits != 4 && bits != 8) {
            why = method + " with " + std::to_string(bits) + " bits";
            return false;
        }
        r.format = method + "-int" + std::to_string(bits);
        r.group_size = integer(q, "group_size", integer(q, "q_group_size", 128));
        r.keep = read_patterns(member(q, "modules_to_not_convert"));
    } else if (method == "bitsandbytes") {
        const auto flag = [&](const char* k) { return q.contains(k) && q[k].is_boolean() && q[k].get<bool>(); };
        if (flag("load_in_4bit")) r.format = flag("bnb_4bit_use_double_quant") ? "nf4-dq" : "nf4";
        else if (flag("load_in_8bit")) r.format = "int8";
        else {
            why = "bitsandbytes without load_in_4bit / load_in_8bit";
            return false;
        }
        r.keep = read_patterns(member(q, "llm_int8_skip_modules"));
    } else {
        why = "quant_method \"" + method + "\"";
        return false;
    }
    return true;
}

}  // namespace

void read_quantization_config(ModelSpec& m, const json& config, std::vector<std::string>& warnings) {
    const json* q = nullptr;
    for (const json* o : {&config, &member(config, "text_config")}) {
        const json& v = member(*o, "quantization_config");
        if (v.is_object() && !v.empty()) {
            q = &v;
            break;
        }
    }
    if (!q) return;
    Reading r;
    std::string why;
    if (!read_reading(*q, r, why)) {
        warnings.push_back("quantization_config: " + why + " is not read; the weights follow the scenario's `weights` (16-bit by "
                           "default), so a pre-quantised checkpoint's size may be off: set weights, or checkpoint_bytes from its headers");
        return;
    }
    m.quant.format = r.format;
    m.quant.method = lower(str(*q, "quant_method"));
    if (m.quant.method.empty()) m.quant.method = "modelopt";
    m.quant.group_size = r.group_size;
    m.quant.asymmetric = r.asymmetric;
    std::vector<i64> left;
    for (const auto& p : r.keep) left.push_back(p.times);
    i64 kept = 0;
    for (const bool marked : {true, false})
        for (auto& g : m.params) {
            if (!g.is_linear || g.fp8_keeps_16bit != marked) continue;
            g.checkpoint_16bit = instances_named(g, r.keep, left, m.moe.experts);
            if (!r.targets.empty()) g.checkpoint_16bit = std::max(g.checkpoint_16bit, g.count - named_in(g, r.targets, m.moe.experts));
            if (g.category != ParamCategory::lm_head && g.category != ParamCategory::router && g.category != ParamCategory::vision)
                kept += g.checkpoint_16bit;
        }
    m.quant.note = m.quant.method + " quantization_config" + (kept > 0 ? ", " + std::to_string(kept) + " linears kept 16-bit by its list" : "");
}

}  // namespace vramcalc::detail
