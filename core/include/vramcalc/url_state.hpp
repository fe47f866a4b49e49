// The scenario as a readable URL hash (the page's shareable link, the desktop app's "copy link").
//
// Format (docs/url-state.md): `v=1&key=value&key=value...`
//   - keys are scenario keys; nested objects flatten with dots (`lora.rank=16`, `gpu.name=My%20GPU`);
//   - arrays are comma-separated (`lora.targets=q_proj,v_proj`; one element ends with a comma: `q_proj,`);
//   - an inline config.json model is `config=<base64url of compact JSON>` (decoded into "model");
//   - values are percent-encoded (RFC 3986 unreserved characters kept);
//   - `true`/`false`/`null` and JSON numbers come back typed; a string that would read as one of those
//     (or is empty, or starts with ' or ~) is written with a leading ' (`%27`);
//   - a value that cannot be flattened (empty object/array, array of objects) is `~<base64url JSON>`.
// decode(encode(j)) == j for every object scenario_to_json writes (and any JSON object, except
// top-level keys "v", "config" and "" which the format reserves).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vramcalc/diagnostics.hpp"

namespace vramcalc {

// Limits the decoder enforces (inputs beyond them are errors, never crashes).
inline constexpr std::size_t kUrlStateMaxChars = 64 * 1024;  // whole hash
inline constexpr int kUrlStateMaxKeyDepth = 8;               // dotted key segments
inline constexpr int kUrlStateMaxJsonDepth = 64;             // nesting inside config= / ~ payloads

// Scenario JSON -> hash text, without the leading '#'. Never throws.
std::string encode_url_state(const nlohmann::json& scenario);

// Hash text (with or without the leading '#') -> scenario JSON. Checks the encoding only (percent-
// encoding, base64url, embedded JSON, duplicate/empty keys, version, size); the scenario's meaning
// is checked afterwards by scenario_from_json. Never throws.
Result<nlohmann::json> decode_url_state(std::string_view hash);

}  // namespace vramcalc
