// Internal: the byte-level text codecs a scenario link is written in (docs/url-state.md): RFC 3986 percent-
// encoding, base64url (RFC 4648 section 5), strict UTF-8 and RFC 8259's number grammar, and how a raw
// input is quoted in an error message. url_state.cpp builds the link's key=value grammar on them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vramcalc::detail {

bool unreserved(unsigned char c);  // RFC 3986 section 2.3
// `also` lists unreserved characters that must still be escaped ('.' inside key segments).
std::string percent_encode(std::string_view s, char also = '\0');
// nullopt on a '%' not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view s);
// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF), as JSON text needs.
bool valid_utf8(std::string_view s);
std::string base64url_encode(std::string_view s);  // no padding
// base64url with optional '=' padding; the error names the offending position.
std::optional<std::string> base64url_decode(std::string_view s, std::string& why);
// RFC 8259 section 6 number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s);
// Shown in messages: the raw text, bytes outside printable ASCII percent-encoded, at most 60 chars.
std::string shown(std::string_view raw);

}  // namespace vramcalc::detail
