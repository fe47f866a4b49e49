# Initial-cache script for the sanitizer build (clang, ASan + UBSan) and the libFuzzer targets:
#   cmake -S . -B build/asan -G Ninja -C cmake/sanitizers.cmake
# builds the whole native test suite with -fsanitize=address,undefined (any report aborts the test),
# plus the fuzz targets of tests/fuzz/ (libFuzzer). Debian: clang-14 and libclang-rt-14-dev.
# tools/dev.sh test runs it; tools/fuzz.sh runs the fuzz targets for longer.
set(CMAKE_CXX_COMPILER "clang++-14" CACHE STRING "")
set(CMAKE_BUILD_TYPE "RelWithDebInfo" CACHE STRING "")
# -O1 as the ASan documentation advises, and line tables only: a report still names file:line, and the
# build takes about 50 s less of a 2-core CI run than with -O2 -g.
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -gline-tables-only -DNDEBUG" CACHE STRING "")
# One build serves both jobs: the code the fuzz targets drive (the core and the importers) carries libFuzzer's
# coverage hooks (fuzzer-no-link, added by tests/fuzz/CMakeLists.txt), only the fuzz executables link libFuzzer's
# main. The unit tests go without the hooks, which they do not use: less to compile and run in the CI's ASan stage.
set(_san "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer")
set(CMAKE_CXX_FLAGS "${_san}" CACHE STRING "")
set(CMAKE_EXE_LINKER_FLAGS "${_san}" CACHE STRING "")
set(VRAMCALC_FUZZ ON CACHE BOOL "Build the libFuzzer targets of tests/fuzz")
set(VRAMCALC_BUILD_APP OFF CACHE BOOL "")   # the GUI is not what this build checks
