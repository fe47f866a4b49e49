// Internal: the one number formatter behind every detail string of the bill (public display helpers in
// vramcalc/units.hpp use it too). Printed sizes say GiB (2^30 bytes); counts use B/M for 10^9/10^6.
#pragma once

#include <string>

namespace vramcalc::detail {

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string count_short(double n);  // "8.03B", "466.1M", "4096"
std::string bytes_per(double b);    // "2 B", "0.5625 B" (bytes per element or parameter)
std::string gib(double bytes);      // "12.34 GiB"
std::string whole(double v);        // "2048"

}  // namespace vramcalc::detail
