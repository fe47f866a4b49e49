// Advice: what to change when a scenario does not fit (or to raise the batch), each change with its
// computed effect. Every candidate is a JSON merge patch on the scenario, so a UI applies it in one
// click and the numbers shown are the estimator's own, not rules of thumb.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/catalog.hpp"

namespace vramcalc {

struct Advice {
    std::string title;             // "Gradient checkpointing (full)"
    std::string why;               // one sentence: what it does to memory, and its cost
    nlohmann::json patch;          // RFC 7386 merge patch on the scenario
    std::int64_t device_bytes = 0; // device bytes per GPU after the change
    std::int64_t saving_bytes = 0; // before - after (negative: the change costs memory)
    bool fits = false;
    std::int64_t max_batch = 0;    // largest micro_batch (train) or batch (infer) after the change
};

// Candidate changes for `scenario` (already valid), best saving first; changes that do not parse,
// or that save nothing, are left out.
std::vector<Advice> advise(const nlohmann::json& scenario, const Catalog& catalog);

}  // namespace vramcalc
