// "Generalise, never miscount": renamed copies of real configs (the presets' Hub config.json with only
// model_type changed) count exactly like their known relative, or are refused with an error naming the key.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_relatives {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {

nlohmann::json renamed(const char* preset_id, const char* new_type) {
    const ModelPreset* p = test::catalog().find_model(preset_id);
    REQUIRE(p);
    auto j = nlohmann::json::parse(p->config_json);
    j["model_type"] = new_type;
    j.erase("architectures");
    return j;
}

}  // namespace

TEST_CASE("relatives: a renamed DeepSeek-V3 (MLA ranks) counts exactly as deepseek_v3") {
    const auto original = count_parameters(test::preset("deepseek-v3"));
    for (const char* preset_id : {"deepseek-v3", "deepseek-v2-lite"}) {
        INFO(preset_id);
        auto r = model_from_config(renamed(preset_id, "acme_moe"), "acme");
        INFO(r.error_text());
        REQUIRE(r.ok());
        const auto p = count_parameters(*r);
        const auto want = count_parameters(test::preset(preset_id));
        CHECK(p.total == want.total);
        CHECK(p.active == want.active);
        CHECK(r->attention == AttentionKind::mla);
        REQUIRE(r.warnings.size() == 1);
        CHECK(r.warnings[0].find("deepseek_v3") != std::string::npos);
    }
    CHECK(original.total > 600'000'000'000);  // the 671 B model no longer comes out as 39 B
}

TEST_CASE("relatives: renamed configs whose structure has no unambiguous relative are refused naming the key") {
    struct Case {
        const char* preset;
        const char* key;
    };
    const Case cases[] = {
        {"qwen3-30b-a3b", "num_experts"},  // Qwen3-MoE: q/k norms or Qwen2-MoE shared expert?
        {"qwen1.5-moe-a2.7b", "num_experts"},
        {"mixtral-8x7b-v0.1", "num_local_experts"},  // Mixtral, Llama-4, GPT-OSS, PhiMoE all use it
        {"gemma-2-9b", "sliding_window"},            // which layers slide is family-specific
        {"mistral-7b-v0.1", "sliding_window"},
    };
    for (const auto& c : cases) {
        INFO(c.preset);
        auto r = model_from_config(renamed(c.preset, "acme"), "acme");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error_text().find(std::string("config.") + c.key) != std::string::npos);
        CHECK(r.error_text().find("acme") != std::string::npos);
    }
}

TEST_CASE("relatives: hybrid, nested and windowed layer keys of an unknown type are refused naming the key") {
    const auto base = renamed("llama-3.2-1b", "acme");
    struct Case {
        const char* key;
        nlohmann::json value;
    };
    const Case cases[] = {
        {"hybrid_override_pattern", "M-M-M*-"},                                           // Nemotron-H
        {"layers_block_type", nlohmann::json::array({"mamba", "attention"})},             // Nemotron-H (newer)
        {"layer_types", nlohmann::json::array({"linear_attention", "full_attention"})},   // Qwen3-Next / 3.5
        {"layer_types", nlohmann::json::array({"sliding_attention", "full_attention"})},  // Gemma-3 style
        {"text_config", {{"hidden_size", 2048}}},                                         // multimodal wrapper
        {"vision_config", {{"hidden_size", 1152}}},
        {"n_routed_experts", 64},  // experts, no MLA
        {"num_local_experts", 16},
        {"ssm_state_size", 128},
    };
    for (const auto& c : cases) {
        INFO(c.key << " = " << c.value.dump());
        auto j = base;
        j[c.key] = c.value;
        auto r = model_from_config(j, "acme");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error_text().find(std::string("config.") + c.key) != std::string::npos);
    }
}

TEST_CASE("relatives: keys that say 'absent' do not refuse a plain dense config") {
    auto j = renamed("llama-3.2-1b", "acme");
    j["num_experts"] = 0;
    j["sliding_window"] = nullptr;
    j["layer_types"] = nlohmann::json::array({"full_attention", "full_attention"});
    j["vision_config"] = nlohmann::json::object();
    auto r = model_from_config(j, "acme");
    INFO(r.error_text());
    REQUIRE(r.ok());
    CHECK(count_parameters(*r).total == count_parameters(test::preset("llama-3.2-1b")).total);
    CHECK_FALSE(r.warnings.empty());  // still told that the type has no description of its own
    // A Qwen2-style window that the config switches off is no window.
    auto q = renamed("qwen2.5-7b", "acme");
    q["sliding_window"] = 131072;  // as Qwen2.5-72B's config has it
    q["use_sliding_window"] = false;
    CHECK(model_from_config(q, "acme").ok());
}

}  // namespace unit_relatives
}  // namespace
