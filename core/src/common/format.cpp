#include "common/format.hpp"

#include <cstdarg>
#include <cstdio>

#include "vramcalc/units.hpp"

namespace vramcalc::detail {

std::string printf_string(const char* format, ...) {
    char buf[256];
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    const int n = std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    std::string out;
    if (n >= 0 && static_cast<std::size_t>(n) < sizeof buf) out.assign(buf, static_cast<std::size_t>(n));
    else if (n >= 0) {  // longer than the stack buffer (e.g. "%.0f" of an absurd 1e300): format again at full length
        out.resize(static_cast<std::size_t>(n));
        std::vsnprintf(out.data(), out.size() + 1, format, again);
    }
    va_end(again);
    return out;
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
