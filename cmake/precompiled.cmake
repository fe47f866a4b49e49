# Precompiled headers. nlohmann/json (and Catch2 in the tests) dominate the compile time of every file
# that includes them: parsed once per target instead of once per file, a clean native build takes about
# half the CPU time (tools/dev.sh test builds three trees on CI's two cores). Off with -DVRAMCALC_PCH=OFF.
option(VRAMCALC_PCH "Precompile the heavy third-party headers once per target" ON)
function(vramcalc_precompile target)
  if(VRAMCALC_PCH)
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> <string> <vector> <optional> ${ARGN})
  endif()
endfunction()
