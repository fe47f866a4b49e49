// converters.hpp's importer where yaml-cpp is built (vramcalc_imports).
#include <nlohmann/json.hpp>

#include "converters.hpp"
#include "vramcalc/import.hpp"
#include "vramcalc/presets.hpp"

namespace vramcalc::desktop {

std::string import_config_answer(const std::string& text) {
    return import_answer(import_config(text, *builtin_catalog())).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vramcalc::desktop
