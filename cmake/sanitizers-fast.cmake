# Initial-cache script for the long fuzz campaigns: UBSan without AddressSanitizer.
#   cmake -S . -B build/fuzz-fast -G Ninja -C cmake/sanitizers-fast.cmake
# Several times the executions per second of cmake/sanitizers.cmake: undefined behaviour and crashes are
# still reported, but leaks, out-of-bounds and use-after-free accesses only by the ASan build (clang 14
# cannot link UBSan's handlers with standalone LeakSanitizer), which tools/dev.sh test runs on the whole
# suite and tools/fuzz.sh uses by default.
set(CMAKE_CXX_COMPILER "clang++-14" CACHE STRING "")
set(CMAKE_BUILD_TYPE "RelWithDebInfo" CACHE STRING "")
set(_san "-fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer")
# In the per-configuration flags, not CMAKE_CXX_FLAGS, so CMake's compiler probe runs without them.
# No comparison tracing (-fno-sanitize-coverage=trace-cmp): it costs half the time in the per-layer loops;
# edge coverage still guides the search (the estimator target decodes its input with FuzzedDataProvider).
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -g -DNDEBUG ${_san} -fsanitize=fuzzer-no-link -fno-sanitize-coverage=trace-cmp" CACHE STRING "")
set(CMAKE_EXE_LINKER_FLAGS_RELWITHDEBINFO "${_san}" CACHE STRING "")
set(VRAMCALC_FUZZ ON CACHE BOOL "Build the libFuzzer targets of tests/fuzz")
set(VRAMCALC_BUILD_APP OFF CACHE BOOL "")
