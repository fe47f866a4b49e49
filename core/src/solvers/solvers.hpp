// Internal: the inference solvers (the public training and catalog solvers are in vramcalc/estimate.hpp).
#pragma once

#include <cstdint>

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// The most sequences of prompt_len + gen_len at once, and the longest prompt_len + gen_len at `batch`,
// on the scenario's GPU.
// The context is capped by context_cap (memory_context: what memory alone would allow).
struct InferenceLimits {
    std::int64_t max_concurrent_sequences = 0;
    std::int64_t max_context = 0;
    std::int64_t memory_context = 0;
};
InferenceLimits inference_limits(const Scenario& s);

// The longest context a request may have whatever the memory: vLLM's and torchtune's max_model_len where
// set, else the model's max_position_embeddings; {0, ""} when neither is known.
struct ContextCap {
    std::int64_t tokens = 0;
    const char* name = "";
};
ContextCap context_cap(const Scenario& s);
// The first half of inference_limits: the most sequences of prompt_len + gen_len at once.
std::int64_t max_concurrent_sequences(const Scenario& s);

}  // namespace vramcalc::detail
