// Exact parameter counts from the inventory. All arithmetic is checked: an absurd config gives
// `overflow = true` (reported as an error by the parser), never a wrapped number.
#include "common/checked.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

const char* to_string(ParamCategory c) {
    switch (c) {
        case ParamCategory::embeddings:
            return "embeddings";
        case ParamCategory::attention:
            return "attention";
        case ParamCategory::mlp:
            return "mlp";
        case ParamCategory::experts:
            return "experts";
        case ParamCategory::router:
            return "router";
        case ParamCategory::norms:
            return "norms";
        case ParamCategory::lm_head:
            return "lm_head";
        case ParamCategory::vision:
            return "vision";
        case ParamCategory::mamba:
            return "mamba";
    }
    return "?";
}

const char* to_string(Role r) {
    switch (r) {
        case Role::embed:
            return "embed";
        case Role::q:
            return "q";
        case Role::k:
            return "k";
        case Role::v:
            return "v";
        case Role::qkv:
            return "qkv";
        case Role::o:
            return "o";
        case Role::q_a:
            return "q_a";
        case Role::q_b:
            return "q_b";
        case Role::kv_a:
            return "kv_a";
        case Role::kv_b:
            return "kv_b";
        case Role::gate:
            return "gate";
        case Role::up:
            return "up";
        case Role::gate_up:
            return "gate_up";
        case Role::down:
            return "down";
        case Role::router:
            return "router";
        case Role::norm:
            return "norm";
        case Role::lm_head:
            return "lm_head";
        case Role::pooler:
            return "pooler";
        case Role::vision:
            return "vision";
        case Role::ssm_in:
            return "ssm_in";
        case Role::ssm_out:
            return "ssm_out";
    }
    return "?";
}

ParamBreakdown count_parameters(const ModelSpec& m) {
    ParamBreakdown p;
    if (m.count_only) {
        p.total = p.active = m.declared_parameters;
        return p;
    }
    detail::Checked total, active, linear;
    detail::Checked by_cat[9];
    for (const auto& g : m.params) {
        detail::Checked each = detail::Checked(g.rows) * g.cols + (g.bias ? g.rows : 0);
        detail::Checked n = each * g.count;
        total += n;
        by_cat[static_cast<int>(g.category)] += n;
        if (g.is_linear) linear += n;
        // Routed experts: a token uses top_k of the `experts` copies in each MoE layer.
        if (g.routed_expert && m.moe.experts > 0) active += each * (g.count / m.moe.experts) * m.moe.top_k;
        else active += n;
    }
    p.overflow = total.overflow || active.overflow || linear.overflow;
    for (auto& c : by_cat) p.overflow = p.overflow || c.overflow;
    p.total = total.value;
    p.active = active.value;
    p.linear = linear.value;
    p.embeddings = by_cat[0].value;
    p.attention = by_cat[1].value;
    p.mlp = by_cat[2].value;
    p.experts = by_cat[3].value;
    p.router = by_cat[4].value;
    p.norms = by_cat[5].value;
    p.lm_head = by_cat[6].value;
    p.vision = by_cat[7].value;
    p.mamba = by_cat[8].value;
    return p;
}

i64 HybridSpec::blocks(char kind) const {
    i64 n = 0;
    for (char c : pattern) n += c == kind ? 1 : 0;
    return n;
}

bool layer_attends(const ModelSpec& m, i64 i) {
    if (m.hybrid.pattern.empty()) return true;
    return i >= 0 && i < static_cast<i64>(m.hybrid.pattern.size()) && HybridSpec::attends(m.hybrid.pattern[static_cast<std::size_t>(i)]);
}

i64 attention_layers(const ModelSpec& m) { return m.hybrid.pattern.empty() ? m.layers : m.hybrid.attention_blocks(); }

}  // namespace vramcalc
