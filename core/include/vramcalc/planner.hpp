// GPU-count planner: the fewest GPUs of the scenario's type on which it fits, the parallel layout that
// does it, and what every layout tried costs per GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/scenario.hpp"

namespace vramcalc {

struct PlanCandidate {
    std::int64_t num_gpus = 1;
    Sharding sharding = Sharding::none;
    Offload offload = Offload::none;
    std::int64_t tp = 1, pp = 1, cp = 1;
    Checkpointing checkpointing = Checkpointing::none;
    bool fits = false;              // device_bytes within target_utilization x GPU memory
    std::int64_t device_bytes = 0;  // per GPU (most loaded rank)
    std::int64_t cpu_bytes = 0;     // host memory per rank
};

struct Plan {
    bool found = false;
    PlanCandidate best;                     // fewest GPUs, then the least memory per GPU
    std::vector<PlanCandidate> candidates;  // every layout tried, by GPU count
    // What blocks, in words: when nothing fits, the largest line of the least loaded layout tried and
    // what full checkpointing would need; when only a changed checkpointing fits, what the scenario's own
    // needs. Empty when the scenario's own settings fit.
    std::string blocker;
};

// Layouts tried per GPU count (u, 2u, 4u, ... max_gpus, u = the scenario's tp x pp x cp x ep): the
// data-parallel sharding the framework offers (deepspeed: none/zero1/zero2/zero3; megatron: none/zero1;
// others: DDP, fsdp-grad-op, fsdp-full), the scenario's offload kept, and checkpointing as given and
// "full". Degrees the scenario gives (tp, pp, cp, ep above 1) are kept for every framework; with none
// given, megatron also tries tp x pp. Stops at the first count where a layout fits; at that count the
// scenario's own checkpointing is preferred, then the least memory per GPU.
Plan plan_gpus(const Scenario& s, std::int64_t max_gpus = 1024);

nlohmann::json plan_to_json(const Plan& p, const Scenario& s);

}  // namespace vramcalc
