// Internal: the module layout of each supported Hugging Face model family.
#pragma once

#include <string>
#include <vector>

#include "io/json_reader.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

struct Limits {
    i64 width = 0, layers = 0, experts = 0;
};

// Dimensions read the same way for every family (aliases resolved, defaults applied).
struct Dims {
    i64 vocab = 0, hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
    i64 intermediate = 0;  // 0 when the config did not give one
    i64 max_positions = 0;
    Limits limits;
};

// Fills `m` (dimensions and parameter inventory) for m.model_type. Returns false on a fatal error
// (recorded through `r`).
bool build_family(ModelSpec& m, const Dims& d, FieldReader& r, std::vector<std::string>& warnings);

}  // namespace vramcalc::detail
