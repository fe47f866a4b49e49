#include "vramcalc/json_text.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace vramcalc {

int json_nesting_depth(std::string_view s) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (char c : s) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
        else if (c == ']' || c == '}') --depth;
    }
    return deepest;
}

namespace {

// Printable ASCII of a key for a message (it may hold any bytes), at most 60 characters.
std::string shown_key(const std::string& key) {
    std::string out;
    for (char c : key.substr(0, std::min<std::size_t>(key.size(), 60)))
        out += static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F ? c : '?';
    return key.size() > 60 ? out + "..." : out;
}

// A SAX pass over the text that finds the first object with the same key twice and keeps the syntax error
// nlohmann reports (handed to parse_error, never thrown: the page's wasm is built without exception
// handling). It runs before the DOM parse instead of as the DOM parser's callback: nlohmann 3.11's callback
// parser scans the parent container for discarded values each time an object ends
// (json_sax_dom_callback_parser::end_object), which made a container of n objects cost n^2 (240 KB of
// valid JSON took 2.1 s in the CLI, issue 42). Both passes are linear.
struct JsonCheck {
    using json = nlohmann::json;
    struct Open {
        std::set<std::string> keys;
        std::string path;     // dotted path of this object ("" at the top, "lora", "model")
        std::string pending;  // the key whose value is being parsed
        bool is_object = true;
    };
    std::vector<Open> stack;
    std::string duplicate;  // "lora.rank", empty: none
    std::string error;      // nlohmann's reason, empty: the text parses

    std::string child_path() const {
        if (stack.empty()) return "";
        const Open& top = stack.back();
        if (!top.is_object) return top.path + "[]";
        return top.path.empty() ? top.pending : top.path + "." + top.pending;
    }
    bool open(bool is_object) {
        stack.push_back({{}, child_path(), {}, is_object});
        return true;
    }
    bool close() {
        if (!stack.empty()) stack.pop_back();
        return true;
    }
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t) { return true; }
    bool number_float(json::number_float_t, const json::string_t&) { return true; }
    bool string(json::string_t&) { return true; }
    bool binary(json::binary_t&) { return true; }
    bool start_object(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool start_array(std::size_t) { return open(false); }
    bool end_array() { return close(); }
    bool key(json::string_t& k) {
        if (stack.empty()) return true;
        Open& top = stack.back();
        top.pending = k;
        if (!top.keys.insert(k).second && duplicate.empty())
            duplicate = shown_key(top.path.empty() ? k : top.path + "." + k);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        error = e.what();
        return false;
    }
};

}  // namespace

std::optional<nlohmann::json> parse_json_text(std::string_view text, std::string& why) {
    if (text.size() > kMaxInputBytes) {
        why = "the text is " + std::to_string(text.size()) + " bytes, allowed: at most " +
              std::to_string(kMaxInputBytes) + " bytes (8 MiB)";
        return std::nullopt;
    }
    // nlohmann's lexer takes a NUL byte for the end of input, so text after one was silently ignored;
    // JSON text cannot hold a raw NUL anywhere (strings write it as \u0000).
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        why = "not valid JSON (a NUL byte at offset " + std::to_string(nul) + "; JSON text cannot hold one, strings write it as \\u0000)";
        return std::nullopt;
    }
    if (json_nesting_depth(text) > kMaxJsonDepth) {
        why = "not valid JSON here: nests deeper than " + std::to_string(kMaxJsonDepth) + " levels";
        return std::nullopt;
    }
    JsonCheck check;
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &check)) {
        // nlohmann's reason ("parse error at line 1, column 36: syntax error while parsing value - invalid
        // literal; last read: ..."), shown without its tag and with non-ASCII bytes as '?' (the text it
        // quotes may be the invalid UTF-8 being reported).
        std::string reason = check.error.empty() ? std::string("unreadable") : check.error;
        if (const auto tag = reason.find("] "); reason.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
            reason.erase(0, tag + 2);
        for (auto& c : reason)
            if (static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20) c = '?';
        if (reason.size() > 200) reason = reason.substr(0, 197) + "...";
        why = "not valid JSON (" + reason + ")";
        return std::nullopt;
    }
    if (!check.duplicate.empty()) {
        why = "duplicate key \"" + check.duplicate + "\": each key may appear once in an object (which one was meant?)";
        return std::nullopt;
    }
    auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {  // the SAX pass accepted the text, so this does not happen; never a silent null
        why = "not valid JSON";
        return std::nullopt;
    }
    return j;
}

nlohmann::json problems_to_json(const Problems& problems) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : problems) list.push_back({{"field", p.field}, {"message", p.message}});
    return list;
}

}  // namespace vramcalc
