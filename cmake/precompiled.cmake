# Precompiled headers. nlohmann/json (and Catch2 in the tests) dominate the compile time of every file
# that includes them: parsed once per target instead of once per file, a clean native build takes about
# half the CPU time (tools/dev.sh test builds three trees on CI's two cores). Off with -DVRAMCALC_PCH=OFF.
#
# Unity builds. The core and the UI compile their sources 16 to a translation unit: the instantiations of
# nlohmann/json and libc++ that every file repeats are compiled once per batch. Measured on the 2-core machine,
# the ASan build of vramcalc_core: 279 -> 145 s of CPU (tools/dev.sh test compiles the core four times: native,
# the page's and the JS API's wasm, ASan). The price: a name in one file's anonymous namespace meets the same
# name of another file in its batch (a compile error as a rule; an overload that silently wins is the rare
# case the byte-for-byte check of docs/validation.md is there for: keep such helpers distinct or
# shared), and an edit recompiles its whole batch. Off with -DVRAMCALC_UNITY=OFF, e.g. while editing one file.
option(VRAMCALC_PCH "Precompile the heavy third-party headers once per target" ON)
option(VRAMCALC_UNITY "Compile each heavy target's sources in batches of 16 (unity build)" ON)
function(vramcalc_precompile target)
  if(VRAMCALC_PCH)
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> <string> <vector> <optional> ${ARGN})
  endif()
endfunction()
# The importers (each file's rules share names such as `checkpointing`) and the unit tests (each file's own
# `bill()` helpers) do not build as one unit, and stay out.
function(vramcalc_unity target)
  if(VRAMCALC_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()
