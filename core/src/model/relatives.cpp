// "Generalise, never miscount": a config whose model_type has no description of its own is read like its
// known relative when its keys say unambiguously which one, and refused otherwise when it names a structure
// the Llama-style reading would drop (experts, MLA ranks, Mamba / linear-attention layers, sliding-window
// layer types, a nested text_config or a vision tower). Counting such a model as a dense Llama miscounts it
// (DeepSeek-V3's 671 B came out as 39 B).
#include "model/families.hpp"

#include "vramcalc/hf_config.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace vramcalc::detail {
namespace {

// A key with a value that means "this structure is present": not null, not false, not 0, not an empty list
// or object. (Dense configs often carry "num_experts": 0 or "sliding_window": null.)
bool names_structure(const json& config, std::string_view key) {
    const auto it = config.find(std::string(key));
    if (it == config.end() || it->is_null()) return false;
    if (it->is_boolean()) return it->get<bool>();
    if (it->is_number()) return it->get<double>() != 0.0;
    if (it->is_array() || it->is_object() || it->is_string()) return !it->empty();
    return true;
}

// The entries of a layer_types / layers_block_type list that are not plain full attention.
std::string unusual_layer_kind(const json& list) {
    if (!list.is_array()) return "";
    for (const auto& e : list) {
        if (!e.is_string()) return describe(e);
        const std::string s = e.get<std::string>();
        if (s != "full_attention" && s != "attention" && s != "global") return s;
    }
    return "";
}

// layer_types naming only linear_attention and full_attention (or absent, with full_attention_interval).
bool deltanet_layer_kinds(const json& config) {
    const auto it = config.find("layer_types");
    if (it == config.end() || it->is_null()) return true;
    if (!it->is_array()) return false;
    for (const auto& e : *it)
        if (!e.is_string() || (e != "linear_attention" && e != "full_attention")) return false;
    return true;
}

std::string refusal(const std::string& type, std::string_view what) {
    return "model_type \"" + type + "\" has no description in vramcalc and this key names " + std::string(what) +
           ", which a Llama-style reading would miscount; use a supported model_type (" +
           "see the list in docs/methodology.md) or a known relative's config";
}

}  // namespace

bool is_known_layout(const std::string& t) {
    const auto& known = supported_model_types();
    return std::find(known.begin(), known.end(), t) != known.end();
}

std::optional<std::string> relative_layout(const json& config, const std::string& type, FieldReader& r) {
    if (is_known_layout(type)) return type;
    // MLA (DeepseekV2Attention): q_lora_rank / kv_lora_rank. Every such config we know is DeepSeek-V2/V3-
    // shaped (DeepSeek-V2/V3/R1, Kimi-K2's text model), whose description reads experts from
    // n_routed_experts; experts under any other key would be dropped, so those are refused.
    const bool mla = names_structure(config, "kv_lora_rank") || names_structure(config, "q_lora_rank");
    static constexpr std::array<std::string_view, 5> other_expert_keys = {
        "num_experts", "num_local_experts", "moe_num_experts", "n_experts", "num_experts_per_layer"};
    static constexpr std::array<std::string_view, 7> hybrid_keys = {
        "hybrid_override_pattern", "layers_block_type", "mamba_d_state", "ssm_state_size", "mamba_num_heads",
        "linear_num_value_heads", "attn_layer_period"};
    static constexpr std::array<std::string_view, 3> nested_keys = {"text_config", "vision_config",
                                                                    "audio_config"};
    for (auto key : nested_keys)
        if (names_structure(config, key)) {
            r.error(key, refusal(type, key == "text_config" ? "a language model nested under text_config (and "
                                                              "usually a vision tower beside it)"
                                                            : "an encoder tower whose parameters vLLM loads too"));
            return std::nullopt;
        }
    // Gated DeltaNet (Qwen3-Next's linear_* keys) beside full attention: read as qwen3_next, whose
    // description takes every layer's kind from layer_types or full_attention_interval.
    if (names_structure(config, "linear_num_value_heads") && names_structure(config, "linear_key_head_dim") &&
        deltanet_layer_kinds(config) && !names_structure(config, "hybrid_override_pattern") &&
        !names_structure(config, "mamba_num_heads"))
        return std::string("qwen3_next");
    // Nemotron-H's per-block pattern with Mamba-2 sizes: read as nemotron_h (families_hybrid.cpp), which
    // takes its every block kind from the pattern itself.
    if (names_structure(config, "hybrid_override_pattern") && names_structure(config, "mamba_num_heads") &&
        !names_structure(config, "layers_block_type") && !names_structure(config, "layer_types"))
        return std::string("nemotron_h");
    for (auto key : hybrid_keys)
        if (names_structure(config, key)) {
            r.error(key, refusal(type, "a hybrid Mamba / linear-attention layer pattern"));
            return std::nullopt;
        }
    if (const auto it = config.find("layer_types"); it != config.end()) {
        const std::string kind = unusual_layer_kind(*it);
        if (!kind.empty()) {
            r.error("layer_types", refusal(type, "layers of kind \"" + kind + "\" (sliding-window, linear or "
                                                                              "Mamba layers change the KV cache and the parameters)"));
            return std::nullopt;
        }
    }
    for (auto key : other_expert_keys)
        if (names_structure(config, key)) {
            r.error(key, refusal(type, "routed experts"));
            return std::nullopt;
        }
    if (mla) return std::string("deepseek_v3");
    if (names_structure(config, "n_routed_experts")) {
        r.error("n_routed_experts", refusal(type,
                                            "routed experts without MLA ranks (a DeepSeek-style MoE with "
                                            "some other attention)"));
        return std::nullopt;
    }
    // A sliding window the config switches on (Qwen2-style configs carry one with use_sliding_window false).
    const auto uses = config.find("use_sliding_window");
    const bool switched_off = uses != config.end() && uses->is_boolean() && !uses->get<bool>();
    if (names_structure(config, "sliding_window") && !switched_off) {
        r.error("sliding_window", refusal(type,
                                          "a sliding attention window (which layers slide is "
                                          "family-specific)"));
        return std::nullopt;
    }
    return type;  // plain dense decoder: read Llama-style, with a warning (families.cpp)
}

}  // namespace vramcalc::detail
