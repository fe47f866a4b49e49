// Internal: typed, bounds-checked reads of JSON objects that collect problems instead of throwing.
// Used by the config.json parser and the scenario parser so that both report errors the same way.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vramcalc/diagnostics.hpp"

namespace vramcalc::detail {

using json = nlohmann::json;

std::string describe(const json& v);  // short rendering of a value for messages

// At most `max_bytes` of `s`, cut at a UTF-8 character boundary (never inside a multi-byte character),
// with "..." appended when cut. A user string cut mid-character made json::dump() throw type_error.316.
std::string utf8_prefix(std::string_view s, std::size_t max_bytes);

class FieldReader {
public:
    FieldReader(const json& obj, std::string prefix, Problems& errors)
        : obj_(obj), prefix_(std::move(prefix)), errors_(errors) {}

    // Present and not null (HF configs write null for "use the default").
    bool has(std::string_view key) const;
    // Present with the value null (JS's NaN, Infinity and undefined reach JSON as null).
    bool is_null(std::string_view key) const;
    // The first of `keys` that is present, or nullptr.
    const json* find(std::initializer_list<std::string_view> keys, std::string_view* found = nullptr) const;

    // Integers within [lo, hi]. Integral floats (4096.0) are accepted.
    std::optional<std::int64_t> integer(std::initializer_list<std::string_view> keys, std::int64_t lo,
                                        std::int64_t hi);  // required: missing is an error
    std::int64_t integer_or(std::initializer_list<std::string_view> keys, std::int64_t fallback,
                            std::int64_t lo, std::int64_t hi);
    double number_or(std::string_view key, double fallback, double lo, double hi);
    bool boolean_or(std::string_view key, bool fallback);
    std::string string_or(std::string_view key, std::string fallback);

    void error(std::string_view key, std::string message) const;
    const json& object() const { return obj_; }
    Problems& problems() const { return errors_; }
    std::string path(std::string_view key) const;

private:
    std::optional<std::int64_t> read_integer(std::string_view key, const json& v, std::int64_t lo,
                                             std::int64_t hi);
    const json& obj_;
    std::string prefix_;
    Problems& errors_;
};

}  // namespace vramcalc::detail
