// Reading JSON text that users hand in (config.json, scenarios): a nesting limit and a reason for text
// that is not JSON. nlohmann parses iteratively, but copying, dumping and comparing values recurse: a
// 100 000-deep document overflowed the stack in the CLI (found with tests/data/bad, see
// tests/unit-bad-input.cpp), so deeper documents are refused before parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vramcalc/diagnostics.hpp"

namespace vramcalc {

inline constexpr int kMaxJsonDepth = 256;  // real config.json files nest 3-4 levels
// The one size limit on text handed in (CLI files and stdin, the JS API, the page's drop and paste):
// the largest reference file is 260 KB, a config.json a few KB; 100 MB documents took seconds and GBs.
inline constexpr std::size_t kMaxInputBytes = std::size_t{8} << 20;  // 8 MiB

// Deepest array/object nesting of the text (strings skipped), without parsing it.
int json_nesting_depth(std::string_view text);

// The parsed value, or nullopt with `why` ("not valid JSON (...)") saying what is wrong. Refused too:
// text over kMaxInputBytes, nesting over kMaxJsonDepth and an object with the same key twice (nlohmann
// keeps the last silently; the URL decoder already refuses duplicates).
std::optional<nlohmann::json> parse_json_text(std::string_view text, std::string& why);

// The value of JSON text, or a discarded value (is_discarded()) where the text is not JSON or has a key twice
// in an object: for text the program wrote itself or already checked (presets, the answers of the page's
// modules, its saved state), without parse_json_text's limits and reasons. json::parse(text, nullptr, false)
// would instantiate nlohmann's callback parser beside the plain one, for a callback it is never given (with
// the std::string lexer the UI also instantiated, 3.6 KB gzip of the page); this shares parse_json_text's.
nlohmann::json parse_json_or_discarded(std::string_view text);

// Problems as the JSON every front end answers with: [{"field", "message"}, ...].
nlohmann::json problems_to_json(const Problems& problems);

}  // namespace vramcalc
