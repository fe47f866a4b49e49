// config.json parsing: bad input gives an error naming the field and what is allowed; nothing throws.
#include <catch2/catch.hpp>

#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_hf_config {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {
const char* kLlama = R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
  "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8})";
}

TEST_CASE("hf_config: errors name the field and the rule") {
    struct Case {
        const char* json;
        const char* field;
        const char* words;
    };
    const Case cases[] = {
        {"not json", "config", "not valid JSON"},
        {"[1,2]", "config", "expected a JSON object"},
        {R"({"vocab_size": 1})", "config.model_type", "missing"},
        {R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32})",
         "config.vocab_size", "missing"},
        {R"({"model_type": "llama", "vocab_size": 0, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 8})",
         "config.vocab_size", "from 1"},
        {R"({"model_type": "llama", "vocab_size": -5, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 8})",
         "config.vocab_size", "got -5"},
        {R"({"model_type": "llama", "vocab_size": "32000", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 8})",
         "config.vocab_size", "expected an integer"},
        {R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 30, "intermediate_size": 8})",
         "config.num_attention_heads", "does not divide hidden_size"},
        {R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "num_key_value_heads": 5, "intermediate_size": 8})",
         "config.num_key_value_heads", "does not divide"},
        {R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32})",
         "config.intermediate_size", "missing"},
        {R"({"model_type": "llama", "vocab_size": 1e300, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 8})",
         "config.vocab_size", "expected an integer"},
        {R"({"model_type": "llama", "vocab_size": 18446744073709551615, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 8})",
         "config.vocab_size", "expected an integer"},
        {R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096.5, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 8})",
         "config.hidden_size", "expected an integer"},
        {R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 8, "tie_word_embeddings": "yes"})",
         "config.tie_word_embeddings", "true or false"},
        {R"({"model_type": "qwen2_moe", "vocab_size": 32000, "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 16, "intermediate_size": 8, "num_experts": 4, "mlp_only_layers": [7]})",
         "config.mlp_only_layers", "layer index"},
    };
    for (const auto& c : cases) {
        INFO(c.json);
        auto r = model_from_config_text(c.json);
        REQUIRE_FALSE(r.ok());
        REQUIRE_FALSE(r.errors.empty());
        const std::string text = r.error_text();
        CHECK(text.find(c.field) != std::string::npos);
        CHECK(text.find(c.words) != std::string::npos);
    }
}

TEST_CASE("hf_config: integral floats, null values and aliases are accepted") {
    auto r = model_from_config_text(R"({"model_type": "gpt2", "vocab_size": 50257.0, "n_embd": 768, "n_layer": 12,
        "n_head": 12, "n_inner": null, "n_positions": 1024})");
    REQUIRE(r.ok());
    CHECK(count_parameters(*r).total == 124439808);
}

TEST_CASE("hf_config: dimensions for activations and KV cache") {
    auto r = model_from_config_text(kLlama);
    REQUIRE(r.ok());
    CHECK(r->head_dim == 128);
    CHECK(r->kv_heads == 8);
    CHECK(r->mlp == MlpKind::gated);
    CHECK(r->norm == NormKind::rms);
    CHECK_FALSE(r->tied_embeddings);
}

TEST_CASE("hf_config: absurd sizes give an error, never a wrapped count") {
    auto r = model_from_config_text(R"({"model_type": "mixtral", "vocab_size": 16000000, "hidden_size": 1000000,
        "intermediate_size": 1000000, "num_hidden_layers": 10000, "num_attention_heads": 8, "num_local_experts": 60000})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error_text().find("overflow") != std::string::npos);
}

TEST_CASE("hf_config: every supported model_type builds") {
    for (const auto& t : supported_model_types()) {
        INFO(t);
        std::string cfg = R"({"model_type": ")" + t + R"(", "vocab_size": 1000, "hidden_size": 256, "num_hidden_layers": 2,
            "num_attention_heads": 4, "intermediate_size": 512, "max_position_embeddings": 128, "n_positions": 128,
            "d_ff": 512, "num_experts": 4, "n_routed_experts": 4, "moe_intermediate_size": 128, "kv_lora_rank": 32,
            "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "num_experts_per_tok": 2})";
        if (t == "qwen3_vl_moe")  // a multimodal wrapper: the language model under text_config, a tower beside
            cfg = R"({"model_type": ")" + t + R"(", "text_config": )" + cfg + R"(, "vision_config": {"depth": 2,
                "hidden_size": 64, "intermediate_size": 128, "out_hidden_size": 256, "num_heads": 4}})";
        if (t == "llama4")
            cfg = R"({"model_type": ")" + t + R"(", "text_config": )" + cfg.substr(0, cfg.size() - 1) +
                  R"(, "num_local_experts": 4, "interleave_moe_layer_step": 2, "intermediate_size_mlp": 1024}, "vision_config":
                {"num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 256, "image_size": 56, "patch_size": 14}})";
        if (t == "mistral3")  // Mistral3ForConditionalGeneration: the Mistral decoder under text_config, a Pixtral tower
            cfg = R"({"model_type": ")" + t + R"(", "text_config": )" + cfg + R"(, "vision_config": {"num_hidden_layers": 2,
                "hidden_size": 64, "intermediate_size": 128, "patch_size": 14}})";
        if (t == "nemotron_h")  // one mixer per block: Mamba-2, attention, MoE
            cfg = cfg.substr(0, cfg.size() - 1) + R"(, "hybrid_override_pattern": "M*", "mamba_num_heads": 8,
                "mamba_head_dim": 16, "ssm_state_size": 16, "n_groups": 2})";
        if (t == "jamba")  // attention every attn_layer_period-th layer from the offset, Mamba-1 elsewhere
            cfg = cfg.substr(0, cfg.size() - 1) + R"(, "attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 2,
                "expert_layer_offset": 1, "mamba_d_state": 16})";
        if (t == "granitemoehybrid")  // Mamba-2 or attention per layer, shared MLP and experts in each
            cfg = cfg.substr(0, cfg.size() - 1) + R"(, "layer_types": ["mamba", "attention"], "num_local_experts": 4,
                "shared_intermediate_size": 256, "mamba_n_heads": 8, "mamba_d_head": 64, "mamba_d_state": 16})";
        if (t == "falcon_h1")  // attention and Mamba-2 side by side; heads x head size = mamba_d_ssm
            cfg = cfg.substr(0, cfg.size() - 1) + R"(, "mamba_d_ssm": 512, "mamba_n_heads": 8, "mamba_d_state": 16})";
        if (t == "kimi_k25")  // Kimi-K2's text model under text_config, a MoonViT tower beside
            cfg = R"({"model_type": ")" + t + R"(", "text_config": )" + cfg + R"(, "vision_config": {"vt_num_hidden_layers": 2,
                "vt_hidden_size": 64, "vt_intermediate_size": 128, "text_hidden_size": 256, "merge_kernel_size": [2, 2]}})";
        if (t == "deepseek_v4")  // one KV head, window-only / ratio-4 (with the indexer) / ratio-128 layers
            cfg = cfg.substr(0, cfg.size() - 1) + R"(, "head_dim": 64, "q_lora_rank": 32, "o_lora_rank": 32, "o_groups": 2,
                "compress_ratios": [4, 128, 0], "num_hash_layers": 1, "index_head_dim": 16, "index_n_heads": 2})";
        if (t == "lfm2")  // short-conv and attention layers, named per layer
            cfg = cfg.substr(0, cfg.size() - 1) + R"(, "layer_types": ["conv", "full_attention"]})";
        if (t == "gemma4_text" || t == "gemma4")  // a sliding and a global layer; the wrapper without a tower
            cfg = cfg.substr(0, cfg.size() - 1) + R"(, "layer_types": ["sliding_attention", "full_attention"]})";
        if (t == "gemma4") cfg = R"({"model_type": "gemma4", "text_config": )" + cfg + "}";
        auto r = model_from_config_text(cfg);
        INFO(r.error_text());
        REQUIRE(r.ok());
        CHECK(r.warnings.empty());
        CHECK(count_parameters(*r).total > 0);
    }
}

}  // namespace unit_hf_config
}  // namespace
