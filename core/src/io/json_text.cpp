#include "vramcalc/json_text.hpp"

#include <algorithm>

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

std::optional<nlohmann::json> parse_json_text(std::string_view text, std::string& why) {
    if (json_nesting_depth(text) > kMaxJsonDepth) {
        why = "not valid JSON here: nests deeper than " + std::to_string(kMaxJsonDepth) + " levels";
        return std::nullopt;
    }
    try {
        return nlohmann::json::parse(text.begin(), text.end());
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

}  // namespace vramcalc
