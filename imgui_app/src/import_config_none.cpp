// The importer's stand-in for builds without yaml-cpp (CMake picks it instead of import_config.cpp).
#include "ui.hpp"

namespace vramcalc::ui {

bool import_into(AppState& st, const std::string& name, const std::string&) {
    set_status(st, name + ": this build does not import other tools' configs (the page leaves the importer out for its size; the CLI's vramcalc import does it); a config.json or a scenario file works", true);
    return false;
}

}  // namespace vramcalc::ui
