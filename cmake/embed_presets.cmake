# cmake -P script: writes OUT, a C++ file holding each preset JSON file as a raw string literal.
# Inputs: MODELS (list of model preset files), GPUS (the GPU catalog file); STRIP_SOURCES=ON drops the
# "source" and "source_note" texts and the files' indentation (the web page's copy: they are 12 KB of its
# gzip transfer, nothing in the page shows them, and no number depends on them; the CLI, the desktop app
# and the tests keep them).
# The files keep one key per line and "source" is never the first key of an object (gpus.json's
# top-level "source_note" is, and is followed by a comma), so each cut leaves valid JSON.
set(_json_string "\"([^\"\\\\]|\\\\.)*\"")
macro(strip_sources var)
  if(STRIP_SOURCES)
    string(REGEX REPLACE ",[ \n]*\"source\": ${_json_string}" "" ${var} "${${var}}")
    string(REGEX REPLACE "\"source_note\": ${_json_string},[ \n]*" "" ${var} "${${var}}")
    # and the line breaks with their indentation (a JSON string never holds a raw line break): 0.7 KB gzip
    string(REGEX REPLACE "\n *" "" ${var} "${${var}}")
  endif()
endmacro()
set(_src "// Generated from presets/*.json by cmake/embed_presets.cmake. Do not edit.\n")
string(APPEND _src "#include <string_view>\n#include <vector>\nnamespace vramcalc::embedded {\n")
string(APPEND _src "const std::vector<std::string_view>& model_files() {\n  static const std::vector<std::string_view> files = {\n")
foreach(f IN LISTS MODELS)
  file(READ "${f}" _text)
  strip_sources(_text)
  string(FIND "${_text}" ")vrc\"" _bad)
  if(NOT _bad EQUAL -1)
    message(FATAL_ERROR "${f} contains the raw-string delimiter )vrc\"")
  endif()
  string(APPEND _src "    R\"vrc(${_text})vrc\",\n")
endforeach()
string(APPEND _src "  };\n  return files;\n}\n")
file(READ "${GPUS}" _gpus)
strip_sources(_gpus)
string(APPEND _src "std::string_view gpu_file() {\n  return R\"vrc(${_gpus})vrc\";\n}\n}  // namespace vramcalc::embedded\n")
file(WRITE "${OUT}.tmp" "${_src}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
