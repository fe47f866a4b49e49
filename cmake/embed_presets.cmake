# cmake -P script: writes OUT, a C++ file holding each preset JSON file as a raw string literal.
# Inputs: MODELS (list of model preset files), GPUS (the GPU catalog file). The files are embedded as
# they are, for the CLI, the desktop app and the tests; the web page's cut-down copy is written by
# cmake/embed_presets_page.py.
set(_src "// Generated from presets/*.json by cmake/embed_presets.cmake. Do not edit.\n")
string(APPEND _src "#include <string_view>\n#include <vector>\nnamespace vramcalc::embedded {\n")
string(APPEND _src "const std::vector<std::string_view>& model_files() {\n  static const std::vector<std::string_view> files = {\n")
foreach(f IN LISTS MODELS)
  file(READ "${f}" _text)
  string(FIND "${_text}" ")vrc\"" _bad)
  if(NOT _bad EQUAL -1)
    message(FATAL_ERROR "${f} contains the raw-string delimiter )vrc\"")
  endif()
  string(APPEND _src "    R\"vrc(${_text})vrc\",\n")
endforeach()
string(APPEND _src "  };\n  return files;\n}\n")
file(READ "${GPUS}" _gpus)
string(APPEND _src "std::string_view gpu_file() {\n  return R\"vrc(${_gpus})vrc\";\n}\n}  // namespace vramcalc::embedded\n")
file(WRITE "${OUT}.tmp" "${_src}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
