// converters.hpp's importer in a desktop build without yaml-cpp: none (the CLI's vramcalc import has one).
#include "converters.hpp"

namespace vramcalc::desktop {

std::string import_config_answer(const std::string&) { return ""; }

}  // namespace vramcalc::desktop
