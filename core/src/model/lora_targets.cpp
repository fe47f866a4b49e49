#include "model/lora_targets.hpp"

#include <algorithm>
#include <set>

namespace vramcalc::detail {

bool lora_targets(const LoraSetup& l, const ParamGroup& g) {
    if (!g.is_linear) return false;
    if (l.all_linear) return g.category != ParamCategory::lm_head;
    if (l.targets.empty()) return g.role == Role::q || g.role == Role::v || g.role == Role::qkv;
    return std::find(l.targets.begin(), l.targets.end(), g.name) != l.targets.end();
}

std::string lora_target_names(const LoraSetup& l, const ModelSpec& m) {
    std::set<std::string> seen;
    std::string out;
    for (const auto& g : m.params)
        if (lora_targets(l, g) && seen.insert(g.name).second) out += (out.empty() ? "" : ", ") + g.name;
    return out;
}

}  // namespace vramcalc::detail
