// Fuzz target: config.json text -> ModelSpec -> exact parameter counts. Any input must give a model or
// errors (never a crash, a throw, UB or a wrapped count); a model's counts are consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "vramcalc/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace vramcalc;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto r = model_from_config_text(text);
    if (!r.ok()) {
        fuzz::require(!r.errors.empty(), "a failed config.json parse reports no error");
        for (const auto& e : r.errors) fuzz::require(!e.message.empty(), "an error without a message");
        return 0;
    }
    const ModelSpec& m = *r.value;
    const ParamBreakdown p = count_parameters(m);
    fuzz::require(!p.overflow, "an accepted config.json overflows the parameter count");
    fuzz::require(p.total > 0 && p.active > 0 && p.active <= p.total, "parameter counts out of order");
    fuzz::require(p.embeddings >= 0 && p.attention >= 0 && p.mlp >= 0 && p.experts >= 0 && p.router >= 0 &&
                      p.norms >= 0 && p.lm_head >= 0 && p.vision >= 0 && p.mamba >= 0 && p.linear >= 0 && p.linear <= p.total,
                  "a negative parameter category");
    // Every category, as unit-params.cpp sums them (a Qwen3.5 DeltaNet's mixer is "mamba", a vision tower "vision").
    fuzz::require(p.embeddings + p.attention + p.mlp + p.experts + p.router + p.norms + p.lm_head + p.vision + p.mamba == p.total,
                  "categories do not sum to the total");
    fuzz::require(m.layers > 0 && m.hidden > 0 && m.vocab > 0 && m.heads > 0 && m.kv_heads > 0, "a zero dimension");
    return 0;
}
