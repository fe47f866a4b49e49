#include "inference/placement.hpp"

#include <algorithm>

#include "formats/weight_format_table.hpp"

namespace vramcalc::detail {

double compute_bytes(const Scenario& s) { return unquantized_bytes(s.weights); }

Split split_of(const Scenario& s) {
    Split p{s.tp, s.pp};
    if (p.tp * p.pp == 1 && s.num_gpus > 1) {
        if (s.framework == Framework::vllm) p.tp = s.num_gpus;
        else if (s.framework != Framework::llamacpp) p.pp = s.num_gpus;
    }
    return p;
}

i64 layers_per_stage(const Scenario& s) {
    const Split p = split_of(s);
    return (std::max<i64>(1, s.model.layers) + p.pp - 1) / p.pp;
}

}  // namespace vramcalc::detail
