// The one place where scenario and bill JSON (shared/spec/scenario.md) meet the value structs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/bill.hpp"
#include "vramcalc/diagnostics.hpp"
#include "vramcalc/scenario.hpp"
#include "vramcalc/scenario_keys.hpp"

namespace vramcalc {

// The preset catalog (vramcalc/catalog.hpp) sits on a higher floor than these value types
// (core/layers.txt): named here, included by whoever builds one.
class Catalog;

// Reads and validates a scenario; every problem is reported (field, value, what is allowed).
// `model` may be a preset id, an inline config.json object, or {"name", "parameters"}. Every absent
// key takes its value from default_scenario(framework, workload).
Result<Scenario> scenario_from_json(const nlohmann::json& j, const Catalog& catalog);
Result<Scenario> scenario_from_text(std::string_view text, const Catalog& catalog);

// default_scenario(f, w) with its GPU preset resolved through `catalog` (still no model): what the
// reader gives for {"model": ..., "framework": f, "workload": w} apart from the model.
Scenario default_scenario(Framework f, Workload w, const Catalog& catalog);

// The exact inverse of the reader: scenario_from_json(scenario_to_json(s)) gives the same bill and
// writes the same JSON again. Writes every key where it applies (defaults written out, for readable
// links) and every other key that differs from its default; inline configs and custom GPUs in full.
nlohmann::json scenario_to_json(const Scenario& s);
nlohmann::json bill_to_json(const Bill& b);

// The bill's `speed` object (time/speed.cpp).
nlohmann::json speed_to_json(const Speed& s);

}  // namespace vramcalc
