// The transformers release a run's defaults follow (key `transformers`, issue 39 item 6): today's 5 loads a
// checkpoint in its own dtype and steps fused AdamW; 4 keeps what the published runs ran.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/validate.hpp"

namespace {
namespace unit_release {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using json = nlohmann::json;

namespace {

Scenario read(const json& j) {
    auto r = scenario_from_json(j, test::catalog());
    REQUIRE(r.ok());
    return *r.value;
}

}  // namespace

TEST_CASE("release: hf defaults follow the checkpoint's dtype and the Trainer's optim") {
    const Scenario today = read({{"model", "llama-3.1-8b"}});  // config.json: torch_dtype bfloat16
    CHECK(today.transformers == 5);
    CHECK(today.precision == Precision::bf16);
    CHECK(today.adamw_impl == AdamwImpl::fused);
    const Scenario before = read({{"model", "llama-3.1-8b"}, {"transformers", 4}});
    CHECK(before.precision == Precision::bf16_mixed);
    CHECK(before.adamw_impl == AdamwImpl::foreach);
    // gpt2's config names no dtype (its checkpoint is fp32), gemma-2-2b's names float32, a layer stack is
    // torchvision's fp32: the Trainer's autocast over an fp32 model.
    CHECK(read({{"model", "gpt2"}}).precision == Precision::bf16_mixed);
    CHECK(read({{"model", "gemma-2-2b"}}).precision == Precision::bf16_mixed);
    CHECK(read({{"model", "resnet50"}}).precision == Precision::bf16_mixed);
    // Other frameworks keep their own recipes whatever the release.
    CHECK(read({{"model", "llama-3.1-8b"}, {"framework", "litgpt"}}).precision == Precision::bf16_mixed);
    CHECK(read({{"model", "llama-3.1-8b"}, {"framework", "torchtune"}}).adamw_impl == AdamwImpl::foreach);
    // Out of range: a clear error naming the key.
    auto bad = scenario_from_json({{"model", "llama-3.1-8b"}, {"transformers", 3}}, test::catalog());
    CHECK_FALSE(bad.ok());
    CHECK(bad.error_text().find("transformers") != std::string::npos);
}

TEST_CASE("release: a LoRA under *-mixed keeps its frozen base in the checkpoint's 16 bits under transformers 5") {
    const json lora = {{"model", "llama-3.1-8b"}, {"method", "lora"}, {"precision", "bf16-mixed"}, {"micro_batch", 1}};
    json four = lora;
    four["transformers"] = 4;
    const Bill b5 = estimate(read(lora)), b4 = estimate(read(four));
    const double params = static_cast<double>(b5.parameters);
    CHECK(static_cast<double>(b5.component("weights")) == Approx(2 * params).epsilon(0.01));  // 2 B frozen + fp32 adapters
    CHECK(static_cast<double>(b4.component("weights")) == Approx(4 * params).epsilon(0.01));  // an fp32 model
    // The same as precision bf16 under the Trainer's autocast: what transformers 5 loads.
    json bf16 = lora;
    bf16["precision"] = "bf16";
    CHECK(bill_to_json(estimate(read(bf16)))["per_gpu"] == bill_to_json(b5)["per_gpu"]);
    // A full fine-tune keeps the fp32 model it names.
    json full = lora;
    full["method"] = "full";
    CHECK(static_cast<double>(estimate(read(full)).component("weights")) == Approx(4 * params).epsilon(0.001));
}

TEST_CASE("release: a link writes the key only where it differs from today's") {
    CHECK_FALSE(scenario_to_json(read({{"model", "llama-3.1-8b"}})).contains("transformers"));
    const json j = scenario_to_json(read({{"model", "llama-3.1-8b"}, {"transformers", 4}}));
    CHECK(j["transformers"] == 4);
    CHECK(scenario_to_json(read(j)) == j);
}

TEST_CASE("release: validate reads a reference scenario with the release of its file") {
    const json run = {{"id", "r"},
                      {"scenario", {{"model", "llama-3.1-8b"}, {"gpu", "h200"}, {"precision", "bf16"}, {"micro_batch", 1}}},
                      {"measured", {{"bytes", 60000000000LL}, {"metric", "allocated"}}},
                      {"per_gpu", true}};
    // No env: a published run, transformers 4 (foreach AdamW: its step transient is in the peak).
    auto published = validate_reference(json::array({run}), test::catalog());
    // The H200 file names transformers 5.17.0: fused AdamW, no transient.
    auto h200 = validate_reference(json{{"env", {{"transformers", "5.17.0"}}}, {"runs", json::array({run})}}, test::catalog());
    REQUIRE(published.ok());
    REQUIRE(h200.ok());
    REQUIRE(published->entries.size() == 1);
    REQUIRE(h200->entries.size() == 1);
    CHECK(published->entries[0].estimated > h200->entries[0].estimated);
    json four = run;
    four["scenario"]["adamw_impl"] = "foreach";
    auto explicit_impl = validate_reference(json{{"env", {{"transformers", "5.17.0"}}}, {"runs", json::array({four})}}, test::catalog());
    REQUIRE(explicit_impl.ok());
    CHECK(explicit_impl->entries[0].estimated == published->entries[0].estimated);
}

TEST_CASE("release: load_dtype says how from_pretrained loads the model, and a LoRA's base keeps it") {
    const json lora = {{"model", "llama-3.1-8b"}, {"method", "lora"}, {"precision", "bf16-mixed"}, {"micro_batch", 1}};
    const double params = static_cast<double>(estimate(read(lora)).parameters);
    // float32 (transformers 4's default, TRL's ModelConfig from TRL 0.27): the frozen base stays fp32.
    json fp32 = lora;
    fp32["load_dtype"] = "float32";
    CHECK(static_cast<double>(estimate(read(fp32)).component("weights")) == Approx(4 * params).epsilon(0.01));
    // A named 16-bit dtype loads 16 bits whatever the checkpoint is (gemma-2-2b's config names float32).
    json gemma = lora;
    gemma["model"] = "gemma-2-2b";
    const double gp = static_cast<double>(estimate(read(gemma)).parameters);
    CHECK(static_cast<double>(estimate(read(gemma)).component("weights")) == Approx(4 * gp).epsilon(0.01));
    gemma["load_dtype"] = "bfloat16";
    CHECK(static_cast<double>(estimate(read(gemma)).component("weights")) == Approx(2 * gp).epsilon(0.01));
    // Without precision, the load decides it: 16 bits train in 16 bits, float32 under bf16 autocast.
    CHECK(read({{"model", "gemma-2-2b"}, {"load_dtype", "bfloat16"}}).precision == Precision::bf16);
    CHECK(read({{"model", "llama-3.1-8b"}, {"load_dtype", "float32"}}).precision == Precision::bf16_mixed);
    CHECK(read({{"model", "llama-3.1-8b"}, {"load_dtype", "float16"}}).precision == Precision::fp16);
    // transformers 4 loaded float32; a link writes load_dtype only where it is not the release's default.
    CHECK(read({{"model", "llama-3.1-8b"}, {"transformers", 4}}).load_dtype == LoadDtype::float32);
    CHECK_FALSE(scenario_to_json(read({{"model", "llama-3.1-8b"}, {"transformers", 4}})).contains("load_dtype"));
    const json j = scenario_to_json(read(fp32));
    CHECK(j["load_dtype"] == "float32");
    CHECK(scenario_to_json(read(j)) == j);
    // A name from_pretrained does not take is refused.
    CHECK_FALSE(scenario_from_json({{"model", "llama-3.1-8b"}, {"load_dtype", "int8"}}, test::catalog()).ok());
}

}  // namespace unit_release
}  // namespace
