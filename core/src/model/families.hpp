// Internal: the module layout of each supported Hugging Face model family.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/json_reader.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc::detail {

// The largest hidden, intermediate or head size a config.json may give (hf_config.cpp and the families).
inline constexpr i64 kMaxWidth = i64{1} << 20;

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

// Fills `m` (dimensions and parameter inventory) with the module layout of `layout` (m.model_type or the
// known relative relative_layout() chose). Returns false on a fatal error (recorded through `r`).
// `r` reads the language model's keys (a wrapper's text_config), `root` the whole config.
bool build_family(ModelSpec& m, const std::string& layout, const Dims& d, FieldReader& r, FieldReader& root,
                  std::vector<std::string>& warnings);
// Multimodal wrappers whose language model's keys sit under text_config (and a tower under vision_config).
bool nests_text_config(const std::string& layout);

// relatives.cpp: whether a model_type has a description of its own.
bool is_known_layout(const std::string& type);
// The layout a config is read with: its own model_type when known; for an unknown type, the known relative
// its keys name unambiguously (MLA ranks -> deepseek_v3), the type itself when it names nothing a
// Llama-style reading would drop; nullopt (an error naming the key recorded through `r`) otherwise.
std::optional<std::string> relative_layout(const json& config, const std::string& type, FieldReader& r);

}  // namespace vramcalc::detail
