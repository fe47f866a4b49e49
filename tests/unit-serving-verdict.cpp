// The verdict of an engine that fills its own memory budget (vLLM's gpu_memory_utilization, issue 41): it
// fits when the weights and overheads leave its KV pool room for the batch and what lies outside the budget
// still fits the GPU; the target utilisation does not apply. Bill, advice and catalog agree.
#include <catch2/catch.hpp>

#include <string>

#include "test_data.hpp"
#include "vramcalc/advice.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/catalog_json.hpp"
#include "vramcalc/estimate.hpp"

namespace {
namespace unit_serving_verdict {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using json = nlohmann::json;

namespace {

json vllm(const char* model, const char* gpu) {
    return {{"model", model}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", gpu}};
}

bool says_more_gpus(const AdvicePlan& plan) { return plan.note.find("more GPUs") != std::string::npos; }

}  // namespace

TEST_CASE("serving verdict: vLLM's defaults for Llama-3.1-8B on one H100 fit, with no advice to buy GPUs") {
    const json s = vllm("llama-3.1-8b", "h100-80gb");
    const Bill b = estimate(test::scenario(s));
    REQUIRE(b.serving_budget);
    // vLLM fills 90 % of the GPU and captures CUDA graphs beside it: above the 90 % target by design.
    CHECK(static_cast<double>(b.device_bytes) > 0.9 * static_cast<double>(b.gpu.memory_bytes));
    CHECK(b.device_bytes <= b.gpu.memory_bytes);
    CHECK(b.fits);
    CHECK(*b.kv_pool_sequences > 300);
    CHECK(verdict_of(b) == Verdict::fits);
    const std::string sentence = verdict_sentence(b);
    INFO(sentence);
    CHECK(sentence.rfind("fits:", 0) == 0);
    CHECK(sentence.find("KV pool for " + std::to_string(*b.kv_pool_sequences) + " sequences") != std::string::npos);
    const json j = bill_to_json(b);
    CHECK(j["verdict"] == "fits");
    CHECK(j["serving_budget"]["gpu_memory_utilization"] == 0.9);
    CHECK(j["serving_budget"]["starts"] == true);
    CHECK(j["serving_budget"]["outside_bytes"].get<std::int64_t>() == b.component("cuda_graphs"));

    const AdvicePlan plan = plan_changes(s, test::catalog());
    CHECK_FALSE(says_more_gpus(plan));
    CHECK(plan.note.empty());

    // The catalog's row for the same GPU says what the bill says (the table's "yes", not "tight").
    const auto rows = solve_catalog(test::scenario(s), test::catalog().gpus());
    bool seen = false;
    for (const auto& f : rows)
        if (f.gpu.id == "h100-80gb") {
            seen = true;
            CHECK(f.verdict == Verdict::fits);
            CHECK(f.device_bytes == b.device_bytes);
        }
    CHECK(seen);
    const json cj = catalog_fits_to_json(rows);
    for (const auto& r : cj)
        if (r["gpu"] == "h100-80gb") CHECK(r["verdict"] == "fits");
}

TEST_CASE("serving verdict: Llama-3.1-70B in bf16 on one H100 does not fit, and the catalog agrees") {
    const json s = vllm("llama-3.1-70b", "h100-80gb");
    const Bill b = estimate(test::scenario(s));
    CHECK_FALSE(b.fits);
    CHECK(verdict_of(b) == Verdict::does_not_fit);
    CHECK(b.kv_pool_sequences.value_or(0) == 0);
    CHECK(b.max_concurrent_sequences.value_or(-1) == 0);
    CHECK(verdict_sentence(b).rfind("does not fit", 0) == 0);
    CHECK(bill_to_json(b)["serving_budget"]["starts"] == false);
    for (const auto& f : solve_catalog(test::scenario(s), test::catalog().gpus()))
        if (f.gpu.id == "h100-80gb") CHECK(f.verdict == Verdict::does_not_fit);
    // The advice keeps the model with 4-bit weights rather than sending the user off for GPUs.
    const AdvicePlan plan = plan_changes(s, test::catalog());
    REQUIRE_FALSE(plan.ranked.empty());
    CHECK(plan.ranked.front().within_target);
    CHECK(plan.ranked.front().keeps_model);
}

TEST_CASE("serving verdict: no room for one max_model_len sequence is 'does not run'") {
    json s = vllm("llama-3.1-8b", "rtx-4090");
    s["max_model_len"] = 131072;
    const Bill b = estimate(test::scenario(s));
    CHECK(b.device_bytes <= b.gpu.memory_bytes);  // it is not the bytes: vLLM refuses to start
    CHECK(verdict_of(b) == Verdict::does_not_fit);
    CHECK(verdict_sentence(b).find("max_model_len 131072") != std::string::npos);
    CHECK(bill_to_json(b)["serving_budget"]["starts"] == false);
}

TEST_CASE("serving verdict: a pool for fewer sequences than the batch runs, amber, and the advice says how many") {
    json s = vllm("llama-3.1-8b", "h100-80gb");
    s["batch"] = 200;
    s["prompt_len"] = 4096;
    const Bill b = estimate(test::scenario(s));
    REQUIRE(b.kv_pool_sequences);
    REQUIRE(*b.kv_pool_sequences < 200);
    CHECK(b.fits);
    CHECK(verdict_of(b) == Verdict::fits_above_target);
    CHECK(verdict_sentence(b).find("fewer than the batch's 200") != std::string::npos);
    const AdvicePlan plan = plan_changes(s, test::catalog());
    CHECK_FALSE(says_more_gpus(plan));
    bool pool_batch = false;
    for (const auto& a : plan.ranked)
        if (a.title == "Batch " + std::to_string(*b.kv_pool_sequences)) pool_batch = a.within_target;
    CHECK(pool_batch);
    // A batch above max_num_seqs asks the pool for max_num_seqs at once (the scheduler queues the rest).
    s["batch"] = 512;
    s["prompt_len"] = 256;
    const Bill q = estimate(test::scenario(s));
    CHECK(q.serving_budget->requested_sequences == 256);
    CHECK(verdict_of(q) == Verdict::fits);
}

TEST_CASE("serving verdict: a budget that leaves no room for the CUDA graphs does not fit, and the advice lowers it") {
    json s = vllm("llama-3.1-8b", "h100-80gb");
    s["gpu_memory_utilization"] = 0.99;
    const Bill b = estimate(test::scenario(s));
    CHECK(b.device_bytes > b.gpu.memory_bytes);
    CHECK(verdict_of(b) == Verdict::does_not_fit);
    const AdvicePlan plan = plan_changes(s, test::catalog());
    REQUIRE_FALSE(plan.ranked.empty());
    CHECK(plan.ranked.front().within_target);
    CHECK(plan.ranked.front().patch.contains("gpu_memory_utilization"));
    CHECK_FALSE(says_more_gpus(plan));
}

TEST_CASE("serving verdict: training and the other engines keep the target utilisation's rule") {
    for (const json& s : {json{{"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}},
                          json{{"model", "llama-3.1-8b"}, {"method", "lora"}, {"gpu", "h100-80gb"}, {"micro_batch", 6}},
                          json{{"model", "llama-3.1-8b"}, {"workload", "infer"}, {"gpu", "rtx-4090"}, {"batch", 8}},
                          json{{"model", "llama-3.1-8b"}, {"workload", "infer"}, {"framework", "llama.cpp"}, {"gpu", "rtx-4090"}}}) {
        const Bill b = estimate(test::scenario(s));
        INFO(s.dump());
        CHECK_FALSE(b.serving_budget);
        CHECK(verdict_of(b) == (b.fits ? verdict_for(b.device_bytes, b.gpu.memory_bytes, b.target_utilization) : Verdict::does_not_fit));
    }
}

}  // namespace unit_serving_verdict
}  // namespace
