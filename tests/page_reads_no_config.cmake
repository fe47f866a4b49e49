# cmake -P script (CTest "page: its wasm has no config.json reader, the importer's module has"): the page's
# presets arrive read by the native CLI and its inline config.json models are read by the importer's module
# (core/src/model/config_reader.hpp), so model_from_config's texts are in that module, not in the page's own
# wasm (which then also lacks the families and their module names). Input: DIST, the page's dist folder.
set(_mark "expected a JSON object (the contents of config.json), got")
file(STRINGS "${DIST}/vramcalc.wasm" _page REGEX "contents of config[.]json")
file(STRINGS "${DIST}/vramcalc-import.wasm" _module REGEX "contents of config[.]json")
if(_page)
  message(FATAL_ERROR "the page's vramcalc.wasm holds model_from_config's text \"${_mark}\": a call reaches the config.json reader")
endif()
if(NOT _module)
  message(FATAL_ERROR "vramcalc-import.wasm lacks model_from_config's text \"${_mark}\": the page's model reader is missing")
endif()
