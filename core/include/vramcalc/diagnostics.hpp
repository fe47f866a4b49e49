// Errors and warnings as values (no exceptions cross the core's boundary).
// Every problem names the field (a JSON-pointer-like path), the value seen and what is allowed,
// so that a user can act on it without reading the code.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vramcalc {

struct Problem {
    std::string field;    // e.g. "config.num_attention_heads" or "scenario.micro_batch"
    std::string message;  // what is wrong and what is allowed
    std::string text() const { return field.empty() ? message : field + ": " + message; }
};

using Problems = std::vector<Problem>;

// A value or the list of everything that was wrong with the input.
template <class T>
struct Result {
    std::optional<T> value;
    Problems errors;
    std::vector<std::string> warnings;

    bool ok() const { return value.has_value() && errors.empty(); }
    const T& operator*() const { return *value; }
    const T* operator->() const { return &*value; }

    // One line per problem, for CLIs and UI error boxes.
    std::string error_text() const {
        std::string out;
        for (const auto& p : errors) {
            if (!out.empty()) out += '\n';
            out += p.text();
        }
        return out;
    }
};

}  // namespace vramcalc
