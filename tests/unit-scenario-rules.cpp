// Issue 18's reader rules and planner behaviour: user strings cut at a UTF-8 boundary, duplicate keys,
// explicit nulls, parallel degrees against the model, and `plan` honouring degrees and checkpointing.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "io/json_reader.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/planner.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_scenario_rules {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

bool has_error(const Result<Scenario>& r, const std::string& field, const std::string& text) {
    for (const auto& e : r.errors)
        if (e.field == field && e.message.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("rules: user strings are cut at a UTF-8 character boundary") {
    const std::string e = "\xc3\xa9";  // é
    for (std::size_t cut = 0; cut < 12; ++cut) {
        const std::string s = "a" + e + e + e + e + e + e;
        const std::string p = detail::utf8_prefix(s, cut);
        CHECK_NOTHROW(json(p).dump());
    }
    CHECK(detail::utf8_prefix("abc", 3) == "abc");
    CHECK(detail::utf8_prefix("a" + e, 2) == "a...");
    const auto r = scenario_from_json({{"model", "llama-3.1-8b"}, {"workload", "infer"}, {"weights", "a" + std::string(60, 'x') + e}},
                                      test::catalog());
    REQUIRE_FALSE(r.ok());
    CHECK_NOTHROW(json(r.error_text()).dump());
}

TEST_CASE("rules: duplicate keys are refused at any depth, with their path") {
    std::string why;
    CHECK_FALSE(parse_json_text(R"({"a": 1, "a": 2})", why));
    CHECK(why.find("duplicate key \"a\"") != std::string::npos);
    CHECK_FALSE(parse_json_text(R"({"x": [{"b": 1}, {"c": {"d": 1, "d": 1}}]})", why));
    CHECK(why.find("duplicate key \"x[].c.d\"") != std::string::npos);
    // The same key in sibling objects is not a duplicate.
    CHECK(parse_json_text(R"({"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]})", why));
    CHECK_FALSE(parse_json_text(std::string(kMaxInputBytes + 1, ' '), why));
    CHECK(why.find("at most 8388608 bytes") != std::string::npos);
}

TEST_CASE("rules: an explicit null for a number key is an error, an absent key the default") {
    for (const char* key : {"seq_len", "micro_batch", "target_utilization", "num_gpus", "tp"}) {
        INFO(key);
        const auto r = scenario_from_json({{"model", "llama-3.1-8b"}, {key, nullptr}}, test::catalog());
        CHECK(has_error(r, key, "got null"));
    }
    CHECK(scenario_from_json({{"model", "llama-3.1-8b"}, {"lora", nullptr}, {"gpu", nullptr}}, test::catalog()).ok());
}

TEST_CASE("rules: parallel degrees must fit the GPUs and the model") {
    auto r = scenario_from_json({{"model", "mixtral-8x7b-v0.1"}, {"ep", 8}}, test::catalog());
    CHECK(has_error(r, "ep", "must divide num_gpus"));
    CHECK(scenario_from_json({{"model", "mixtral-8x7b-v0.1"}, {"ep", 8}, {"num_gpus", 8}}, test::catalog()).ok());
    CHECK(has_error(scenario_from_json({{"model", "mixtral-8x7b-v0.1"}, {"ep", 2}, {"tp", 2}, {"num_gpus", 2}}, test::catalog()),
                    "ep", "= 1"));
    // vLLM serving: --enable-expert-parallel spreads the experts over the tp x dp ranks (vllm/config/parallel.py),
    // so tp 8 with expert parallelism on 8 GPUs is ep 8; Megatron's rule (ep divides the dp ranks) would refuse it.
    const nlohmann::json serve = {{"model", "mixtral-8x7b-v0.1"}, {"workload", "infer"}, {"framework", "vllm"}, {"tp", 8}, {"ep", 8}, {"num_gpus", 8}};
    CHECK(scenario_from_json(serve, test::catalog()).ok());
    nlohmann::json half = serve;
    half["ep"] = 4;
    CHECK(has_error(scenario_from_json(half, test::catalog()), "ep", "tp x dp = 8"));
    nlohmann::json dp2 = serve;
    dp2["tp"] = 4;
    CHECK(scenario_from_json(dp2, test::catalog()).ok());  // tp 4 x dp 2 = ep 8
    CHECK(has_error(scenario_from_json({{"model", "gpt2"}, {"pp", 16}, {"num_gpus", 16}}, test::catalog()), "pp", "12 layers"));
    CHECK(scenario_from_json({{"model", "gpt2"}, {"pp", 12}, {"num_gpus", 12}}, test::catalog()).ok());
    CHECK(has_error(scenario_from_json({{"model", "llama-3.1-8b"}, {"tp", 64}, {"num_gpus", 64}}, test::catalog()), "tp",
                    "32 attention heads"));
    // A model known only by its size has no layers or heads to check.
    CHECK(scenario_from_json({{"model", {{"parameters", 7000000000}}}, {"pp", 64}, {"num_gpus", 64}}, test::catalog()).ok());
}

TEST_CASE("rules: keys a method does not read are warned about") {
    auto r = scenario_from_json({{"model", "llama-3.1-8b"}, {"method", "lora"}, {"quantization", "nf4"}}, test::catalog());
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("quantization: ignored with method \"lora\"") == 0);
    r = scenario_from_json({{"model", "llama-3.1-8b"}, {"method", "qlora"}, {"quantization", "nf4"}, {"lora", {{"rank", 4}}}},
                           test::catalog());
    REQUIRE(r.ok());
    CHECK(r.warnings.empty());
    r = scenario_from_json({{"model", "llama-3.1-8b"}, {"method", "lora"}, {"lora", {{"targets", {"all-linear"}}}}}, test::catalog());
    REQUIRE(r.ok());
    CHECK(r.value->lora.all_linear);
}

TEST_CASE("plan: given degrees are kept for every framework, and checkpointing is explored") {
    for (const char* fw : {"hf", "deepspeed", "megatron", "torchtune"}) {
        INFO(fw);
        const Scenario s = test::scenario({{"model", "llama-3.1-70b"}, {"framework", fw}, {"gpu", "a100-80gb"}, {"tp", 2}, {"pp", 2}, {"num_gpus", 4}, {"checkpointing", "full"}});
        const Plan p = plan_gpus(s, 256);
        REQUIRE_FALSE(p.candidates.empty());
        for (const auto& c : p.candidates) {
            CHECK(c.tp == 2);
            CHECK(c.pp == 2);
            CHECK(c.num_gpus % 4 == 0);
        }
    }
    // Llama-3.1-70B with checkpointing none: the plan either fits with full checkpointing and says what
    // none needs, or says what blocks; never a bare "does not fit".
    const Scenario none = test::scenario({{"model", "llama-3.1-70b"}, {"framework", "deepspeed"}, {"gpu", "a100-80gb"}, {"checkpointing", "none"}, {"micro_batch", 4}, {"seq_len", 4096}});
    const Plan p = plan_gpus(none, 1024);
    bool tried_full = false;
    for (const auto& c : p.candidates) tried_full = tried_full || c.checkpointing == Checkpointing::full;
    CHECK(tried_full);
    if (!p.found || p.best.checkpointing != Checkpointing::none) {
        CHECK_FALSE(p.blocker.empty());
        CHECK(p.blocker.find("checkpointing") != std::string::npos);
    }
    const Plan tiny = plan_gpus(none, 2);
    REQUIRE_FALSE(tiny.found);
    CHECK(tiny.blocker.find("with full checkpointing") != std::string::npos);
    CHECK(plan_to_json(tiny, none)["blocker"].is_string());
}

}  // namespace unit_scenario_rules
}  // namespace
