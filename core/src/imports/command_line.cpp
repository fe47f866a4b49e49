// Command lines: a shell script's text split into words the way a shell would for the cases configs use
// (quotes, backslash-newline continuations, # comments, ;/&&/|/& between commands, redirections), then
// the first command that runs vllm, sglang or llama.cpp, its flags with their lines.
#include <cctype>
#include <unordered_map>

#include "source.hpp"

namespace vramcalc::imports {
namespace {

struct Word {
    std::string text;
    int line = 0;
    bool op = false;  // a command separator or a redirection
};

// Real launch scripts have a few hundred words; the limit keeps any input under 1 MB within 100 ms.
constexpr std::size_t kMaxWords = 10000;

// `open_quote`: the line of a quote that is never closed (a shell refuses the script), else 0. Stops after
// kMaxWords + 1 words.
std::vector<Word> shell_words(std::string_view t, int& open_quote) {
    std::vector<Word> out;
    int line = 1;
    std::string cur;
    int cur_line = 0;
    bool in_word = false;
    auto flush = [&] {
        if (in_word) out.push_back({cur, cur_line, false});
        cur.clear();
        in_word = false;
    };
    for (std::size_t i = 0; i < t.size() && out.size() <= kMaxWords; ++i) {
        const char c = t[i];
        if (c == '\\' && i + 1 < t.size() && t[i + 1] == '\n') {
            ++line;
            ++i;
            continue;
        }
        if (c == '\\' && i + 2 < t.size() && t[i + 1] == '\r' && t[i + 2] == '\n') {
            ++line;
            i += 2;
            continue;
        }
        if (c == '\n' || c == ';' || c == '|' || c == '&' || c == '>' || c == '<') {
            // "2>&1" and "2>": a digit word right before a redirection belongs to it.
            if ((c == '>' || c == '<') && in_word && cur.size() == 1 && std::isdigit(static_cast<unsigned char>(cur[0]))) cur.clear(), in_word = false;
            flush();
            out.push_back({std::string(1, c == '\n' ? ';' : c), line, true});
            if (c == '\n') ++line;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            flush();
            continue;
        }
        if (c == '#' && !in_word) {  // a comment runs to the end of the line
            while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
            continue;
        }
        if (!in_word) cur_line = line, in_word = true;
        if (c == '\'' || c == '"') {
            const int opened = line;
            for (++i; i < t.size() && t[i] != c; ++i) {
                if (t[i] == '\n') ++line;
                if (c == '"' && t[i] == '\\' && i + 1 < t.size()) ++i;
                cur += t[i];
            }
            if (i >= t.size() && open_quote == 0) open_quote = opened;
            continue;
        }
        cur += c;
    }
    flush();
    return out;
}

std::string base_name(const std::string& w) {
    const auto slash = w.rfind('/');
    return slash == std::string::npos ? w : w.substr(slash + 1);
}

bool is_number(const std::string& w) {
    if (w.empty()) return false;
    std::size_t i = (w[0] == '-' || w[0] == '+') ? 1 : 0;
    if (i >= w.size()) return false;
    for (; i < w.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(w[i])) && w[i] != '.' && w[i] != 'e' && w[i] != 'E') return false;
    return true;
}

// Flags of one command's words after the program: "--flag value", "--flag=value", "-f value", switches.
// Positional words go to `positional`.
std::vector<Entry> flags_of(const std::vector<Word>& ws, std::size_t from, std::size_t to, std::vector<Word>& positional) {
    std::vector<Entry> out;
    for (std::size_t i = from; i < to; ++i) {
        const Word& w = ws[i];
        if (w.text.size() < 2 || w.text[0] != '-' || is_number(w.text)) {
            positional.push_back(w);
            continue;
        }
        Entry e;
        e.line = w.line;
        const auto eq = w.text.find('=');
        if (w.text.rfind("--", 0) == 0 && eq != std::string::npos) {
            e.key = w.text.substr(0, eq);
            e.value = w.text.substr(eq + 1);
        } else {
            e.key = w.text;
            const bool next_is_value = i + 1 < to && (ws[i + 1].text.empty() || ws[i + 1].text[0] != '-' || is_number(ws[i + 1].text));
            if (next_is_value) e.value = ws[++i].text;
            else e.has_value = false;
        }
        // "--max_model_len" and "--max-model-len" are the same flag to vllm's and sglang's parsers.
        if (e.key.rfind("--", 0) == 0)
            for (auto& c : e.key)
                if (c == '_') c = '-';
        out.push_back(std::move(e));
    }
    // A flag given twice: argparse and llama.cpp's parser keep the last value; the earlier ones say so.
    std::unordered_map<std::string, std::size_t> last;
    for (std::size_t i = 0; i < out.size(); ++i) last[out[i].key] = i;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (last[out[i].key] != i) out[i].repeated_at = out[last[out[i].key]].line;
    return out;
}

enum class Engine { none,
                    vllm,
                    sglang,
                    llamacpp };

// Where the program of command ws[from, to) starts its flags, and which engine it is.
Engine engine_of(const std::vector<Word>& ws, std::size_t from, std::size_t to, std::size_t& args) {
    for (std::size_t i = from; i < to; ++i) {
        const std::string b = base_name(ws[i].text);
        if (b == "vllm" && i + 1 < to && ws[i + 1].text == "serve") return args = i + 2, Engine::vllm;
        if (b == "llama-server" || b == "llama-cli" || b == "llama-bench") return args = i + 1, Engine::llamacpp;
        if (b.rfind("python", 0) == 0 && i + 2 < to && ws[i + 1].text == "-m") {
            const std::string& mod = ws[i + 2].text;
            if (mod.rfind("vllm.entrypoints", 0) == 0) return args = i + 3, Engine::vllm;
            if (mod == "sglang.launch_server") return args = i + 3, Engine::sglang;
        }
    }
    return Engine::none;
}

bool engine_anywhere(const std::vector<Word>& ws) {
    std::size_t args = 0;
    return engine_of(ws, 0, ws.size(), args) != Engine::none;
}

}  // namespace

Result<Imported> import_command_line(std::string_view text, const Catalog& catalog, bool& recognised) {
    int open_quote = 0;
    const std::vector<Word> ws = shell_words(text, open_quote);
    if (ws.size() > kMaxWords && engine_anywhere(ws)) {
        recognised = true;
        Result<Imported> r;
        r.errors.push_back({"text", "more than " + std::to_string(kMaxWords) + " words (the size limit for a command line; real ones "
                                                                               "have a few hundred): refused"});
        return r;
    }
    for (std::size_t start = 0; start < ws.size();) {
        std::size_t end = start;
        while (end < ws.size() && !ws[end].op) ++end;
        std::size_t args = 0;
        const Engine eng = engine_of(ws, start, end, args);
        if (eng != Engine::none) {
            recognised = true;
            if (open_quote > 0) {
                Result<Imported> r;
                r.errors.push_back({"line " + std::to_string(open_quote),
                                    "unbalanced quote at line " + std::to_string(open_quote) +
                                        ": it is never closed, so a shell refuses the script (and every flag after it would be one word)"});
                return r;
            }
            std::vector<Word> positional;
            const auto flags = flags_of(ws, args, end, positional);
            const char* name = eng == Engine::vllm ? "vllm" : eng == Engine::sglang ? "sglang"
                                                                                    : "llama.cpp";
            Importer im(name, catalog);
            Entry model{.key = "MODEL", .value = positional.empty() ? "" : positional.front().text, .kind = Entry::Kind::scalar, .items = {}, .line = positional.empty() ? 0 : positional.front().line};
            if (eng == Engine::vllm) import_vllm(im, flags, positional.empty() ? nullptr : &model);
            else if (eng == Engine::sglang) import_sglang(im, flags);
            else import_llamacpp(im, flags);
            for (std::size_t i = eng == Engine::vllm ? 1 : 0; i < positional.size(); ++i)
                im.ignore({.key = positional[i].text, .value = "", .kind = Entry::Kind::scalar, .items = {}, .line = positional[i].line},
                          "a word that is not a flag");
            return im.finish();
        }
        // Skip the separator, and the target of a redirection ("> logs/x.log").
        start = end + 1;
        while (start < ws.size() && ws[start - 1].op && (ws[start - 1].text == ">" || ws[start - 1].text == "<") && !ws[start].op) ++start;
    }
    recognised = false;
    return {};
}

}  // namespace vramcalc::imports
