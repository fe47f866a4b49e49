#include "vramcalc/units.hpp"

#include <cstdio>

namespace vramcalc {

static std::string fixed(double v, int decimals, const char* unit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, unit);
    return buf;
}

std::string format_gib(std::int64_t bytes, int decimals) { return fixed(static_cast<double>(bytes) / kGiB, decimals, "GiB"); }
std::string format_gb(std::int64_t bytes, int decimals) { return fixed(static_cast<double>(bytes) / kGB, decimals, "GB"); }

std::string format_count(std::int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string format_params_short(std::int64_t n) {
    const double v = static_cast<double>(n);
    char buf[32];
    if (v >= 1e12) std::snprintf(buf, sizeof buf, "%.2fT", v / 1e12);
    else if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.2fB", v / 1e9);
    else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
    else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(n));
    return buf;
}

}  // namespace vramcalc
