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
    std::string title;                 // "Gradient checkpointing (full)", or "A + B" for a combination
    std::string why;                   // one sentence: what it does to memory, and its cost
    nlohmann::json patch;              // RFC 7386 merge patch on the scenario
    std::vector<std::string> changes;  // the single changes it is made of (one for a single change)
    std::int64_t device_bytes = 0;     // device bytes per GPU after the change
    std::int64_t saving_bytes = 0;     // before - after (negative: the change costs memory)
    bool fits = false;                 // device bytes within the GPU's memory
    bool within_target = false;        // device bytes within target_utilization of it
    bool keeps_model = true;           // false for "a smaller model"
    std::int64_t max_batch = 0;        // largest micro_batch (train) or batch (infer) after the change
    // Its time price: tokens/s after / before (training: optimizer steps' tokens; inference: generated
    // tokens of the batch), 0 when either has no speed estimate. 0.76 = "24 % slower".
    double speed_ratio = 0;
};

// What to change, ranked: changes that bring the scenario within its target utilisation first (fewest
// changes, then the ones that keep the user's model, then the least intrusive in the order practitioners'
// guides give), then the single changes by saving. Combinations (pairs and triples of single changes
// that touch different keys) are searched only when no single change reaches the target.
struct AdvicePlan {
    std::vector<Advice> ranked;
    std::string note;  // e.g. "Nothing short of more GPUs or a smaller model fits" (empty if moot)
};
AdvicePlan plan_changes(const nlohmann::json& scenario, const Catalog& catalog);

// plan_changes(...).ranked: candidate changes for `scenario` (already valid); changes that do not parse,
// or that save nothing, are left out.
std::vector<Advice> advise(const nlohmann::json& scenario, const Catalog& catalog);

// The ranked list as JSON (the bill's `advice` key in the CLI and the JS API).
nlohmann::json advice_to_json(const AdvicePlan& plan);

}  // namespace vramcalc
