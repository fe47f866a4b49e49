#include "common/format.hpp"

#include <cstdarg>
#include <cstdio>

#include "vramcalc/units.hpp"

namespace vramcalc::detail {

std::string printf_string(const char* format, ...) {
    char buf[256];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return n < 0 ? std::string() : std::string(buf, static_cast<std::size_t>(n) < sizeof buf ? static_cast<std::size_t>(n) : sizeof buf - 1);
}

std::string count_short(double n) {
    if (n >= 1e9) return printf_string("%.2fB", n / 1e9);
    if (n >= 1e6) return printf_string("%.1fM", n / 1e6);
    return printf_string("%.0f", n);
}

std::string bytes_per(double b) { return printf_string("%.4g B", b); }
std::string gib(double bytes) { return printf_string("%.2f GiB", bytes / kGiB); }
std::string whole(double v) { return printf_string("%.0f", v); }

}  // namespace vramcalc::detail
