// Which preset a config names: configs name models by hub id ("meta-llama/Meta-Llama-3-8B-Instruct"),
// by a local path ("/home/ckpt/Qwen3-8B") or by a GGUF file ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf").
// A name matches a preset when, lower-cased and without its folder, its file extension, its quantisation
// tag and the instruct/chat suffix, it equals the preset id or the preset's hub id treated the same way.
// A fine-tune's own name ("llama-2-7b-domain-tuned") matches nothing: the report says so.
#include <array>

#include "source.hpp"

namespace vramcalc::imports {
namespace {

bool ends_with(const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string normalise(std::string_view name) {
    std::string s = lower(name);
    while (!s.empty() && s.back() == '/') s.pop_back();
    if (const auto slash = s.rfind('/'); slash != std::string::npos) s = s.substr(slash + 1);
    if (const auto colon = s.find(':'); colon != std::string::npos) s = s.substr(0, colon);  // "repo:Q8_0" (llama.cpp -hf)
    // Suffixes, removed repeatedly in any order: file types, GGUF quantisation tags, chat variants.
    static const std::array<std::string_view, 26> kTails = {
        ".gguf", "-gguf", "-instruct", "-chat", "-hf", "-it", "-base", "-f16", "-bf16", "-f32", "-q8_0", "-q6_k",
        "-q5_k_m", "-q5_k_s", "-q5_0", "-q4_k_m", "-q4_k_s", "-q4_0", "-q3_k_m", "-q2_k", "-iq4_xs", "-awq", "-gptq",
        "-fp8", "-int4", "-int8"};
    for (bool cut = true; cut;) {
        cut = false;
        for (auto t : kTails)
            if (ends_with(s, t)) {
                s.resize(s.size() - t.size());
                cut = true;
            }
    }
    if (s.rfind("meta-", 0) == 0) s = s.substr(5);  // "Meta-Llama-3-8B" is Meta's name for llama-3-8b
    return s;
}

}  // namespace

std::string match_model_preset(std::string_view name, const Catalog& catalog) {
    if (name.empty()) return "";
    if (catalog.find_model(name)) return std::string(name);
    for (const auto& m : catalog.models())
        if (!m.hub_id.empty() && lower(m.hub_id) == lower(name)) return m.id;
    const std::string n = normalise(name);
    if (n.empty()) return "";
    for (const auto& m : catalog.models())
        if (normalise(m.id) == n || (!m.hub_id.empty() && normalise(m.hub_id) == n)) return m.id;
    return "";
}

}  // namespace vramcalc::imports
