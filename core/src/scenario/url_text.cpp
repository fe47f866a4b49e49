// The byte-level text codecs of a scenario link (url_text.hpp).
#include "scenario/url_text.hpp"

#include <cstdint>

namespace vramcalc::detail {

bool unreserved(unsigned char c) {  // RFC 3986 section 2.3
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

const char kHex[] = "0123456789ABCDEF";

// `also` lists unreserved characters that must still be escaped ('.' inside key segments).
std::string percent_encode(std::string_view s, char also) {
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (unreserved(c) && ch != also) {
            out += ch;
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// nullopt on a '%' not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return std::nullopt;
        const int hi = hex_value(s[i + 1]);
        const int lo = hex_value(s[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF), as JSON text needs.
bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        int n = 0;
        std::uint32_t cp = 0, min = 0;
        if ((c & 0xE0) == 0xC0) n = 1, cp = c & 0x1Fu, min = 0x80;
        else if ((c & 0xF0) == 0xE0) n = 2, cp = c & 0x0Fu, min = 0x800;
        else if ((c & 0xF8) == 0xF0) n = 3, cp = c & 0x07u, min = 0x10000;
        else return false;
        if (i + static_cast<std::size_t>(n) >= s.size()) return false;
        for (int k = 1; k <= n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
            if ((d & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += static_cast<std::size_t>(n) + 1;
    }
    return true;
}

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url_encode(std::string_view s) {  // RFC 4648 section 5, no padding
    std::string out;
    out.reserve((s.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < s.size(); i += 3) {
        const std::uint32_t v = (std::uint32_t{static_cast<unsigned char>(s[i])} << 16) |
                                (std::uint32_t{static_cast<unsigned char>(s[i + 1])} << 8) |
                                std::uint32_t{static_cast<unsigned char>(s[i + 2])};
        out += kB64[(v >> 18) & 63];
        out += kB64[(v >> 12) & 63];
        out += kB64[(v >> 6) & 63];
        out += kB64[v & 63];
    }
    const std::size_t rest = s.size() - i;
    if (rest > 0) {
        std::uint32_t v = std::uint32_t{static_cast<unsigned char>(s[i])} << 16;
        if (rest == 2) v |= std::uint32_t{static_cast<unsigned char>(s[i + 1])} << 8;
        out += kB64[(v >> 18) & 63];
        out += kB64[(v >> 12) & 63];
        if (rest == 2) out += kB64[(v >> 6) & 63];
    }
    return out;
}

static int b64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

// base64url with optional '=' padding; the error names the offending position.
std::optional<std::string> base64url_decode(std::string_view s, std::string& why) {
    while (!s.empty() && s.back() == '=') s.remove_suffix(1);
    if (s.size() % 4 == 1) {
        why = "not valid base64url (length " + std::to_string(s.size()) + " cannot end a base64 text)";
        return std::nullopt;
    }
    std::string out;
    out.reserve(s.size() / 4 * 3 + 2);
    std::uint32_t acc = 0;
    int bits = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const int v = b64_value(s[i]);
        if (v < 0) {
            why = "not valid base64url (character " + std::to_string(i + 1) +
                  " is not one of A-Z a-z 0-9 - _)";
            return std::nullopt;
        }
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xFF);
            acc &= (1u << bits) - 1;
        }
    }
    return out;
}

// RFC 8259 section 6 number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s) {
    std::size_t i = 0;
    auto digits = [&] {
        const std::size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        return i > start;
    };
    if (i < s.size() && s[i] == '-') ++i;
    if (i < s.size() && s[i] == '0') ++i;
    else if (!digits()) return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!digits()) return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (!digits()) return false;
    }
    return i == s.size();
}

// Shown in messages: the raw text, bytes outside printable ASCII percent-encoded, at most 60 chars.
std::string shown(std::string_view raw) {
    std::string out;
    for (char ch : raw.substr(0, 60)) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7F) {
            out += ch;
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    if (raw.size() > 60) out += "...";
    return out;
}

}  // namespace vramcalc::detail
