#include "vramcalc/units.hpp"

#include "common/format.hpp"

namespace vramcalc {

using detail::printf_string;

static std::string fixed(double v, int decimals, const char* unit) { return printf_string("%.*f %s", decimals, v, unit); }

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
    if (v >= 1e12) return printf_string("%.2fT", v / 1e12);
    return detail::count_short(v);
}

std::string format_duration(double seconds) {
    if (seconds < 120) return printf_string("%.3g s", seconds);
    if (seconds < 2 * 3600.0) return printf_string("%.3g min", seconds / 60);
    if (seconds < 2 * 86400.0) return printf_string("%.3g h", seconds / 3600);
    return printf_string("%.3g days", seconds / 86400);
}

}  // namespace vramcalc
