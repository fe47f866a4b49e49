// Internal: 64-bit integer arithmetic that records overflow instead of wrapping.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace vramcalc::detail {

struct Checked {
    std::int64_t value = 0;
    bool overflow = false;

    Checked() = default;
    Checked(std::int64_t v) : value(v) {}  // NOLINT: implicit on purpose, for mixed expressions

    friend Checked operator+(Checked a, Checked b) {
        Checked r;
        r.overflow = a.overflow || b.overflow || __builtin_add_overflow(a.value, b.value, &r.value);
        if (r.overflow) r.value = std::numeric_limits<std::int64_t>::max();
        return r;
    }
    friend Checked operator*(Checked a, Checked b) {
        Checked r;
        r.overflow = a.overflow || b.overflow || __builtin_mul_overflow(a.value, b.value, &r.value);
        if (r.overflow) r.value = std::numeric_limits<std::int64_t>::max();
        return r;
    }
    Checked& operator+=(Checked b) { return *this = *this + b; }
};

// Byte counts computed in double precision become integers here, never by a bare cast (a double
// beyond 2^63 cast to int64 is undefined behaviour: the fuzz target `estimate` found one in the step
// timeline). NaN and negatives give 0; anything from kSaturatedBytes up gives kSaturatedBytes, and
// estimate() then warns that the figures are saturated. 2^56 B (64 PiB) is far above any GPU and keeps
// sums of a bill's few dozen components below 2^63.
inline constexpr std::int64_t kSaturatedBytes = std::int64_t{1} << 56;
inline constexpr std::int64_t kSaturatedTotalBytes = std::int64_t{1} << 62;  // for sums of components

inline std::int64_t saturated_bytes(double b, std::int64_t cap = kSaturatedBytes) {
    if (!(b > 0)) return 0;
    if (b >= static_cast<double>(cap)) return cap;
    return static_cast<std::int64_t>(std::ceil(b));
}

}  // namespace vramcalc::detail
