// Internal: the multi-GPU formula cases of the validation data that the parallel unit reproduces.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/bill.hpp"
#include "vramcalc/catalog.hpp"
#include "vramcalc/scenario.hpp"
#include "vramcalc/validate.hpp"

namespace vramcalc::detail {

// An entry's scenario read and estimated; nullopt (r.status "error" with the reader's problems) when it
// does not read. `sc` receives the scenario.
std::optional<Bill> estimate_entry(const nlohmann::json& scenario, const Catalog& cat, EntryResult& r, Scenario* sc = nullptr);

// Formula cases of tests/data (formula_cases.json, parallel_cases.json) that this unit reproduces: the ZeRO
// paper's model states (entries with scenario.extra.model_states_only and a "sharding"), DeepSpeed's
// estimator outputs (ids "deepspeed-zero2/3-*"), and RLHF static-state cases. nullopt: not ours.
std::optional<EntryResult> run_parallel_formula(const nlohmann::json& e, const std::string& id, const Catalog& cat);

// Whether `estimated` equals a printed figure to its printed precision: within half a unit of its last
// decimal (sources round half to even or half up; both pass).
bool equals_printed(double estimated, const nlohmann::json& printed);

}  // namespace vramcalc::detail
