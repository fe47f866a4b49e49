// What the desktop app runs in-process that the page loads as a module on demand: the config importer
// (docs/imports.md) and the PyTorch print(model) converter (converters.cpp). CMake picks
// converters_import.cpp where the importer (yaml-cpp) is built and converters_none.cpp where it is not.
// Each answer is the core's JSON answer (import_answer / repr_answer) as text, or empty when this build
// cannot.
#pragma once

#include <string>

namespace vramcalc::desktop {

std::string import_config_answer(const std::string& text);
std::string convert_repr_answer(const std::string& text, const std::string& input_json);

}  // namespace vramcalc::desktop
