// Units for display. GiB = 2^30 bytes, GB = 10^9 bytes; every printed number says which.
#pragma once

#include <cstdint>
#include <string>

namespace vramcalc {

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;
constexpr double kGB = 1.0e9;

std::string format_gib(std::int64_t bytes, int decimals = 2);  // "12.34 GiB"
std::string format_gb(std::int64_t bytes, int decimals = 2);   // "13.25 GB"
std::string format_count(std::int64_t n);                      // "8,030,261,248"
std::string format_params_short(std::int64_t n);               // "8.03B"
std::string format_duration(double seconds);                   // "95 s", "42 min", "3.5 h", "12 days": whichever reads best

}  // namespace vramcalc
