// Internal: rounding up to a power of two, as Triton's and Liger-Kernel's next_power_of_2 do.
#pragma once

namespace vramcalc::detail {

// The smallest power of two >= x (1 for x <= 1), exact in a double. A loop rather than
// exp2(ceil(log2(x))): the page then links no exp2/log2, whose tables are 4 KB of the wasm.
inline double next_power_of_two(double x) {
    double p = 1;
    while (p < x) p *= 2;
    return p;
}

}  // namespace vramcalc::detail
