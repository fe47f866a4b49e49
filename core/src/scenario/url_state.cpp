// URL-hash codec for scenarios; the format is specified in docs/url-state.md.
#include "vramcalc/url_state.hpp"

#include "vramcalc/json_text.hpp"
#include "vramcalc/scenario_keys.hpp"
#include "scenario/url_text.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace vramcalc {

using detail::base64url_decode;
using detail::base64url_encode;
using detail::is_json_number;
using detail::percent_decode;
using detail::percent_encode;
using detail::shown;
using detail::unreserved;
using detail::valid_utf8;
using nlohmann::json;

namespace {

// Links list the scenario's keys in the key table's order (scenario_keys.hpp); other keys follow
// alphabetically. Keys of nested objects ("lora.rank") are not top-level keys.
bool top_level(const ScenarioKey& k) { return k.name.find('.') == std::string_view::npos; }

constexpr std::size_t kMaxErrors = 20;  // enough to act on; bounded for hostile input

// ---- encoder --------------------------------------------------------------------------------------

std::string dump_compact(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

// A string that would read back as something else gets a leading quote.
bool needs_quote(std::string_view s) {
    return s.empty() || s.front() == '\'' || s.front() == '~' || s == "true" || s == "false" || s == "null" ||
           is_json_number(s);
}

std::string scalar_text(const json& v) {
    switch (v.type()) {
        case json::value_t::string: {
            std::string s = v.get<std::string>();
            // Invalid UTF-8 cannot appear in a decoded link; replace it as nlohmann's dump does.
            if (!valid_utf8(s)) s = parse_json_or_discarded(dump_compact(v)).get<std::string>();
            return needs_quote(s) ? "'" + s : s;
        }
        case json::value_t::boolean:
            return v.get<bool>() ? "true" : "false";
        case json::value_t::number_integer:
            return std::to_string(v.get<std::int64_t>());
        case json::value_t::number_unsigned:
            return std::to_string(v.get<std::uint64_t>());
        case json::value_t::number_float:
            return dump_compact(v);  // shortest round-trip form; NaN/inf -> null
        default:
            return "null";
    }
}

bool is_scalar(const json& v) { return !v.is_object() && !v.is_array() && !v.is_binary(); }

void emit(std::string& out, const std::string& key, const json& v, int depth) {
    bool flat_object = v.is_object() && !v.empty() && depth < kUrlStateMaxKeyDepth;
    if (flat_object)
        for (const auto& [k, x] : v.items())
            if (k.empty()) flat_object = false;
    if (flat_object) {
        for (const auto& [k, x] : v.items()) emit(out, key + "." + percent_encode(k, '.'), x, depth + 1);
        return;
    }
    out += '&';
    out += key;
    out += '=';
    if (v.is_array() && !v.empty()) {
        bool scalars = true;
        for (const auto& e : v) scalars = scalars && is_scalar(e);
        if (scalars) {
            bool first = true;
            for (const auto& e : v) {
                if (!first) out += ',';
                first = false;
                out += percent_encode(scalar_text(e));
            }
            if (v.size() == 1) out += ',';  // marks a one-element list
            return;
        }
    }
    if (v.is_object() || v.is_array() || v.is_binary()) {
        out += '~';
        out += base64url_encode(dump_compact(v));
        return;
    }
    out += percent_encode(scalar_text(v));
}

// ---- decoder --------------------------------------------------------------------------------------

class Decoder {
public:
    explicit Decoder(Result<json>& out) : out_(out) {}

    void error(const std::string& field, std::string message) {
        if (out_.errors.size() < kMaxErrors) out_.errors.push_back({field, std::move(message)});
        else if (out_.errors.size() == kMaxErrors) out_.errors.push_back({"url", "more errors not shown"});
    }

    // base64url of compact JSON (config= and ~ values).
    std::optional<json> embedded_json(const std::string& field, std::string_view b64) {
        std::string why;
        auto bytes = base64url_decode(b64, why);
        if (!bytes) {
            error(field, why);
            return std::nullopt;
        }
        if (json_nesting_depth(*bytes) > kUrlStateMaxJsonDepth) {
            error(field, "embedded JSON nests deeper than " + std::to_string(kUrlStateMaxJsonDepth) + " levels");
            return std::nullopt;
        }
        // The same checks as every other JSON handed in (parse_json_text: duplicate keys, a NUL byte);
        // the embedded config was parsed without them, so a link's config kept the last of two keys.
        std::string bad;
        auto j = parse_json_text(*bytes, bad);
        if (!j) error(field, "the base64url text does not hold valid JSON: " + bad);
        return j;
    }

    std::optional<json> scalar(const std::string& field, std::string_view raw) {
        auto text = percent_decode(raw);
        if (!text) {
            error(field, "bad percent-encoding in \"" + shown(raw) + "\" (a % must be followed by two hex digits)");
            return std::nullopt;
        }
        if (!valid_utf8(*text)) {
            error(field, "value \"" + shown(raw) + "\" is not UTF-8 text once percent-decoded");
            return std::nullopt;
        }
        const std::string& t = *text;
        if (!t.empty() && t.front() == '\'') return json(t.substr(1));
        if (!t.empty() && t.front() == '~') return embedded_json(field, std::string_view(t).substr(1));
        if (t == "true") return json(true);
        if (t == "false") return json(false);
        if (t == "null") return json(nullptr);
        if (is_json_number(t)) {
            json n = parse_json_or_discarded(t);
            if (n.is_discarded() || !n.is_number()) {
                error(field, "number " + shown(t) + " is out of range");
                return std::nullopt;
            }
            return n;
        }
        return json(t);
    }

    std::optional<json> value(const std::string& field, std::string_view raw) {
        if (raw.find(',') == std::string_view::npos) return scalar(field, raw);
        std::vector<std::string_view> pieces;
        std::size_t start = 0;
        while (true) {
            const std::size_t comma = raw.find(',', start);
            pieces.push_back(raw.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        if (pieces.back().empty()) pieces.pop_back();  // "a," is the one-element list ["a"]
        json arr = json::array();
        for (const auto& p : pieces) {
            if (p.empty()) {
                error(field, "empty element in the list \"" + shown(raw) + "\" (write an empty string as %27)");
                return std::nullopt;
            }
            auto e = scalar(field, p);
            if (!e) return std::nullopt;
            arr.push_back(std::move(*e));
        }
        return arr;
    }

    // Places `v` at `path`; a key given twice, or both as a value and as an object, is an error.
    void place(const std::vector<std::string>& path, const std::string& field, json v) {
        std::string joined;
        for (std::size_t i = 0; i < path.size(); ++i) {
            if (i) joined += '\0';
            joined += path[i];
            if (i + 1 < path.size() && leaves_.count(joined)) {
                std::string dotted;
                for (std::size_t k = 0; k <= i; ++k) dotted += (k ? "." : "") + path[k];
                error(field, "conflicts with the earlier value of \"" + shown(dotted) +
                                 "\" (a key is either a value or has sub-keys)");
                return;
            }
        }
        if (leaves_.count(joined)) {
            error(field, "given twice");
            return;
        }
        if (interior_.count(joined)) {
            error(field, "given as a value and also with sub-keys");
            return;
        }
        leaves_.insert(joined);
        std::string prefix;
        for (std::size_t i = 0; i + 1 < path.size(); ++i) {
            if (i) prefix += '\0';
            prefix += path[i];
            interior_.insert(prefix);
        }
        json* node = &root_;
        for (std::size_t i = 0; i + 1 < path.size(); ++i) node = &(*node)[path[i]];
        (*node)[path.back()] = std::move(v);
    }

    void pair(std::string_view seg) {
        const std::size_t eq = seg.find('=');
        if (eq == std::string_view::npos) {
            error("url", "\"" + shown(seg) + "\" has no '=' (expected key=value)");
            return;
        }
        const std::string_view raw_key = seg.substr(0, eq), raw_value = seg.substr(eq + 1);
        if (raw_key.empty()) {
            error("url", "empty key in \"" + shown(seg) + "\"");
            return;
        }
        const std::string field = shown(raw_key);
        std::vector<std::string> path;
        std::size_t start = 0;
        while (true) {
            const std::size_t dot = raw_key.find('.', start);
            const std::string_view part =
                raw_key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
            if (part.empty()) {
                error(field, "empty key segment (keys are name or name.sub)");
                return;
            }
            auto k = percent_decode(part);
            if (!k) {
                error(field, "bad percent-encoding in the key (a % must be followed by two hex digits)");
                return;
            }
            if (k->empty() || !valid_utf8(*k)) {
                error(field, k->empty() ? "empty key segment" : "key is not UTF-8 text once percent-decoded");
                return;
            }
            path.push_back(std::move(*k));
            if (path.size() > static_cast<std::size_t>(kUrlStateMaxKeyDepth)) {
                error(field, "key nests deeper than " + std::to_string(kUrlStateMaxKeyDepth) + " levels");
                return;
            }
            if (dot == std::string_view::npos) break;
            start = dot + 1;
        }
        if (path.size() > 1 && (path[0] == "v" || path[0] == "config")) {
            // Both names are reserved by the format (docs/url-state.md): v is the version, config the
            // base64url config.json. A link cannot give them sub-keys (the encoder never writes them).
            error(field, "\"" + path[0] + "\" is reserved (" +
                             (path[0] == "v" ? std::string("v=1 is the link's version") : std::string("config=<base64url config.json>; set model keys as model.<key>")) +
                             ") and takes no sub-keys");
            return;
        }
        if (path.size() == 1 && path[0] == "v") {
            if (have_version_) error("v", "given twice");
            have_version_ = true;
            if (raw_value != "1")
                error("v", "unsupported version \"" + shown(raw_value) + "\" (this build reads v=1 links)");
            return;
        }
        if (path.size() == 1 && path[0] == "config") {
            auto m = embedded_json("config", raw_value);
            if (!m) return;
            if (!m->is_object()) {
                error("config", "expected a config.json object, got JSON of another type");
                return;
            }
            place({"model"}, "config", std::move(*m));
            return;
        }
        auto v = value(field, raw_value);
        if (v) place(path, field, std::move(*v));
    }

    void run(std::string_view hash) {
        if (!hash.empty() && hash.front() == '#') hash.remove_prefix(1);
        if (hash.size() > kUrlStateMaxChars) {
            error("url", "longer than " + std::to_string(kUrlStateMaxChars) + " characters (" +
                             std::to_string(hash.size()) + ")");
            return;
        }
        for (std::size_t i = 0; i < hash.size(); ++i) {
            const auto c = static_cast<unsigned char>(hash[i]);
            if (c < 0x20 || c == 0x7F) {
                error("url", "control character (byte " + std::to_string(c) + ") at position " +
                                 std::to_string(i + 1) + "; such characters must be percent-encoded");
                return;
            }
        }
        std::size_t start = 0;
        while (start <= hash.size()) {
            const std::size_t amp = hash.find('&', start);
            const std::string_view seg =
                hash.substr(start, amp == std::string_view::npos ? std::string_view::npos : amp - start);
            if (!seg.empty()) pair(seg);  // "a=1&&b=2" and a trailing '&' are harmless
            if (amp == std::string_view::npos) break;
            start = amp + 1;
        }
        if (!have_version_) error("v", "missing: a vramcalc link starts with v=1");
        if (out_.errors.empty()) out_.value = std::move(root_);
    }

private:
    Result<json>& out_;
    json root_ = json::object();
    std::set<std::string> leaves_, interior_;  // paths joined with '\0'
    bool have_version_ = false;
};

}  // namespace

std::string encode_url_state(const json& scenario) {
    std::string out = "v=1";
    if (!scenario.is_object()) return out;
    auto one = [&](const std::string& k, const json& v) {
        if (k.empty() || k == "v" || k == "config") return;  // reserved by the format (docs/url-state.md)
        // An inline config.json or layer stack ({"input", "layers"}) travels whole, as base64url JSON.
        if (k == "model" && v.is_object() && (v.contains("model_type") || v.contains("architectures") || v.contains("layers"))) {
            out += "&config=";
            out += base64url_encode(dump_compact(v));
            return;
        }
        emit(out, percent_encode(k, '.'), v, 1);
    };
    for (const ScenarioKey& k : scenario_keys())
        if (auto it = scenario.find(std::string(k.name)); top_level(k) && it != scenario.end()) one(std::string(k.name), *it);
    for (const auto& [k, v] : scenario.items()) {
        const ScenarioKey* known = find_scenario_key(k);
        if (!known || !top_level(*known)) one(k, v);
    }
    return out;
}

Result<json> decode_url_state(std::string_view hash) {
    Result<json> out;
    Decoder(out).run(hash);
    return out;
}

}  // namespace vramcalc
