// Module layouts of the supported families, written from the Hugging Face transformers modeling
// files (class names in each comment). A parameter count is the sum over these tensors; tied input and
// output embeddings appear once. Checked against published exact counts in tests/data/param_counts*.json.
#include "model/families.hpp"

#include <set>

#include "model/inventory.hpp"

namespace vramcalc::detail {

void require_intermediate(ModelSpec& m, FieldReader& r) {
    if (m.intermediate <= 0) r.error("intermediate_size", "missing required key (the MLP width)");
}

bool nests_text_config(const std::string& layout) {
    return layout == "qwen3_vl_moe" || layout == "llama4" || layout == "mistral3" || layout == "qwen3_5" ||
           layout == "qwen3_5_moe" || layout == "kimi_k25" || layout == "gemma4";
}

// Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration: a text-only export may carry the
// text model's keys at the top level and no vision tower.
// Gemma4Config: "vision_config is None. Gemma4Model.vision_tower will not be initialized" (configuration_gemma4.py).
bool tower_optional(const std::string& layout) { return layout == "qwen3_5" || layout == "qwen3_5_moe" || layout == "gemma4"; }

namespace {
// A wrapper's language model is read with its text family's layout. Mistral3ForConditionalGeneration's
// text model (Ministral3Model / MistralModel) is the Mistral decoder: a Llama layout.
std::string text_layout(const std::string& layout) {
    if (layout == "qwen3_vl_moe") return "qwen3_moe";
    if (layout == "mistral3") return "mistral";
    // Qwen3.5's text models are Qwen3-Next's layout (transformers models/qwen3_5*/modular_qwen3_5*.py).
    if (layout == "qwen3_5" || layout == "qwen3_5_moe" || layout == "qwen3_5_text" || layout == "qwen3_5_moe_text")
        return "qwen3_next";
    // DeepSeek-V3.2 (the DSA indexer beside MLA) and Kimi-K2 are DeepSeek-V3's layout (deepseek()).
    // Kimi-K2.5's text_config is Kimi-K2's (model_type kimi_k2, DeepseekV3ForCausalLM's layout).
    if (layout == "deepseek_v32" || layout == "kimi_k2" || layout == "kimi_k25") return "deepseek_v3";
    if (layout == "gemma4") return "gemma4_text";
    return layout;
}

// The wrapper's vision tower (vision_config), read after the language model.
void vision_tower(const std::string& layout, FieldReader& root, Inventory& inv) {
    if (!nests_text_config(layout)) return;
    // Gemma 4 E2B / E4B carry an audio encoder (Gemma4AudioConfig) beside the vision tower.
    if (const auto a = root.object().find("audio_config"); a != root.object().end() && !a->is_null())
        root.error("audio_config", "an audio tower is not described yet (its parameters would be missing from the count)");
    const auto it = root.object().find("vision_config");
    if ((it == root.object().end() || it->is_null()) && tower_optional(layout)) return;
    if (it == root.object().end() || !it->is_object()) {
        root.error("vision_config", "missing or not an object: the vision tower's parameters are loaded too");
        return;
    }
    FieldReader v(*it, root.path("vision_config"), root.problems());
    if (layout == "llama4") llama4_vision(v, inv.m.hidden, inv);
    else if (layout == "mistral3") pixtral_vision(v, root, inv.m.hidden, inv);
    else if (layout == "kimi_k25") moonvit_vision(v, inv.m.hidden, inv);
    else if (layout == "gemma4") gemma4_vision(v, inv.m.hidden, inv);
    else qwen3_vl_vision(v, inv);
}
}  // namespace

bool build_family(ModelSpec& m, const std::string& layout, const Dims& d, FieldReader& r, FieldReader& root,
                  std::vector<std::string>& warnings) {
    const std::string t = text_layout(layout);
    if (layout != m.model_type)
        warnings.push_back("model_type \"" + m.model_type + "\" has no description of its own: read as its relative " +
                           layout + " (its keys name the same structure)");
    m.vocab = d.vocab;
    m.hidden = d.hidden;
    m.layers = d.layers;
    m.heads = d.heads;
    m.kv_heads = d.kv_heads;
    m.head_dim = d.head_dim;
    m.v_head_dim = d.head_dim;
    m.intermediate = d.intermediate;
    m.max_positions = d.max_positions;
    // llama.cpp's quantizer rules we model (llama_tensor_get_type) single out "llama", "qwen2" and "falcon",
    // which are these HF model types too; the other types we read meet none of those rules.
    m.traits.gguf_arch = t;

    // Defaults of each config class for tie_word_embeddings (PretrainedConfig's default is true;
    // these classes override it to false).
    static const std::set<std::string> untied_by_default = {
        "llama", "mistral", "mixtral", "qwen", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi", "phi3",
        "gpt_neox", "stablelm", "mt5", "deepseek_v2", "deepseek_v3", "baichuan", "qwen3_vl_moe", "llama4", "nemotron_h", "mistral3",
        // Their config classes' tie_word_embeddings defaults (false), transformers main.
        "qwen3_next", "qwen3_5_moe", "gpt_oss", "glm4_moe", "minimax_m2", "deepseek_v32", "kimi_k2",
        "jamba", "granitemoehybrid", "falcon_h1", "deepseek_v4", "kimi_k25"};
    // The checkpoint's dtype, which transformers 5 loads it in (dtype="auto"); a wrapper names it at its top
    // level or in its text_config. Anything but a known name is left unread: it changes no count.
    for (const json* o : {&root.object(), &r.object()})
        for (const char* key : {"dtype", "torch_dtype"}) {
            auto it = o->find(key);
            if (m.checkpoint_dtype_bytes || it == o->end() || !it->is_string()) continue;
            const std::string v = it->get<std::string>();
            if (v == "bfloat16" || v == "float16") m.checkpoint_dtype_bytes = 2;
            if (v == "float32") m.checkpoint_dtype_bytes = 4;
        }
    // A wrapper ties (or not) at its top level (Qwen3VLMoeConfig.tie_word_embeddings).
    m.tied_embeddings = root.boolean_or("tie_word_embeddings", !untied_by_default.count(layout));

    // Families with LayerNorm and plain (non-gated) MLPs.
    static const std::set<std::string> layer_norm = {"phi", "gpt_neox", "stablelm", "falcon", "bloom",
                                                     "gpt2", "opt", "bert"};
    static const std::set<std::string> plain_mlp = {"phi", "gpt_neox", "falcon", "bloom", "gpt2", "opt", "bert"};
    if (layer_norm.count(t)) m.norm = NormKind::layer;
    if (plain_mlp.count(t)) m.mlp = MlpKind::plain;
    m.sliding_window = r.integer_or({"sliding_window"}, 0, 0, i64{1} << 30);
    if (t == "gemma2" || t == "mistral" || t == "gpt_oss" || t == "gemma3_text" || t == "gemma4_text") {
        // Mistral v0.1 and Gemma-2 use a window; Qwen2 configs carry one but disable it by default.
    } else if (!r.boolean_or("use_sliding_window", false)) {
        m.sliding_window = 0;
    }
    // Dropout rates under each family's own key: hidden_dropout (Falcon), resid_pdrop / attn_pdrop (GPT-2),
    // dropout / attention_dropout (OPT, Llama-style), hidden_dropout_prob / attention_probs_dropout_prob
    // (BERT: transformers' BertConfig, 0.1 each in the published configs).
    const double hidden_prob = r.number_or("hidden_dropout_prob", 0.0, 0, 1);
    m.hidden_dropout = r.number_or("hidden_dropout", r.number_or("resid_pdrop", r.number_or("dropout", hidden_prob, 0, 1), 0, 1), 0, 1);
    m.attention_dropout = r.number_or("attention_dropout",
                                      r.number_or("attn_pdrop", r.number_or("attention_probs_dropout_prob", 0.0, 0, 1), 0, 1), 0, 1);

    Inventory inv{m};
    if (t == "deepseek_v2" || t == "deepseek_v3") deepseek(m, r, inv);
    else if (t == "qwen") qwen_v1(m, r, inv);
    else if (t == "phi") phi(m, r, inv);
    else if (t == "phi3") phi3(m, r, inv);
    else if (t == "gpt_neox") gpt_neox(m, r, inv);
    else if (t == "stablelm") stablelm(m, r, inv);
    else if (t == "falcon") falcon(m, r, inv);
    else if (t == "bloom") bloom(m, r, inv);
    else if (t == "gpt2") gpt2(m, r, inv);
    else if (t == "opt") opt(m, r, inv);
    else if (t == "bert") bert(m, r, inv);
    else if (t == "t5" || t == "mt5") t5(m, r, inv);
    else if (t == "nemotron_h") nemotron_h(m, r, inv);
    else if (t == "qwen3_next") {
        // Qwen3_5TextConfig (dense) has no experts: its class reads no num_experts.
        qwen3_next(m, r, inv, layout != "qwen3_5" && layout != "qwen3_5_text");
    } else if (t == "gpt_oss") gpt_oss(m, r, inv);
    else if (t == "glm4_moe") glm4_moe(m, r, inv);
    else if (t == "minimax_m2") minimax_m2(m, r, inv);
    else if (t == "ernie4_5_moe") ernie45_moe(m, r, inv);
    else if (t == "deepseek_v4") deepseek_v4(m, r, inv);
    else if (t == "lfm2") lfm2(m, r, inv);
    else if (t == "jamba") jamba(m, r, inv);
    else if (t == "granitemoehybrid") granitemoehybrid(m, r, inv);
    else if (t == "falcon_h1") falcon_h1(m, r, inv);
    else if (t == "gemma4_text") gemma4(m, r, inv);
    else {
        static const std::set<std::string> llama_family = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe",
                                                           "qwen3", "qwen3_moe", "gemma", "gemma2", "baichuan", "llama4",
                                                           "gemma3_text"};
        if (!llama_family.count(t) && !is_known_layout(t))
            warnings.push_back("model_type \"" + t +
                               "\" has no dedicated layout: counted as a Llama-style decoder (attention, gated "
                               "MLP, RMSNorm); the parameter count may be off");
        llama_like(m, t, r, inv);
    }
    vision_tower(layout, root, inv);
    return true;
}
}  // namespace vramcalc::detail
