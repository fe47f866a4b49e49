// The one place where scenario and bill JSON (shared/spec/scenario.md) meet the value structs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/bill.hpp"
#include "vramcalc/catalog.hpp"
#include "vramcalc/diagnostics.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc {

// Reads and validates a scenario; every problem is reported (field, value, what is allowed).
// `model` may be a preset id, an inline config.json object, or {"name", "parameters"}.
Result<Scenario> scenario_from_json(const nlohmann::json& j, const Catalog& catalog);
Result<Scenario> scenario_from_text(std::string_view text, const Catalog& catalog);

// The scenario as JSON (all keys, defaults written out), e.g. for the URL state.
nlohmann::json scenario_to_json(const Scenario& s);
nlohmann::json bill_to_json(const Bill& b);

// Allowed values of each enum-valued key, for messages and UIs.
std::vector<std::string> allowed_values(std::string_view key);

}  // namespace vramcalc
