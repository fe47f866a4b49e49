// Internal: the one search every solver uses. Memory is non-decreasing in the value searched (batch,
// sequence length, context), so the largest value that fits is found by galloping up from a value known
// to fit and bisecting the last step.
#pragma once

#include <algorithm>
#include <cstdint>

namespace vramcalc::detail {

// Largest n in [1, cap] with fits(n); 0 when fits(1) is false. `known` is a value already known to fit
// (0 if none): the next larger GPU of a catalog starts from the previous GPU's answer.
template <class Fits>
std::int64_t largest_fitting(std::int64_t cap, Fits fits, std::int64_t known = 0) {
    std::int64_t lo = std::min(known, cap), step = 1;
    if (lo <= 0) {
        if (cap < 1 || !fits(1)) return 0;
        lo = 1;
    }
    std::int64_t hi = cap + 1;  // first value known not to fit (cap + 1: none known)
    while (lo < cap) {
        const std::int64_t next = std::min(cap, lo + step);
        if (!fits(next)) {
            hi = next;
            break;
        }
        lo = next;
        step *= 2;
    }
    if (lo == cap) return cap;
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace vramcalc::detail
