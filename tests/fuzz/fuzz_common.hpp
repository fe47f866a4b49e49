// Shared by the fuzz targets: the catalog, and the invariants every bill must satisfy.
// A broken invariant prints what broke and aborts, which libFuzzer reports as a crash with the input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "vramcalc/estimate.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc/scenario_json.hpp"

namespace vramcalc::fuzz {

inline const Catalog& catalog() { return *builtin_catalog().value; }

[[noreturn]] inline void broken(const std::string& what, const Scenario* s = nullptr) {
    std::fprintf(stderr, "INVARIANT BROKEN: %s\n", what.c_str());
    if (s) std::fprintf(stderr, "scenario: %s\n", scenario_to_json(*s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    std::abort();
}

inline void require(bool ok, const std::string& what, const Scenario* s = nullptr) {
    if (!ok) broken(what, s);
}

// What unit-properties.cpp checks, for every scenario: no negative bytes, the components sum to
// device_bytes, allocated <= reserved <= device, fits agrees with the numbers, and the bill can be
// written as JSON. Sums use overflow-checked arithmetic: a wrapped total is itself a failure.
inline void check_bill(const Scenario& s, const Bill& b, bool write_json = true) {
    std::int64_t sum = 0;
    for (const auto& c : b.components) {
        require(c.bytes >= 0, "component " + c.id + " is negative: " + std::to_string(c.bytes), &s);
        require(!__builtin_add_overflow(sum, c.bytes, &sum), "the components' sum overflows int64", &s);
    }
    require(sum == b.device_bytes,
            "components sum to " + std::to_string(sum) + " but device_bytes is " + std::to_string(b.device_bytes), &s);
    require(b.peak_allocated_bytes >= 0, "peak_allocated_bytes < 0", &s);
    require(b.peak_allocated_bytes <= b.peak_reserved_bytes, "allocated > reserved", &s);
    require(b.peak_reserved_bytes <= b.device_bytes, "reserved > device", &s);
    require(b.cpu_bytes >= 0, "cpu_bytes < 0", &s);
    require(b.torch_uncounted_bytes >= 0, "torch_uncounted_bytes < 0", &s);
    require(b.parameters >= 0 && b.active_parameters >= 0 && b.active_parameters <= b.parameters,
            "parameter counts out of order", &s);
    require(b.trainable_parameters >= 0, "trainable_parameters < 0", &s);
    for (const auto& t : b.timeline) require(t.bytes >= 0, "timeline point < 0 in " + t.phase, &s);
    // fits never claims more than the card holds; outside vLLM (whose engine must also fit its KV pool
    // and max_model_len, inference.cpp) it is exactly device_bytes <= memory.
    const bool within = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
    if (b.fits) require(within, "fits although device_bytes exceed the GPU", &s);
    if (!(s.workload == Workload::infer && s.framework == Framework::vllm))
        require(b.fits == within, "fits disagrees with the numbers", &s);
    if (write_json) (void)bill_to_json(b).dump();  // throws (a crash here) on invalid UTF-8 in names or details
}

// Training: the max-micro-batch solver's answer fits within target_utilization x memory, and one more
// does not (inference limits follow each engine's own rule, inference.cpp).
inline void check_solver(const Scenario& s, std::int64_t cap) {
    if (s.workload != Workload::train) return;
    const std::int64_t n = solve_max_batch(s, cap);
    require(n >= 0 && n <= cap, "solver answer out of range", &s);
    const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
    Scenario t = s;
    auto& field = t.micro_batch;
    if (n > 0) {
        field = n;
        require(static_cast<double>(estimate(t).device_bytes) <= budget, "solver answer does not fit", &t);
    }
    if (n < cap) {
        field = n + 1;
        require(static_cast<double>(estimate(t).device_bytes) > budget, "solver answer + 1 fits too", &t);
    }
}

}  // namespace vramcalc::fuzz
