# cmake -DNODE=<node> -DACORN=<emscripten>/tools/acorn-optimizer.js [-DTERSER=<terser>] -DIN=<file.js> -DOUT=<file.js> -P minify_js.cmake
# The shell's script compressed with local names shortened by Debian's terser where it is installed (as
# the runtime JS is: 5.5 -> 5.0 KB gzip), else without comments and indentation by Emscripten's own JS
# minifier, which the wasm build already needs; a plain copy where neither runs. Only names inside the
# script's function change: what it shares (window.vramcalcPage, Module) is named by property.
if(EXISTS /usr/share/nodejs/acorn)  # Debian's acorn, as for emcc itself (shared notes: NODE_PATH)
  set(ENV{NODE_PATH} "/usr/share/nodejs:$ENV{NODE_PATH}")
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
file(WRITE "${OUT}.tmp" "${js}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")  # not into the page's dist/
