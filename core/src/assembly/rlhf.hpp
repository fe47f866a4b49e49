// Internal: the bill of an RLHF step (ppo, dpo, grpo) on one GPU of the training job. Every role that
// lives on the GPU keeps its static states (weights, master weights, optimizer states, buffers) through
// the whole iteration; the phases (rollout, reference/reward scoring, actor update, critic update) run one
// after another, so the peak is the static sum plus the largest phase. Lines carry the role as a prefix
// ("actor.weights", "critic.optimizer", "rollout.kv_cache").
#pragma once

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// `train_role` fills a bill's components (no allocator or context lines) for a plain training scenario.
void rlhf_components(const Scenario& s, Bill& b);

// The ids of a role bill that stay allocated through the whole RLHF iteration.
bool rlhf_static_component(const std::string& id);

}  // namespace vramcalc::detail
