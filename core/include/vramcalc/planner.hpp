// GPU-count planner: the fewest GPUs of the scenario's type on which it fits, the parallel layout that
// does it, and what every layout tried costs per GPU.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/scenario.hpp"

namespace vramcalc {

struct PlanCandidate {
    std::int64_t num_gpus = 1;
    Sharding sharding = Sharding::none;
    Offload offload = Offload::none;
    std::int64_t tp = 1, pp = 1;
    bool fits = false;                // device_bytes within target_utilization x GPU memory
    std::int64_t device_bytes = 0;    // per GPU (most loaded rank)
    std::int64_t cpu_bytes = 0;       // host memory per rank
};

struct Plan {
    bool found = false;
    PlanCandidate best;                     // fewest GPUs, then the least memory per GPU
    std::vector<PlanCandidate> candidates;  // every layout tried, by GPU count
};

// Layouts tried per GPU count (1, 2, 4, ... max_gpus): the data-parallel sharding the framework offers
// (deepspeed: none/zero1/zero2/zero3; megatron: tp x pp with none/zero1; others: DDP, fsdp-grad-op,
// fsdp-full), the scenario's offload kept. Stops at the first count where a layout fits.
Plan plan_gpus(const Scenario& s, std::int64_t max_gpus = 1024);

nlohmann::json plan_to_json(const Plan& p, const Scenario& s);

}  // namespace vramcalc
