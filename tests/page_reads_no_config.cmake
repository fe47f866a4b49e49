# cmake -P script (CTest "page: its wasm has no config.json or layer-stack reader, the importer's module has"):
# the page's model presets arrive read by the native CLI, and the config.json files and layer stacks of its
# scenarios are read by the importer's module (core/src/model/config_reader.hpp), so the readers' texts are
# in that module and not in the page's own wasm (which then also lacks the families and their module
# names). Input: DIST, the page's dist folder.
foreach(_mark "expected a JSON object (the contents of config.json), got"   # model_from_config
              "a block needs a list of at least one layer")                # layer_stack_from_json
  string(REGEX REPLACE "[().]" "." _re "${_mark}")
  file(STRINGS "${DIST}/vramcalc.wasm" _page REGEX "${_re}")
  file(STRINGS "${DIST}/vramcalc-import.wasm" _module REGEX "${_re}")
  if(_page)
    message(FATAL_ERROR "the page's vramcalc.wasm holds the reader's text \"${_mark}\": a call of the page reaches it")
  endif()
  if(NOT _module)
    message(FATAL_ERROR "vramcalc-import.wasm lacks the reader's text \"${_mark}\": the page's model reader is missing")
  endif()
endforeach()
