// Internal: 64-bit integer arithmetic that records overflow instead of wrapping.
#pragma once

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

}  // namespace vramcalc::detail
