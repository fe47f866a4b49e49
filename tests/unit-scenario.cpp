// Scenario JSON: validation reports every problem; defaults; round trip through scenario_to_json.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/scenario_json.hpp"

using namespace vramcalc;
using nlohmann::json;

TEST_CASE("scenario: defaults follow the spec") {
    auto r = scenario_from_text(R"({"model": "llama-3.1-8b"})", test::catalog());
    REQUIRE(r.ok());
    CHECK(r->workload == Workload::train);
    CHECK(r->framework == Framework::hf);
    CHECK(r->gpu.id == "h100-80gb");
    CHECK(r->gpu.memory_bytes == 85520809984);  // 81559 MiB as nvidia-smi reports it
    CHECK(r->num_gpus == 1);
    CHECK(r->target_utilization == Approx(0.9));
}

TEST_CASE("scenario: every problem is reported with field, value and what is allowed") {
    auto r = scenario_from_text(R"({"model": "no-such-model", "workload": "serve", "micro_batch": 0, "seq_len": -4,
        "precision": "int3", "gpu": "gtx-480", "lora": {"rank": 0}, "num_gpus": 3, "tp": 2})", test::catalog());
    REQUIRE_FALSE(r.ok());
    const std::string t = r.error_text();
    INFO(t);
    CHECK(t.find("model: unknown preset id \"no-such-model\"") != std::string::npos);
    CHECK(t.find("workload: got \"serve\", allowed: train, infer") != std::string::npos);
    CHECK(t.find("micro_batch: got 0, expected an integer from 1") != std::string::npos);
    CHECK(t.find("seq_len: got -4") != std::string::npos);
    CHECK(t.find("precision: got \"int3\", allowed: fp32, fp16-mixed, bf16-mixed, fp16, bf16") != std::string::npos);
    CHECK(t.find("gpu: unknown GPU id \"gtx-480\"") != std::string::npos);
    CHECK(t.find("lora.rank: got 0") != std::string::npos);
    CHECK(t.find("num_gpus: 3 is not a multiple of tp x pp x cp = 2") != std::string::npos);
    CHECK(r.errors.size() == 8);
}

TEST_CASE("scenario: malformed documents are errors, not crashes") {
    const char* cases[] = {"", "{", "[]", "null", "42", R"({"model": 5})", R"({"model": null})",
                           R"({"model": {"parameters": -1}})", R"({"model": {"model_type": "llama"}})",
                           R"({"model": "gpt2", "gpu": {"name": "x"}})", R"({"model": "gpt2", "gpu": [1]})",
                           R"({"model": "gpt2", "lora": {"targets": 7}})", R"({"model": "gpt2", "weights": "int3"})",
                           R"({"model": "gpt2", "target_utilization": 2})"};
    for (const char* c : cases) {
        INFO(c);
        auto r = scenario_from_text(c, test::catalog());
        CHECK_FALSE(r.ok());
        CHECK_FALSE(r.errors.empty());
    }
}

TEST_CASE("scenario: inline config, custom GPU and parameter-only models") {
    auto r = scenario_from_text(R"({"model": {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12,
        "n_head": 12, "n_positions": 1024}, "gpu": {"name": "My card", "memory_gib": 48}})", test::catalog());
    REQUIRE(r.ok());
    CHECK(r->gpu.memory_bytes == 48LL << 30);
    CHECK(count_parameters(r->model).total == 124439808);
    auto p = scenario_from_text(R"({"model": {"name": "ZeRO 7.5B", "parameters": 7500000000}})", test::catalog());
    REQUIRE(p.ok());
    CHECK(count_parameters(p->model).total == 7500000000);
}

TEST_CASE("scenario: unknown keys are warnings") {
    auto r = scenario_from_text(R"({"model": "gpt2", "colour": "blue", "extra": {"anything": 1}})", test::catalog());
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("colour") != std::string::npos);
}

TEST_CASE("scenario: JSON round trip") {
    const char* texts[] = {
        R"({"model": "qwen2.5-7b", "method": "lora", "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"},
            "micro_batch": 4, "seq_len": 4096, "optimizer": "adamw-8bit", "gpu": "a100-80gb"})",
        R"({"model": "llama-3.1-8b", "workload": "infer", "weights": "awq-int4", "batch": 8, "prompt_len": 2000,
            "gen_len": 500, "kv_dtype": "fp8", "framework": "vllm"})",
        R"({"model": "mistral-7b-v0.1", "method": "qlora", "quantization": "nf4-dq", "gpu": {"name": "X", "memory_gib": 24}})"};
    for (const char* t : texts) {
        INFO(t);
        auto a = scenario_from_text(t, test::catalog());
        REQUIRE(a.ok());
        const json ja = scenario_to_json(*a);
        auto b = scenario_from_json(ja, test::catalog());
        REQUIRE(b.ok());
        CHECK(scenario_to_json(*b) == ja);
    }
}
