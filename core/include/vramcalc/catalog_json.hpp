// JSON shapes of core data that every edge prints (CLI `presets --json` / `inspect --json`, the JS API's
// presets() / solveCatalog()): one shape each, made here, so the edges cannot drift apart.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/catalog.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

// {"models": [{id, name, hub_id, family, parameters, active_parameters}], "gpus": [{id, name, vendor, memory_bytes}]}
nlohmann::json presets_to_json(const Catalog& catalog);

// A model's exact parameter breakdown and dimensions, with the config reader's warnings.
nlohmann::json model_to_json(const ModelSpec& m, const std::vector<std::string>& warnings);

// One row per GPU of solve_catalog(): {gpu, name, memory_bytes, fits, verdict, device_bytes, max_batch, max_seq_len,
// max_concurrent_sequences, max_context}.
nlohmann::json catalog_fits_to_json(const std::vector<CatalogFit>& fits);

}  // namespace vramcalc
