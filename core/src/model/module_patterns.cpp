// Exclusion and target lists of a quantization_config (ignore / modules_to_not_convert / exclude_modules /
// targets) matched against the tensor groups of a ModelSpec by their HF module paths.
#include "model/module_patterns.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string_view>

namespace vramcalc::detail {
// Named, not anonymous: ModuleList::Pattern, a class of the header, holds one (GCC's -Wsubobject-linkage).
namespace module_regex {

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
        r.literal_ = r.required_literal();
        return r;
    }
    // Backtracking is exponential on nested repeats ("(.*)*x"); a config is user input, so a pattern that takes
    // more than kMaxSteps node visits on one name names nothing from then on.
    bool matches(std::string_view s) const {
        if (dead_) return false;
        if (s.find(literal_) == std::string_view::npos) return false;  // cheap and exact: most names fail here
        steps_ = 0;
        const bool hit = match(root_, s, 0, [&](std::size_t end) { return end == s.size(); });
        dead_ = steps_ > kMaxSteps;
        return hit && !dead_;
    }

private:
    // A node: a character set (one character), a sequence of nodes, or a choice between sequences; any node
    // may repeat (min, max).
    struct Node {
        enum Kind { chars,
                    sequence,
                    choice } kind = chars;
        bool any = false, negate = false;
        std::string set;
        std::vector<int> parts;
        int min = 1, max = 1;  // max -1: unbounded
    };
    std::vector<Node> nodes_;
    int root_ = -1;
    std::string literal_;  // a run of characters every match contains ("self_attn" of ".*self_attn.*")
    mutable long steps_ = 0;
    mutable bool dead_ = false;
    static constexpr int kMaxDepth = 64;
    static constexpr long kMaxSteps = 200000;

    // The longest run of plain characters, each exactly once, in the top-level sequence of the pattern.
    std::string required_literal() const {
        const Node& root = nodes_[static_cast<std::size_t>(root_)];
        if (root.kind != Node::sequence || root.min != 1 || root.max != 1) return {};
        std::string best, run;
        for (int id : root.parts) {
            const Node& n = nodes_[static_cast<std::size_t>(id)];
            if (n.kind == Node::chars && !n.any && !n.negate && n.set.size() == 1 && n.min == 1 && n.max == 1) {
                run += n.set;
                if (run.size() > best.size()) best = run;
            } else {
                run.clear();
            }
        }
        return best;
    }
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

    // The rest of the pattern, as a non-owning reference to a callable: std::function would allocate a closure
    // for every character tried (a ".*" over a 60-character name is thousands of them, under ASan a page fault
    // each), and every closure here lives on the caller's stack until the call returns.
    class Next {
    public:
        template <class F>
        Next(const F& f)  // NOLINT(google-explicit-constructor): lambdas pass as the continuation
            : obj_(&f), call_([](const void* o, std::size_t end) { return (*static_cast<const F*>(o))(end); }) {}
        bool operator()(std::size_t end) const { return call_(obj_, end); }

    private:
        const void* obj_;
        bool (*call_)(const void*, std::size_t);
    };
    // Whether node `id` matches s from `at` with the rest of the pattern (`next`) matching after it.
    bool match(int id, std::string_view s, std::size_t at, const Next& next) const {
        if (++steps_ > kMaxSteps) return false;
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
            case Node::sequence:
                return seq(n, 0, s, at, next);
        }
        return false;
    }
    bool seq(const Node& n, std::size_t k, std::string_view s, std::size_t at, const Next& next) const {
        if (k == n.parts.size()) return next(at);
        return match(n.parts[k], s, at, [&](std::size_t end) { return seq(n, k + 1, s, end, next); });
    }
};

}  // namespace module_regex
using module_regex::Regex;

// One entry of an exclusion (or target) list, read as the producers write them: "re:<regex>" (compressed-
// tensors), a glob with '*' (ModelOpt's fnmatch, gpt-oss's "model.layers.*.self_attn"), or a literal module
// name matched as a run of whole dotted segments ("lm_head", "gate", or one layer's
// "model.layers.4.mixer.in_proj"). Layer and expert indices of literals become '#', counted per name.

struct ModuleList::Pattern {
    std::string text;  // literal with '#' indices, or the pattern as given
    std::optional<Regex> re;
    bool layer_index = false;   // a literal naming one layer: counts instances, not the whole group
    bool expert_index = false;  // ... and one expert
    i64 times = 1;              // how many entries normalised to this literal
};

namespace {

using Pattern = ModuleList::Pattern;

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
        case ParamCategory::attention:
            parents = {"self_attn.", "attn.", "attention.", "mixer."};
            break;
        case ParamCategory::mamba:
            parents = {"mixer.", "linear_attn.", "mamba."};
            break;
        case ParamCategory::mlp:
            parents = {"mlp.", "feed_forward.", "mixer.", "mlp.shared_expert.", "mlp.shared_experts.", "mixer.shared_experts.",
                       "feed_forward.shared_expert.", "block_sparse_moe."};
            break;
        case ParamCategory::experts:
            parents = {"mlp.experts.#.", "mlp.experts.", "block_sparse_moe.experts.#.", "mixer.experts.#.", "feed_forward.experts."};
            break;
        case ParamCategory::router:
            parents = {"mlp.", "block_sparse_moe.", "mixer.", "feed_forward."};
            break;
        case ParamCategory::lm_head:
            return {g.name};
        case ParamCategory::embeddings:
            return {"model." + g.name, "backbone." + g.name, "model.language_model." + g.name};
        default:
            return {};
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

}  // namespace

ModuleList::ModuleList(const json& list) : patterns_(read_patterns(list)) {
    for (const auto& p : patterns_) left_.push_back(p.times);
}
ModuleList::~ModuleList() = default;
ModuleList::ModuleList(ModuleList&&) noexcept = default;

// A pattern naming single layers names `times` tensors per layer's worth in all: `left_` (one entry per pattern)
// hands them out once, so two groups of one name (Nemotron-H's Mamba mixers split by what follows them) do not
// both take the same layers; the caller offers the groups the family marks first.
i64 ModuleList::take(const ParamGroup& g, i64 experts) {
    if (patterns_.empty()) return 0;
    const auto paths = module_paths(g);
    i64 n = 0;
    for (std::size_t i = 0; i < patterns_.size(); ++i) {
        const Pattern& p = patterns_[i];
        if (std::none_of(paths.begin(), paths.end(), [&](const std::string& path) { return names(p, path); })) continue;
        if (!p.layer_index) return g.count;
        const i64 per_layer = g.routed_expert && experts > 0 && !p.expert_index ? experts : 1;
        const i64 got = std::min(left_[i] * per_layer, g.count - n);
        n += got;
        left_[i] -= got / per_layer;
    }
    return std::min(n, g.count);
}

i64 ModuleList::count(const ParamGroup& g, i64 experts) const {
    ModuleList fresh(*this);
    return fresh.take(g, experts);
}

ModuleList::ModuleList(const ModuleList&) = default;
ModuleList& ModuleList::operator=(const ModuleList&) = default;
ModuleList& ModuleList::operator=(ModuleList&&) noexcept = default;

}  // namespace vramcalc::detail
