// Reading a config.json: the dimensions every family shares, then the family's module layout
// (families.cpp). Limits on sizes keep every product below 2^63 for the byte arithmetic downstream;
// they are far above any real model (largest public vocab ~256k, hidden ~25k, layers ~130).
#include "vramcalc/hf_config.hpp"

#include <algorithm>

#include "model/families.hpp"
#include "model/quant_config.hpp"
#include "io/json_reader.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc {

using detail::FieldReader;
using detail::json;
using detail::kMaxWidth;

namespace {
constexpr i64 kMaxVocab = i64{1} << 24;  // 16.7M tokens
constexpr i64 kMaxLayers = 10000;
constexpr i64 kMaxHeads = i64{1} << 16;
constexpr i64 kMaxExperts = i64{1} << 16;

// The object holding the language model's dimensions: the config itself, or for a multimodal wrapper
// (families.cpp says which) its text_config. nullptr (an error recorded) when a wrapper has none.
const json* language_config(const json& config, const std::string& type, const std::string& layout,
                            FieldReader& r) {
    if (!detail::nests_text_config(layout)) return &config;
    const auto it = config.find("text_config");
    if (it != config.end() && it->is_object()) return &*it;
    // Qwen3.5's text-only exports keep the text model's keys at the top level (families.cpp tower_optional).
    if ((layout == "qwen3_5" || layout == "qwen3_5_moe") && (it == config.end() || it->is_null())) return &config;
    r.error("text_config", "missing or not an object: model_type \"" + type +
                               "\" keeps its language model's dimensions there");
    return nullptr;
}
// An unknown model_type holding a text_config object with its own model_type, and no tower beside it.
const json* text_only_wrapper(const json& config, const std::string& type) {
    if (detail::is_known_layout(type)) return nullptr;
    const auto it = config.find("text_config");
    if (it == config.end() || !it->is_object() || !it->contains("model_type")) return nullptr;
    for (const char* tower : {"vision_config", "audio_config"}) {
        const auto t = config.find(tower);
        if (t != config.end() && !t->is_null() && !t->empty()) return nullptr;
    }
    const auto inner = it->find("model_type");
    if (!inner->is_string() || inner->get<std::string>() == type) return nullptr;
    return &*it;
}
}  // namespace

const std::vector<std::string>& supported_model_types() {
    static const std::vector<std::string> types = {
        "llama", "mistral", "mixtral", "qwen", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
        "gemma", "gemma2", "phi", "phi3", "gpt_neox", "stablelm", "falcon", "bloom", "gpt2",
        "opt", "bert", "t5", "mt5", "deepseek_v2", "deepseek_v3", "baichuan", "qwen3_vl_moe", "llama4", "nemotron_h", "mistral3",
        // families_2025.cpp (docs/architectures.md): hybrids with gated DeltaNet, and 2025's MoE decoders.
        "qwen3_next", "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text", "gpt_oss", "glm4_moe",
        "minimax_m2", "deepseek_v32", "kimi_k2", "gemma3_text", "ernie4_5_moe", "lfm2", "jamba", "granitemoehybrid", "falcon_h1", "deepseek_v4", "kimi_k25",
        "gemma4", "gemma4_text"};
    return types;
}

Result<ModelSpec> model_from_config(const json& config, const std::string& name, const std::string& prefix) {
    Result<ModelSpec> out;
    if (!config.is_object()) {
        out.errors.push_back({prefix, "expected a JSON object (the contents of config.json), got " +
                                          detail::describe(config)});
        return out;
    }
    FieldReader r(config, prefix, out.errors);
    ModelSpec m;
    m.name = name;
    m.model_type = r.string_or("model_type", "");
    if (m.model_type.empty()) {
        r.error("model_type", "missing required key (a Hugging Face model type such as \"llama\")");
        return out;
    }
    // Old Falcon checkpoints name their type after the data set.
    if (m.model_type == "RefinedWeb" || m.model_type == "RefinedWebModel") m.model_type = "falcon";

    // An unknown wrapper whose only content is a language model under text_config (no vision or audio tower)
    // is read as that language model, by its own model_type.
    if (const json* inner = text_only_wrapper(config, m.model_type)) {
        auto nested = model_from_config(*inner, name, prefix + ".text_config");
        nested.warnings.insert(nested.warnings.begin(), "model_type \"" + m.model_type +
                                                            "\" has no description of its own: read as the language model under its text_config");
        return nested;
    }
    // An unknown type that names experts, MLA, hybrid layers, windows or nested towers is read like its
    // known relative or refused here, before its dimensions are read (relatives.cpp).
    const auto layout = detail::relative_layout(config, m.model_type, r);
    if (!layout) return out;

    const json* text = language_config(config, m.model_type, *layout, r);
    if (!text) return out;
    FieldReader tr(*text, text == &config ? prefix : prefix + ".text_config", out.errors);
    detail::Dims d;
    d.vocab = tr.integer({"vocab_size", "padded_vocab_size"}, 1, kMaxVocab).value_or(0);
    const bool t5_like = m.model_type == "t5" || m.model_type == "mt5";
    d.hidden = tr.integer({"hidden_size", "n_embd", "n_embed", "d_model"}, 1, kMaxWidth).value_or(0);
    d.layers = tr.integer({"num_hidden_layers", "n_layer", "num_layers"}, 1, kMaxLayers).value_or(0);
    d.heads = tr.integer({"num_attention_heads", "n_head", "num_heads"}, 1, kMaxHeads).value_or(0);
    if (!out.errors.empty()) return out;

    d.kv_heads = tr.integer_or({"num_key_value_heads", "num_kv_heads", "n_head_kv"}, d.heads, 1, kMaxHeads);
    const bool explicit_head_dim = tr.has("head_dim") || tr.has("kv_channels") || (t5_like && tr.has("d_kv"));
    d.head_dim = tr.integer_or({"head_dim", "kv_channels", "d_kv"}, 0, 1, kMaxWidth);
    if (!explicit_head_dim) {
        if (d.hidden % d.heads != 0) {
            tr.error("num_attention_heads", std::to_string(d.heads) + " does not divide hidden_size " +
                                                std::to_string(d.hidden) + " (give head_dim explicitly)");
            return out;
        }
        d.head_dim = d.hidden / d.heads;
    }
    if (d.heads % d.kv_heads != 0) {
        tr.error("num_key_value_heads", std::to_string(d.kv_heads) + " does not divide num_attention_heads " +
                                            std::to_string(d.heads));
        return out;
    }
    d.intermediate = tr.integer_or({"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", "d_ff"},
                                   0, 1, kMaxWidth);
    d.max_positions = tr.integer_or({"max_position_embeddings", "n_positions", "seq_length"}, 0, 0,
                                    i64{1} << 24);
    d.limits = {kMaxWidth, kMaxLayers, kMaxExperts};
    if (!out.errors.empty()) return out;

    if (!detail::build_family(m, *layout, d, tr, r, out.warnings)) {
        if (out.errors.empty()) out.errors.push_back({prefix, "could not build model"});
        return out;
    }
    if (!out.errors.empty()) return out;
    detail::read_quantization_config(m, config, out.warnings);  // a pre-quantised checkpoint's format and exclusions
    for (const char* k : {"hidden_act", "activation_function"})
        if (text->contains(k) && (*text)[k].is_string()) {
            const std::string act = (*text)[k].get<std::string>();
            m.traits.gelu_tanh_eager = m.traits.gelu_tanh_eager || act == "gelu_new";
            m.traits.relu_mlp = m.traits.relu_mlp || act == "relu";
        }
    const ParamBreakdown p = count_parameters(m);
    if (p.overflow) {
        out.errors.push_back({prefix, "the parameter count overflows 64 bits: the sizes are absurd"});
        return out;
    }
    out.value = std::move(m);
    return out;
}

Result<ModelSpec> model_from_config_text(std::string_view text, const std::string& name) {
    std::string why;
    const auto j = parse_json_text(text, why);  // depth-limited: deep documents overflowed the stack
    if (!j) {
        Result<ModelSpec> out;
        out.errors.push_back({"config", why + " in " + name});
        return out;
    }
    return model_from_config(*j, name);
}

}  // namespace vramcalc
