# cmake -DNODE=<node> -DACORN=<emscripten>/tools/acorn-optimizer.js -DIN=<file.js> -DOUT=<file.js> -P minify_js.cmake
# The shell's script without comments and indentation (Emscripten's own JS minifier, which the wasm
# build already needs); a plain copy where that does not run.
if(EXISTS /usr/share/nodejs/acorn)  # Debian's acorn, as for emcc itself (shared notes: NODE_PATH)
  set(ENV{NODE_PATH} "/usr/share/nodejs:$ENV{NODE_PATH}")
endif()
execute_process(COMMAND "${NODE}" "${ACORN}" "${IN}" minifyWhitespace OUTPUT_VARIABLE js RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR js STREQUAL "")
  file(READ "${IN}" js)
endif()
file(WRITE "${OUT}.tmp" "${js}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
