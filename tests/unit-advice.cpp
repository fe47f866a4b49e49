// The advisor: ranked changes, each computed by the estimator; combinations when no single change fits.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "vramcalc/advice.hpp"
#include "vramcalc/estimate.hpp"

namespace {
namespace unit_advice {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using json = nlohmann::json;

TEST_CASE("advice: a run no single change rescues gets a combination that fits within the target, ranked first") {
    // Qwen2.5-7B LoRA r16 on all linear layers, micro-batch 4 x 2048 tokens, on a 24 GB RTX 4090.
    const json s = {{"model", "qwen2.5-7b"}, {"method", "lora"}, {"precision", "bf16"}, {"lora", {{"rank", 16}, {"targets", "all-linear"}}}, {"micro_batch", 4}, {"seq_len", 2048}, {"gpu", "rtx-4090"}};
    const AdvicePlan plan = plan_changes(s, test::catalog());
    REQUIRE(!plan.ranked.empty());
    const Advice& best = plan.ranked.front();
    INFO(best.title);
    CHECK(best.within_target);
    CHECK(best.keeps_model);
    CHECK(best.changes.size() >= 2);
    // Its numbers are the estimator's for the patched scenario.
    json patched = s;
    patched.merge_patch(best.patch);
    const Bill after = estimate(test::scenario(patched));
    CHECK(after.device_bytes == best.device_bytes);
    CHECK(static_cast<double>(after.device_bytes) <= 0.9 * static_cast<double>(after.gpu.memory_bytes));
    CHECK(plan.note.empty());
}

TEST_CASE("advice: changes that keep the model rank above a smaller model") {
    const json s = {{"model", "llama-3.1-8b"}, {"method", "full"}, {"gpu", "a100-80gb"}, {"micro_batch", 8}};
    const auto ranked = advise(s, test::catalog());
    bool seen_smaller = false;
    for (const auto& a : ranked) {
        if (!a.keeps_model) seen_smaller = true;
        else if (a.within_target) CHECK_FALSE(seen_smaller);
    }
}

TEST_CASE("advice: when nothing short of more GPUs or a smaller model works, the plan says so") {
    const json s = {{"model", "llama-3.1-70b"}, {"method", "full"}, {"precision", "bf16-mixed"}, {"gpu", "rtx-4090"}};
    const AdvicePlan plan = plan_changes(s, test::catalog());
    for (const auto& a : plan.ranked) CHECK_FALSE((a.within_target && a.keeps_model));
    CHECK(plan.note.find("more GPUs") != std::string::npos);
}

}  // namespace unit_advice
}  // namespace
