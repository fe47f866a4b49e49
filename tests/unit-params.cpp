// Parameter counts: exact against every published count in tests/data (the numel sum of the HF class).
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_params {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {

void check_counts_file(const std::string& file) {
    const auto data = test::load_json(file);
    REQUIRE(data.is_array());
    REQUIRE(!data.empty());
    for (const auto& e : data) {
        const std::string id = e["id"].get<std::string>();
        INFO(file << ": " << id);
        auto spec = model_from_config(e["config"], id);
        REQUIRE(spec.ok());
        CHECK(count_parameters(*spec).total == e["parameters"].get<std::int64_t>());
    }
}

}  // namespace

TEST_CASE("params: every count in param_counts.json is exact") { check_counts_file("param_counts.json"); }

TEST_CASE("params: every count in param_counts_extra.json is exact") { check_counts_file("param_counts_extra.json"); }

TEST_CASE("params: every listed model_type has a preset and an exact or checked count") {
    // Preset id -> exact parameter count published for the HF class (source in the preset's "source" or
    // tests/data). These cover the model_types without an entry in the count files.
    struct Case {
        const char* id;
        std::int64_t params;
    };
    const Case cases[] = {
        {"gpt2", 124439808},                // GPT2LMHeadModel, commonly printed num_parameters()
        {"opt-125m", 125239296},            // param_counts.json
        {"bert-base-cased", 108310272},     // param_counts.json (BertModel with pooler)
        {"pythia-1b", 1011781632},          // Pythia paper / model card total
        {"bloom-560m", 559214592},          // bigscience/bloom-560m model card
        {"phi-2", 2779683840},              // microsoft/phi-2 safetensors total / 2 (fp16)
        {"falcon-7b", 6921720704},          // param_counts.json
        {"deepseek-v3", 671026419200},      // param_counts.json (MTP module excluded)
        {"qwen3-235b-a22b", 235093634560},  // Hub safetensors total (param_counts_extra.json)
        // 13,506,073,600 text + 403,305,472 Pixtral tower + 35,652,608 projector: the card's "13.5B + 0.4B"; the
        // tower + projector's 438,958,080 reproduce the published mmproj GGUF sizes to the byte (preset source).
        {"ministral-3-14b-instruct-2512", 13945031680},
        {"qwen3-vl-30b-a3b", 31070754032},  // text 30,532,122,624 + vision tower 538,631,408 (preset source)
    };
    for (const auto& c : cases) {
        INFO(c.id);
        const ModelPreset* p = test::catalog().find_model(c.id);
        REQUIRE(p != nullptr);
        CHECK(p->params.total == c.params);
    }
}

TEST_CASE("params: breakdown sums to the total and MoE active is top-k of the experts") {
    for (const auto& p : test::catalog().models()) {
        INFO(p.id);
        const auto& b = p.params;
        CHECK(b.embeddings + b.attention + b.mlp + b.experts + b.router + b.norms + b.lm_head + b.vision + b.mamba == b.total);
        CHECK(b.active <= b.total);
        if (p.spec.moe.experts == 0) CHECK(b.active == b.total);
    }
    const ModelPreset* mixtral = test::catalog().find_model("mixtral-8x7b-v0.1");
    REQUIRE(mixtral);
    // 46,702,792,704 total; experts hold 32 x 8 x 3 x 4096 x 14336 = 45,097,156,608; a token uses 2 of 8:
    // 46,702,792,704 - 6/8 x 45,097,156,608 = 12,879,925,248 (Mistral's "12.9B active").
    CHECK(mixtral->params.active == 12879925248);
}

TEST_CASE("params: tied embeddings are counted once") {
    const auto* llama1b = test::catalog().find_model("llama-3.2-1b");
    REQUIRE(llama1b);
    CHECK(llama1b->spec.tied_embeddings);
    CHECK(llama1b->params.lm_head == 0);
    const auto* llama8b = test::catalog().find_model("llama-3.1-8b");
    REQUIRE(llama8b);
    CHECK(llama8b->params.lm_head == 128256LL * 4096);
}

TEST_CASE("params: an unknown model_type is read as a generic decoder with a warning") {
    auto r = model_from_config_text(R"({"model_type": "my_new_llm", "vocab_size": 32000, "hidden_size": 4096,
        "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32, "tie_word_embeddings": false})");
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("my_new_llm") != std::string::npos);
    CHECK(count_parameters(*r).total == 6738415616);  // the Llama-2-7B layout
}

}  // namespace unit_params
}  // namespace
