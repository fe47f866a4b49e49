#include "io/json_reader.hpp"

#include <limits>

namespace vramcalc::detail {

std::string describe(const json& v) {
    std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

std::string utf8_prefix(std::string_view s, std::size_t max_bytes) {
    if (s.size() <= max_bytes) return std::string(s);
    std::size_t n = max_bytes;
    // Step back over continuation bytes (10xxxxxx) so the cut falls before a lead byte.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return std::string(s.substr(0, n)) + "...";
}

std::string FieldReader::path(std::string_view key) const {
    return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
}

void FieldReader::error(std::string_view key, std::string message) const {
    errors_.push_back({path(key), std::move(message)});
}

bool FieldReader::has(std::string_view key) const {
    if (!obj_.is_object()) return false;
    auto it = obj_.find(key);
    return it != obj_.end() && !it->is_null();
}

bool FieldReader::is_null(std::string_view key) const {
    if (!obj_.is_object()) return false;
    auto it = obj_.find(key);
    return it != obj_.end() && it->is_null();
}

const json* FieldReader::find(std::initializer_list<std::string_view> keys, std::string_view* found) const {
    for (auto k : keys) {
        if (has(k)) {
            if (found) *found = k;
            return &obj_.find(k).value();
        }
    }
    return nullptr;
}

std::optional<std::int64_t> FieldReader::read_integer(std::string_view key, const json& v, std::int64_t lo,
                                                      std::int64_t hi) {
    const std::string allowed = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    std::optional<std::int64_t> out;
    if (v.is_number_integer() && !v.is_number_unsigned()) {
        out = v.get<std::int64_t>();
    } else if (v.is_number_unsigned()) {
        auto u = v.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            out = static_cast<std::int64_t>(u);
    } else if (v.is_number_float()) {
        double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) out = static_cast<std::int64_t>(d);
    }
    if (!out) {
        error(key, "got " + describe(v) + ", expected " + allowed);
        return std::nullopt;
    }
    if (*out < lo || *out > hi) {
        error(key, "got " + std::to_string(*out) + ", expected " + allowed);
        return std::nullopt;
    }
    return out;
}

std::optional<std::int64_t> FieldReader::integer(std::initializer_list<std::string_view> keys, std::int64_t lo,
                                                 std::int64_t hi) {
    std::string_view key;
    if (const json* v = find(keys, &key)) return read_integer(key, *v, lo, hi);
    std::string names;
    for (auto k : keys) names += (names.empty() ? "" : " or ") + std::string(k);
    error(*keys.begin(), "missing required key (" + names + ")");
    return std::nullopt;
}

std::int64_t FieldReader::integer_or(std::initializer_list<std::string_view> keys, std::int64_t fallback,
                                     std::int64_t lo, std::int64_t hi) {
    std::string_view key;
    if (const json* v = find(keys, &key)) return read_integer(key, *v, lo, hi).value_or(fallback);
    return fallback;
}

double FieldReader::number_or(std::string_view key, double fallback, double lo, double hi) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(std::string(key));
    if (!v.is_number()) {
        error(key, "got " + describe(v) + ", expected a number");
        return fallback;
    }
    double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi) {
        error(key, "got " + describe(v) + ", expected a number from " + describe(json(lo)) + " to " +
                       describe(json(hi)));
        return fallback;
    }
    return d;
}

bool FieldReader::boolean_or(std::string_view key, bool fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(std::string(key));
    if (!v.is_boolean()) {
        error(key, "got " + describe(v) + ", expected true or false");
        return fallback;
    }
    return v.get<bool>();
}

std::string FieldReader::string_or(std::string_view key, std::string fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(std::string(key));
    if (!v.is_string()) {
        error(key, "got " + describe(v) + ", expected a string");
        return fallback;
    }
    return v.get<std::string>();
}

}  // namespace vramcalc::detail
