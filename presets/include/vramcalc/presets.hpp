// The built-in presets (presets/models/*.json and presets/gpus.json, embedded at build time).
#pragma once

#include <string_view>
#include <vector>

#include "vramcalc/catalog.hpp"

namespace vramcalc {

// Parsed once, on first use. A broken preset file is reported through the Result (tests check it).
const Result<Catalog>& builtin_catalog();

// The raw JSON texts, e.g. for the page's preset list.
const std::vector<std::string_view>& builtin_model_files();
std::string_view builtin_gpu_file();

}  // namespace vramcalc
