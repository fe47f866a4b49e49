#include "vramcalc/json_text.hpp"

#include <algorithm>
#include <functional>
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

// Watches the parser's events for an object that has the same key twice; remembers the first one.
struct DuplicateKeys {
    struct Open {
        std::set<std::string> keys;
        std::string path;     // dotted path of this object ("" at the top, "lora", "model")
        std::string pending;  // the key whose value is being parsed
        bool is_object = true;
    };
    std::vector<Open> stack;
    std::string found;  // "lora.rank", empty: none

    std::string child_path() const {
        if (stack.empty()) return "";
        const Open& top = stack.back();
        if (!top.is_object) return top.path + "[]";
        return top.path.empty() ? top.pending : top.path + "." + top.pending;
    }
    bool operator()(int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (event == E::object_start || event == E::array_start) {
            stack.push_back({{}, child_path(), {}, event == E::object_start});
        } else if (event == E::object_end || event == E::array_end) {
            if (!stack.empty()) stack.pop_back();
        } else if (event == E::key && !stack.empty() && parsed.is_string()) {
            Open& top = stack.back();
            top.pending = parsed.get<std::string>();
            if (!top.keys.insert(top.pending).second && found.empty())
                found = shown_key(top.path.empty() ? top.pending : top.path + "." + top.pending);
        }
        return true;
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
    try {
        DuplicateKeys dup;
        auto j = nlohmann::json::parse(text.begin(), text.end(), std::ref(dup));
        if (!dup.found.empty()) {
            why = "duplicate key \"" + dup.found + "\": each key may appear once in an object (which one was meant?)";
            return std::nullopt;
        }
        return j;
    } catch (const nlohmann::json::exception& e) {
        // nlohmann's reason ("parse error at line 1, column 36: syntax error while parsing value -
        // invalid literal; last read: ..."), without its tag and with non-ASCII bytes shown as '?'
        // (the text it quotes may be the invalid UTF-8 being reported).
        std::string reason = e.what();
        if (const auto tag = reason.find("] "); reason.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
            reason.erase(0, tag + 2);
        for (auto& c : reason)
            if (static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20) c = '?';
        if (reason.size() > 200) reason = reason.substr(0, 197) + "...";
        why = "not valid JSON (" + reason + ")";
        return std::nullopt;
    }
}

nlohmann::json problems_to_json(const Problems& problems) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : problems) list.push_back({{"field", p.field}, {"message", p.message}});
    return list;
}

}  // namespace vramcalc
