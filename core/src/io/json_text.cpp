#include "vramcalc/json_text.hpp"

#include <algorithm>
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

// The DOM built in one SAX pass that also refuses an object with the same key twice (nlohmann keeps the
// last silently) and keeps the syntax error nlohmann reports (handed to parse_error, never thrown: the
// page's wasm is built without exception handling). Not nlohmann's callback parser: it rescans the parent
// container for discarded values each time an object ends (json_sax_dom_callback_parser::end_object), so a
// container of n objects cost n^2 (240 KB of valid JSON took 2.1 s in the CLI, issue 42). A duplicate is
// the key already present in the object being built: no set of keys beside it.
struct CheckedDom {
    using json = nlohmann::json;
    json root;
    std::vector<json*> stack;       // the open objects and arrays
    std::vector<std::string> keys;  // per open container: the key whose value is being read ("" in arrays)
    json* pending = nullptr;        // where the next value goes inside an object
    std::string duplicate;          // "lora.rank", empty: none
    std::string error;              // nlohmann's reason, empty: the text parses

    json* place(json&& v) {
        if (stack.empty()) {
            root = std::move(v);
            return &root;
        }
        json& top = *stack.back();
        if (top.is_array()) {
            top.get_ref<json::array_t&>().push_back(std::move(v));
            return &top.get_ref<json::array_t&>().back();
        }
        *pending = std::move(v);
        return pending;
    }
    bool value(json&& v) {
        place(std::move(v));
        return true;
    }
    bool null() { return value(nullptr); }
    bool boolean(bool b) { return value(b); }
    bool number_integer(json::number_integer_t v) { return value(v); }
    bool number_unsigned(json::number_unsigned_t v) { return value(v); }
    bool number_float(json::number_float_t v, const json::string_t&) { return value(v); }
    bool string(json::string_t& v) { return value(std::move(v)); }
    bool binary(json::binary_t& v) { return value(json::binary(std::move(v))); }
    bool open(json&& empty) {
        stack.push_back(place(std::move(empty)));
        keys.emplace_back();
        return true;
    }
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool close() {
        stack.pop_back();
        keys.pop_back();
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& k) {
        auto& object = stack.back()->get_ref<json::object_t&>();
        auto [it, fresh] = object.try_emplace(k);
        if (!fresh) {
            std::string path;  // "lora", "layers[]": the containers this object sits in
            for (std::size_t i = 0; i + 1 < stack.size(); ++i)
                path += stack[i]->is_array() ? std::string("[]") : (path.empty() ? "" : ".") + keys[i];
            duplicate = shown_key(path.empty() ? k : path + "." + k);
            return false;  // the first duplicate is the answer: stop reading
        }
        keys.back() = k;
        pending = &it->second;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        error = e.what();
        return false;
    }
};

// Python's json module writes NaN, Infinity and -Infinity bare (json.dumps' allow_nan=True default), and
// transformers saves config.json with it: NVIDIA-Nemotron-3-Super-120B-A12B's config has
// "time_step_limit": [0.0, Infinity]. JSON has no such literals; they are read as null, as JS's JSON.stringify
// writes them (FieldReader: present with the value null). Outside strings only; the text is copied only when
// one occurs.
std::string_view python_literals_as_null(std::string_view text, std::string& copy) {
    static constexpr std::string_view kLiterals[] = {"-Infinity", "Infinity", "NaN"};
    bool in_string = false, escaped = false;
    std::size_t done = 0;  // text[0, done) is already in copy
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            continue;
        }
        if (c != '-' && c != 'I' && c != 'N') continue;
        for (auto lit : kLiterals)
            if (text.substr(i, lit.size()) == lit) {
                copy.append(text.substr(done, i - done)).append("null");
                done = i + lit.size();
                i = done - 1;
                break;
            }
    }
    if (done == 0) return text;
    copy.append(text.substr(done));
    return copy;
}

}  // namespace

nlohmann::json parse_json_or_discarded(std::string_view text) {
    // The same SAX handler as parse_json_text: nlohmann's own DOM builder (json_sax_dom_parser) beside it was
    // a second instantiation of the parser, 1.1 KB of the page's gzip.
    CheckedDom dom;
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &dom)) return nlohmann::json(nlohmann::json::value_t::discarded);
    return std::move(dom.root);
}

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
    std::string rewritten;
    text = python_literals_as_null(text, rewritten);
    CheckedDom dom;
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &dom) && dom.duplicate.empty()) {
        // nlohmann's reason ("parse error at line 1, column 36: syntax error while parsing value - invalid
        // literal; last read: ..."), shown without its tag and with non-ASCII bytes as '?' (the text it
        // quotes may be the invalid UTF-8 being reported).
        std::string reason = dom.error.empty() ? std::string("unreadable") : dom.error;
        if (const auto tag = reason.find("] "); reason.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
            reason.erase(0, tag + 2);
        for (auto& c : reason)
            if (static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20) c = '?';
        if (reason.size() > 200) reason = reason.substr(0, 197) + "...";
        why = "not valid JSON (" + reason + ")";
        return std::nullopt;
    }
    if (!dom.duplicate.empty()) {
        why = "duplicate key \"" + dom.duplicate + "\": each key may appear once in an object (which one was meant?)";
        return std::nullopt;
    }
    return std::move(dom.root);
}

nlohmann::json problems_to_json(const Problems& problems) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : problems) list.push_back({{"field", p.field}, {"message", p.message}});
    return list;
}

}  // namespace vramcalc
