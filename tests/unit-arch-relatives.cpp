// Unknown model_types read by their structure (relatives.cpp, hf_config.cpp): a renamed Qwen3-Next config is
// read by its gated-DeltaNet keys, an unknown wrapper holding only a text_config by that model's own type;
// what the keys do not explain stays refused, naming the key.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_arch_relatives {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {
nlohmann::json config(const char* file) {
    auto j = test::load_json(std::string("configs/") + file);
    REQUIRE(j.is_object());
    return j;
}
i64 total(const nlohmann::json& j) {
    auto r = model_from_config(j, "acme");
    INFO(r.error_text());
    REQUIRE(r.ok());
    return count_parameters(*r).total;
}
}  // namespace

TEST_CASE("arch-relatives: gated DeltaNet keys read an unknown type as qwen3_next") {
    auto j = config("qwen3-next-80b-a3b-thinking.json");
    const i64 want = total(j);
    j["model_type"] = "acme_next";
    j.erase("architectures");
    auto r = model_from_config(j, "acme");
    INFO(r.error_text());
    REQUIRE(r.ok());
    CHECK(count_parameters(*r).total == want);
    CHECK(attention_layers(*r) == 12);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("qwen3_next") != std::string::npos);
    // A layer kind the description does not know keeps the refusal, naming the key.
    j["layer_types"] = nlohmann::json::array();
    for (int i = 0; i < 48; ++i) j["layer_types"].push_back(i % 2 ? "full_attention" : "sliding_attention");
    auto bad = model_from_config(j, "acme");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error_text().find("config.linear_num_value_heads") != std::string::npos);
}

TEST_CASE("arch-relatives: an unknown wrapper with only a text_config is read as its language model") {
    const auto inner = config("gpt-oss-20b.json");
    nlohmann::json j = {{"model_type", "acme_wrapper"}, {"text_config", inner}, {"tie_word_embeddings", false}};
    auto r = model_from_config(j, "acme");
    INFO(r.error_text());
    REQUIRE(r.ok());
    CHECK(count_parameters(*r).total == total(inner));
    REQUIRE_FALSE(r.warnings.empty());
    CHECK(r.warnings[0].find("text_config") != std::string::npos);
    // With a tower beside it, the tower is not explained: refused, naming the nested key.
    j["vision_config"] = {{"hidden_size", 1152}};
    auto refused = model_from_config(j, "acme");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error_text().find("config.text_config") != std::string::npos);
    // Errors inside the nested model name their path.
    nlohmann::json broken = {{"model_type", "acme_wrapper"}, {"text_config", {{"model_type", "llama"}}}};
    auto e = model_from_config(broken, "acme");
    REQUIRE_FALSE(e.ok());
    CHECK(e.error_text().find("config.text_config.") != std::string::npos);
}

TEST_CASE("arch-relatives: Qwen3.5 wrappers read their text_config with Qwen3-Next's layout") {
    auto text = config("qwen3-next-80b-a3b-thinking.json");
    text["model_type"] = "qwen3_5_moe_text";
    nlohmann::json j = {{"model_type", "qwen3_5_moe"}, {"text_config", text}, {"tie_word_embeddings", false}};
    auto r = model_from_config(j, "qwen3.5");
    INFO(r.error_text());
    REQUIRE(r.ok());
    CHECK(r.warnings.empty());
    CHECK(count_parameters(*r).total == total(config("qwen3-next-80b-a3b-thinking.json")));
    // The dense Qwen3.5 class has no experts: the same keys give dense MLPs at intermediate_size.
    j["model_type"] = "qwen3_5";
    auto dense = model_from_config(j, "qwen3.5");
    REQUIRE(dense.ok());
    CHECK(dense->moe.experts == 0);
    CHECK(count_parameters(*dense).mlp == 48 * 3 * 2048LL * 5120);
}

}  // namespace unit_arch_relatives
}  // namespace
