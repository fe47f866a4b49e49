// A YAML/JSON document as entries: yaml-cpp parses the text into a node graph in which an alias is the
// anchored node itself, shared (NodeBuilder::OnAlias pushes the anchor's node: parsing stays linear in the
// text). Expansion happens here, when the graph is walked: a "billion laughs" of nine aliases per level
// is 974 bytes of text and 10^9 nodes of walk. The walk therefore counts every node it visits and stops
// at kMaxYamlNodes or kMaxYamlDepth with an error that names the limit.
#include <algorithm>
#include <sstream>
#include <unordered_map>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "source.hpp"

namespace vramcalc::imports {
namespace {

// A key's dotted path grows with every level, and an alias repeats a long key or value: the entries' text
// is bounded too (found by fuzz_import_yaml: 4 KB of aliased long keys made 2 GB of paths).
constexpr std::size_t kMaxKeyChars = 1024;                    // real dotted paths are under 100
constexpr std::size_t kMaxEntryBytes = std::size_t{4} << 20;  // the keys and values of all entries

class Walk {
public:
    YamlEntries out;
    Problems errors;

    // Flattens `n` (the value of `path`, written on line `line`; 0: the node's own line) into entries.
    // False once a limit is hit (the error is recorded).
    bool node(const YAML::Node& n, const std::string& path, int line, int depth) {
        if (!visit(n, depth)) return false;
        Entry e;
        e.key = path;
        e.line = line > 0 ? line : n.Mark().line + 1;
        if (n.IsMap()) return map(n, path, depth);
        if (n.IsNull() || !n.IsDefined()) {
            e.kind = Entry::Kind::null;
            e.value = "null";
        } else if (n.IsScalar()) {
            e.value = n.Scalar();
            if (n.Tag() == "?" && (e.value == "~" || e.value == "null" || e.value == "Null" || e.value == "NULL"))
                e.kind = Entry::Kind::null;
        } else if (n.IsSequence()) {
            if (!list(n, e, depth)) return false;
        } else {
            e.kind = Entry::Kind::other;
            e.value = "{...}";
        }
        if (!path.empty()) return add(std::move(e));
        return true;
    }

private:
    std::size_t visited_ = 0;
    std::size_t bytes_ = 0;

    bool add(Entry e) {
        bytes_ += e.key.size() + e.value.size();
        for (const auto& item : e.items) bytes_ += item.size();
        if (bytes_ > kMaxEntryBytes) {
            errors.push_back({"line " + std::to_string(e.line), "the document expands to more than " + std::to_string(kMaxEntryBytes) +
                                                                    " bytes of keys and values (the size limit; YAML aliases repeat "
                                                                    "their anchor's text): refused"});
            return false;
        }
        out.entries.push_back(std::move(e));
        return true;
    }

    bool visit(const YAML::Node& n, int depth) {
        if (++visited_ > kMaxYamlNodes) {
            errors.push_back({"line " + std::to_string(n.Mark().line + 1),
                              "the document expands to more than " + std::to_string(kMaxYamlNodes) +
                                  " values (the node limit; YAML aliases repeat their anchor's whole subtree, and real configs "
                                  "have a few hundred): refused"});
            return false;
        }
        if (depth > kMaxYamlDepth) {
            errors.push_back({"line " + std::to_string(n.Mark().line + 1),
                              "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels (the depth limit; real configs nest 3-4)"});
            return false;
        }
        return true;
    }

    // A list of scalars stays one entry; a list holding maps or lists is one entry of kind other.
    bool list(const YAML::Node& n, Entry& e, int depth) {
        e.kind = Entry::Kind::list;
        for (const auto& item : n) {
            if (!visit(item, depth + 1)) return false;
            if (!item.IsScalar()) {
                e.kind = Entry::Kind::other;
                e.items.clear();
                break;
            }
            e.items.push_back(item.Scalar());
        }
        e.value = e.kind == Entry::Kind::list ? "[list]" : "[...]";
        return true;
    }

    // A map's keys; a key written twice: PyYAML and Python's json keep the last value, so the earlier copies
    // are entries of their own that say which line counts (DeepSpeed refuses the file: import.cpp).
    bool map(const YAML::Node& n, const std::string& path, int depth) {
        struct Last {
            std::size_t index = 0;
            int line = 0;
        };
        std::unordered_map<std::string, Last> last;
        std::size_t count = 0;
        for (const auto& kv : n)
            if (kv.first.IsScalar()) last[kv.first.Scalar()] = {count++, kv.first.Mark().line + 1};
            else ++count;
        std::size_t i = 0;
        for (const auto& kv : n) {
            const std::size_t index = i++;
            const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
            const int line = kv.first.Mark().line + 1;
            if (path.size() + 1 + k.size() > kMaxKeyChars) {
                errors.push_back({"line " + std::to_string(line), "a key path longer than " + std::to_string(kMaxKeyChars) +
                                                                      " characters (the key limit; real ones are under 100): refused"});
                return false;
            }
            const std::string key = path.empty() ? k : path + "." + k;
            if (kv.first.IsScalar() && last[k].index != index) {  // an earlier copy: reported, not walked
                if (!visit(kv.second, depth + 1)) return false;
                Entry e{.key = key, .value = kv.second.IsScalar() ? kv.second.Scalar() : "{...}", .kind = Entry::Kind::other, .items = {}, .line = line, .has_value = true, .repeated_at = last[k].line};
                out.repeated.push_back(e);
                if (!add(std::move(e))) return false;
                continue;
            }
            if (!node(kv.second, key, kv.second.IsMap() ? 0 : line, depth + 1)) return false;
        }
        if (count == 0 && !path.empty())
            return add({.key = path, .value = "{}", .kind = Entry::Kind::other, .items = {}, .line = n.Mark().line + 1});
        return true;
    }
};

// The events of a parse, dropped; the line where the last document started.
class DocumentStarts : public YAML::EventHandler {
public:
    int line = 0;
    void OnDocumentStart(const YAML::Mark& m) override { line = m.line + 1; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

// The line of a second document, or 0. Parsed event by event and stopped after two documents: yaml-cpp 0.7's
// LoadAll never ends on some malformed streams (HandleNextDocument keeps returning true without reading on;
// found by fuzz_import_yaml, which saw it grow a vector of empty documents to 2 GB).
int second_document_line(const std::string& text) {
    // Only a line that starts with a document marker ("---", "...") or a directive ("%") can start another.
    bool marker = false;
    for (std::size_t at = 0; at < text.size() && !marker; at = text.find('\n', at) + 1) {
        const std::string_view line = std::string_view(text).substr(at, 3);
        marker = line == "---" || line == "..." || line.substr(0, 1) == "%";
        if (text.find('\n', at) == std::string::npos) break;
    }
    if (!marker) return 0;
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    if (!parser.HandleNextDocument(starts)) return 0;
    return parser.HandleNextDocument(starts) ? std::max(starts.line, 1) : 0;
}

}  // namespace

Result<YamlEntries> yaml_entries(std::string_view text) {
    Result<YamlEntries> r;
    if (text.size() > kMaxYamlBytes) {
        r.errors.push_back({"text", "over " + std::to_string(kMaxYamlBytes) + " bytes (the size limit for a YAML or JSON settings "
                                                                              "file; real configs are under 20 KB): refused"});
        return r;
    }
    // Without aliases every value starts a line or follows a comma: more of both than the node limit cannot fit.
    std::size_t items = 0;
    for (const char c : text) items += c == '\n' || c == ',';
    if (items > kMaxYamlNodes) {
        r.errors.push_back({"text", "more than " + std::to_string(kMaxYamlNodes) + " lines and list items (the node limit; real "
                                                                                   "configs have a few hundred): refused"});
        return r;
    }
    const std::string copy(text);
    const YAML::Node root = YAML::Load(copy);  // throws YAML::Exception: import.cpp reports it
    // PyYAML's safe_load (how these tools read their YAML) takes one document: a second one after "---" is
    // its ComposerError "expected a single document in the stream".
    if (const int second = second_document_line(copy); second > 0) {
        r.errors.push_back({"line " + std::to_string(second),
                            "a second YAML document (after '---'): one config is one document, and the tools refuse more "
                            "(PyYAML's safe_load: \"expected a single document in the stream\")"});
        return r;
    }
    if (!root.IsMap()) {
        r.errors.push_back({"line 1",
                            "expected a command line (vllm serve, python -m sglang.launch_server, llama-server) "
                            "or a YAML/JSON object of settings"});
        return r;
    }
    Walk w;
    if (!w.node(root, "", 0, 0)) {
        r.errors = std::move(w.errors);
        return r;
    }
    r.value = std::move(w.out);
    return r;
}

}  // namespace vramcalc::imports
