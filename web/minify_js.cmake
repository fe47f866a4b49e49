# cmake -DNODE=<node> -DACORN=<emscripten>/tools/acorn-optimizer.js [-DTERSER=<terser>] -DWORK=<folder>
#       (-DIN=<file.js> | -DPARTS=<a.js,b.js,...>) -DOUT=<file.js> -P minify_js.cmake
# The shell's script compressed with local names shortened by Debian's terser where it is installed (as
# the runtime JS is: 5.5 -> 5.0 KB gzip), else without comments and indentation by Emscripten's own JS
# minifier, which the wasm build already needs; a plain copy where neither runs. Only names inside the
# script's function change: what it shares (window.vramcalcPage, Module) is named by property.
# PARTS: the script's source files (web/shell/page/, one per concern), joined in this order as the body
# of one function, so that the page still loads one script and its parts share their names as before.
# Intermediate files go to WORK (the build folder), never beside OUT: OUT's folder is the page's dist/.
if(EXISTS /usr/share/nodejs/acorn)  # Debian's acorn, as for emcc itself (shared notes: NODE_PATH)
  set(ENV{NODE_PATH} "/usr/share/nodejs:$ENV{NODE_PATH}")
endif()
get_filename_component(_name "${OUT}" NAME)
if(PARTS)
  string(REPLACE "," ";" PARTS "${PARTS}")
  set(js "// Joined from web/shell/page/ by web/minify_js.cmake.\n'use strict';\n(function () {\n")
  foreach(_part IN LISTS PARTS)
    file(READ "${_part}" _text)
    string(APPEND js "${_text}\n")
  endforeach()
  string(APPEND js "})();\n")
  set(IN "${WORK}/joined-${_name}")
  file(WRITE "${IN}" "${js}")
endif()
set(rc 1)
if(TERSER)
  execute_process(COMMAND "${TERSER}" "${IN}" --compress --mangle OUTPUT_VARIABLE js RESULT_VARIABLE rc ERROR_QUIET)
endif()
if(NOT rc EQUAL 0 OR js STREQUAL "")
  execute_process(COMMAND "${NODE}" "${ACORN}" "${IN}" minifyWhitespace OUTPUT_VARIABLE js RESULT_VARIABLE rc ERROR_QUIET)
endif()
if(NOT rc EQUAL 0 OR js STREQUAL "")
  file(READ "${IN}" js)
endif()
file(WRITE "${WORK}/min-${_name}" "${js}")
file(COPY_FILE "${WORK}/min-${_name}" "${OUT}" ONLY_IF_DIFFERENT)
