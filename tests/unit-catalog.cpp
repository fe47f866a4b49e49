// The built-in presets: they parse, they are numerous enough, and every model and GPU the reference
// data names exists.
#include <catch2/catch.hpp>

#include <set>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

using namespace vramcalc;

TEST_CASE("catalog: built-in presets parse without problems") {
    const auto& c = builtin_catalog();
    INFO(c.error_text());
    REQUIRE(c.ok());
    CHECK(c->models().size() >= 30);
    CHECK(c->gpus().size() >= 25);
    for (const auto& g : c->gpus()) {
        INFO(g.id);
        CHECK(g.memory_bytes > (1LL << 30));
        CHECK_FALSE(g.source.empty());
    }
    for (const auto& m : c->models()) {
        INFO(m.id);
        CHECK_FALSE(m.source.empty());
        CHECK_FALSE(m.hub_id.empty());
        CHECK(m.params.total > 0);
    }
}

TEST_CASE("catalog: every model and GPU named by the reference data has a preset") {
    std::set<std::string> models, gpus;
    for (const char* file : {"measured_runs.json", "formula_cases.json"}) {
        for (const auto& e : test::load_json(file)) {
            if (!e.contains("scenario") || !e["scenario"].is_object()) continue;
            const auto& s = e["scenario"];
            if (s.contains("model") && s["model"].is_string()) models.insert(s["model"].get<std::string>());
            if (s.contains("gpu") && s["gpu"].is_string()) gpus.insert(s["gpu"].get<std::string>());
        }
    }
    for (const auto& e : test::load_json("model_configs.json")) models.insert(e["id"].get<std::string>());
    for (const auto& id : models) {
        INFO("model " << id);
        CHECK(test::catalog().find_model(id) != nullptr);
    }
    for (const auto& id : gpus) {
        INFO("gpu " << id);
        CHECK(test::catalog().find_gpu(id) != nullptr);
    }
}

TEST_CASE("catalog: presets of reference models carry the reference config") {
    for (const auto& e : test::load_json("model_configs.json")) {
        const auto* p = test::catalog().find_model(e["id"].get<std::string>());
        REQUIRE(p);
        INFO(p->id);
        CHECK(nlohmann::json::parse(p->config_json) == e["config"]);
    }
}

TEST_CASE("catalog: the whole-catalog solve gives each GPU's own solver answers") {
    // solve_catalog shares estimates between GPUs of one class and searches from the previous answer;
    // it must agree exactly with solving each GPU on its own.
    const char* scenarios[] = {
        R"({"model": "llama-3.1-8b", "method": "lora", "precision": "bf16", "micro_batch": 4})",
        R"({"model": "gpt2", "method": "full", "precision": "fp32", "attention": "eager"})",
        R"({"model": "llama-3.1-8b", "method": "qlora", "quantization": "nf4", "checkpointing": "full"})",
        R"({"model": "qwen2.5-7b", "method": "full", "precision": "bf16", "num_gpus": 8, "sharding": "zero3"})",
        R"({"model": "llama-3.1-8b", "method": "freeze", "trainable_layers": 4, "target_utilization": 0.95})",
    };
    for (const char* text : scenarios) {
        auto sc = vramcalc::scenario_from_text(text, test::catalog());
        REQUIRE(sc.ok());
        const auto fits = vramcalc::solve_catalog(*sc, test::catalog().gpus());
        REQUIRE(fits.size() == test::catalog().gpus().size());
        for (std::size_t i = 0; i < fits.size(); ++i) {
            vramcalc::Scenario one = *sc;
            one.gpu = test::catalog().gpus()[i];
            INFO(text << " on " << one.gpu.id);
            CHECK(fits[i].gpu.id == one.gpu.id);
            CHECK(fits[i].max_batch == vramcalc::solve_max_batch(one, 1 << 16));
            CHECK(fits[i].max_seq_len == vramcalc::solve_max_seq_len(one, std::int64_t{1} << 24));
            CHECK(fits[i].device_bytes == vramcalc::estimate(one).device_bytes);
        }
    }
}
