// Internal: a quantization_config's module list (ignore, modules_to_not_convert, exclude_modules, targets) as
// the producers write it: "re:" regular expressions (compressed-tensors), globs (ModelOpt, gpt-oss) and literal
// module names, some naming one layer ("model.layers.4.mixer.in_proj"). Matched against a tensor group by the
// module paths the HF classes give it (model.layers.#.self_attn.q_proj, backbone.layers.#.mixer.in_proj,
// model.layers.#.mlp.experts.#.up_proj, ...).
#pragma once

#include <vector>

#include "io/json_reader.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

class ModuleList {
public:
    explicit ModuleList(const json& list);  // entries that are not strings, or patterns it cannot read, name nothing
    ModuleList(const ModuleList&);
    ModuleList(ModuleList&&) noexcept;
    ModuleList& operator=(const ModuleList&);
    ModuleList& operator=(ModuleList&&) noexcept;
    ~ModuleList();
    bool empty() const { return patterns_.empty(); }
    // How many of the group's `count` tensors the list names, handing out each one-layer entry once (to the
    // first group that takes it); all of them when an entry names no one layer.
    i64 take(const ParamGroup& g, i64 experts);
    // The same without using up any entry.
    i64 count(const ParamGroup& g, i64 experts) const;

    struct Pattern;

private:
    std::vector<Pattern> patterns_;
    std::vector<i64> left_;
};

}  // namespace vramcalc::detail
