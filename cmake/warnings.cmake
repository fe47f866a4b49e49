# Warnings per target, not globally (box2d's model).
function(vramcalc_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion)
  # Same floating-point results natively and in wasm: no fused multiply-add contraction.
  target_compile_options(${target} PRIVATE -ffp-contract=off)
endfunction()
