// llama-server / llama-cli flags (llama.cpp common/arg.cpp) onto the llama.cpp framework's keys. The
// weights' format comes from the GGUF file's quantisation tag (Q4_K_M, Q8_0, ...) in the file or repo name.
#include <array>
#include <limits>

#include "serving.hpp"

namespace vramcalc::imports {
namespace {

// The GGUF weight format a file or repo name carries ("...-Q4_K_M.gguf", "...-Q8_0-GGUF", "repo:Q8_0").
std::string gguf_format(const std::string& name) {
    const std::string n = lower(name);
    static const std::array<std::pair<const char*, const char*>, 10> kTags = {{{"q4_k_m", "gguf-q4_k_m"}, {"q5_k_m", "gguf-q5_k_m"}, {"q3_k_m", "gguf-q3_k_m"}, {"q6_k", "gguf-q6_k"}, {"q8_0", "gguf-q8_0"}, {"q5_0", "gguf-q5_0"}, {"q4_0", "gguf-q4_0"}, {"q2_k", "gguf-q2_k"}, {"iq4_xs", "gguf-iq4_xs"}, {"f16", "gguf-f16"}}};
    for (const auto& [tag, format] : kTags)
        if (n.find(tag) != std::string::npos) return format;
    return "";
}

void model_file(Importer& im, const Entry& e) {
    im.model(e, e.value);
    const std::string f = gguf_format(e.value);
    if (!f.empty()) im.set("weights", f, e, "the GGUF quantisation tag in the name");
    else im.note("the GGUF file's quantisation is not in its name: set weights (gguf-q4_k_m, gguf-q8_0, ...)");
}

void context(Importer& im, const Entry& e) {
    const auto v = token_count(im, e);
    if (!v) return;
    if (*v > std::numeric_limits<int>::max() || *v < std::numeric_limits<int>::min())
        return im.refuse(e, "llama.cpp refuses it (std::stoi: out of the range of int)");
    if (*v == 0) return im.ignore(e, "0 = the model's training context: the bill's n_ctx default applies, set n_ctx to it");
    im.set("n_ctx", *v, e);
}

// llama.cpp reads these counts with std::stoi (common/arg.cpp): a value outside int refuses the command.
std::optional<std::int64_t> int_arg(Importer& im, const Entry& e) {
    const auto v = im.integer(e);
    if (v && (*v > std::numeric_limits<int>::max() || *v < std::numeric_limits<int>::min())) {
        im.refuse(e, "llama.cpp refuses it (std::stoi: out of the range of int)");
        return std::nullopt;
    }
    return v;
}

// -ngl: 'auto' is -1 (llama.cpp fits the layers to free memory; the bill puts every layer on the GPU), 'all' -2;
// llama.h: "a negative value means all layers" (llama_model::n_gpu_layers() reads any negative count so).
void gpu_layers(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "all" || v == "auto") return im.set("n_gpu_layers", -1, e, "every layer");
    const auto n = int_arg(im, e);
    if (!n) return;
    if (*n < -2) im.warn(e, "a negative layer count other than -1 (auto) or -2 (all): llama.cpp's loader reads it as every layer");
    if (*n < 0) return im.set("n_gpu_layers", -1, e, "negative: every layer");
    im.set("n_gpu_layers", *n >= 100000 ? -1 : *n, e, "more than the model's layers = every layer");
}

void cache_type_v(Importer& im, const Entry& e) {
    im.ignore(e, "the bill gives K and V one type (the -ctk value; V is usually the same)");
}

void flash_attention(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (!e.has_value || v == "on" || v == "1" || v == "true") return im.set("attention", "flash", e, "no f32 KQ scores in the compute buffer");
    if (v == "off" || v == "0" || v == "false") return im.set("attention", "sdpa", e, "KQ scores in the compute buffer");
    im.ignore(e, "auto: llama.cpp decides at load time; the bill assumes it off (set attention flash if it turns on)");
}

const Rule kLlamaCpp[] = {
    {"-m", model_file},
    {"--model", model_file},
    {"-hf", model_file},
    {"-hfr", model_file},
    {"--hf-repo", model_file},
    {"--hf-file", model_file},
    {"-hff", model_file},
    {"-c", context},
    {"--ctx-size", context},
    {"-ngl", gpu_layers},
    {"--n-gpu-layers", gpu_layers},
    {"--gpu-layers", gpu_layers},
    {"-ub", [](Importer& im, const Entry& e) { if (auto v = int_arg(im, e)) im.set("n_ubatch", *v, e); }},
    {"--ubatch-size", [](Importer& im, const Entry& e) { if (auto v = int_arg(im, e)) im.set("n_ubatch", *v, e); }},
    {"-ctk", read_kv_dtype},
    {"--cache-type-k", read_kv_dtype},
    {"-ctv", cache_type_v},
    {"--cache-type-v", cache_type_v},
    {"-fa", flash_attention},
    {"--flash-attn", flash_attention},
    {"-b", nullptr, "the logical batch: the compute buffer is sized by the physical batch (-ub)"},
    {"--batch-size", nullptr, "the logical batch: the compute buffer is sized by the physical batch (-ub)"},
    {"-np", nullptr, "parallel slots share the n_ctx cells: the KV cache stays n_ctx"},
    {"--parallel", nullptr, "parallel slots share the n_ctx cells: the KV cache stays n_ctx"},
    {"-sm", nullptr, kNotModelled},
    {"--split-mode", nullptr, kNotModelled},
    {"-ts", nullptr, kNotModelled},
    {"--tensor-split", nullptr, kNotModelled},
    {"--mmproj", nullptr, kNotModelled},
    {"-ot", nullptr, kNotModelled},
    {"--override-tensor", nullptr, kNotModelled},
    {"--no-kv-offload", nullptr, kNotModelled},
    {"-nkvo", nullptr, kNotModelled},
    {"--no-mmap", nullptr, "host memory only"},
    {"--mlock", nullptr, "host memory only"},
    {"-t", nullptr, kNoMemory},
    {"--threads", nullptr, kNoMemory},
    {"-n", nullptr, kNoMemory},
    {"--n-predict", nullptr, kNoMemory},
    {"--temp", nullptr, kNoMemory},
    {"--top-k", nullptr, kNoMemory},
    {"--top-p", nullptr, kNoMemory},
    {"--min-p", nullptr, kNoMemory},
    {"--jinja", nullptr, kNoMemory},
    {"--chat-template", nullptr, kNoMemory},
    {"--reasoning-format", nullptr, kNoMemory},
    {"--cache-reuse", nullptr, "reuses cached KV between requests: the cache's size does not change"},
    {"-dt", nullptr, kNoMemory},
    {"--defrag-thold", nullptr, kNoMemory},
    {"--no-context-shift", nullptr, kNoMemory},
    {"--alias", nullptr, kNoMemory},
    {"-a", nullptr, kNoMemory},
    {"--metrics", nullptr, kNoMemory},
    {"--seed", nullptr, kNoMemory},
};

}  // namespace

void import_llamacpp(Importer& im, std::span<const Entry> flags) {
    im.set_default("workload", "infer", "llama.cpp serves");
    im.set_default("framework", "llama.cpp", "the engine");
    im.apply(flags, {std::span<const Rule>(kLlamaCpp), server_common_rules()});
}

}  // namespace vramcalc::imports
