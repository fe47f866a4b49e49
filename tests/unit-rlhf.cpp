// RLHF bills (rlhf.cpp): the roles' lines, the verl 14B PPO case, DPO's doubled batch, LoRA policies
// sharing their base with the reference, and bad input.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_rlhf {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

Bill bill(const json& j) {
    auto r = scenario_from_json(j, test::catalog());
    INFO(r.error_text());
    REQUIRE(r.ok());
    return estimate(*r.value);
}

bool has(const Bill& b, const std::string& id) { return b.component(id) > 0; }

json policy() {
    return {{"model", "qwen2.5-1.5b"}, {"num_gpus", 2}, {"sharding", "fsdp-full"}, {"micro_batch", 2}, {"seq_len", 1024}, {"checkpointing", "full"}, {"gpu", "a100-80gb"}};
}

}  // namespace

TEST_CASE("rlhf: ppo lists actor, critic, reference, reward and rollout lines") {
    json j = policy();
    j["rlhf"] = {{"algorithm", "ppo"}};
    const Bill b = bill(j);
    for (const char* id : {"actor.weights", "actor.optimizer", "critic.weights", "critic.optimizer", "reference.weights",
                           "reward.weights"})
        CHECK(has(b, id));
    CHECK((has(b, "rollout.kv_cache") || b.peak_phase != "rollout"));
    // More than the actor alone.
    json plain = policy();
    CHECK(b.peak_allocated_bytes > bill(plain).peak_allocated_bytes);
    // Each line once; the total is the sum of the lines.
    std::int64_t sum = 0;
    for (const auto& c : b.components)
        if (c.id != "allocator_slack" && c.id != "cuda_context") sum += c.bytes;
    CHECK(sum == b.peak_allocated_bytes + b.torch_uncounted_bytes);
}

TEST_CASE("rlhf: verl 14B PPO on 4 x 80 GB holds ~91 GB of model states per GPU and does not fit") {
    const json cases = test::load_json("parallel_cases.json");
    json sc;
    for (const auto& e : cases)
        if (e["id"] == "rlhf-verl-ppo-14B-4x80GB") sc = e["scenario"];
    REQUIRE(sc.is_object());
    const Bill b = bill(sc);
    double states = 0;
    for (const char* id : {"actor.weights", "actor.optimizer", "critic.weights", "critic.optimizer", "reference.weights"})
        states += static_cast<double>(b.component(id));
    CHECK(states / 1e9 == Approx(91.0).margin(0.5));
    CHECK_FALSE(b.fits);
}

TEST_CASE("rlhf: dpo runs chosen and rejected, precomputed reference and LoRA policies add no reference copy") {
    json j = policy();
    j["rlhf"] = {{"algorithm", "dpo"}};
    const Bill dpo = bill(j);
    CHECK(has(dpo, "reference.weights"));
    json twice = policy();
    twice["micro_batch"] = 4;
    CHECK(dpo.component("policy.activations") == bill(twice).component("activations"));
    j["rlhf"]["reference"] = false;
    CHECK_FALSE(has(bill(j), "reference.weights"));
    json lora = policy();
    lora["method"] = "lora";
    lora["rlhf"] = {{"algorithm", "dpo"}};
    CHECK_FALSE(has(bill(lora), "reference.weights"));
}

TEST_CASE("rlhf: grpo keeps a colocated vLLM engine at its memory fraction") {
    json j = policy();
    j["rlhf"] = {{"algorithm", "grpo"}, {"group_size", 8}, {"rollout", {{"gpu_memory_utilization", 0.3}}}};
    const Bill b = bill(j);
    const double engine = static_cast<double>(b.component("rollout.weights") + b.component("rollout.kv_cache"));
    CHECK(engine == Approx(0.3 * static_cast<double>(b.gpu.memory_bytes)).epsilon(1e-6));
    CHECK_FALSE(has(b, "critic.weights"));
}

TEST_CASE("rlhf: bad input names the field") {
    json j = policy();
    j["rlhf"] = {{"algorithm", "reinforce"}};
    auto r = scenario_from_json(j, test::catalog());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error_text().find("rlhf.algorithm") != std::string::npos);
    j["rlhf"] = {{"algorithm", "ppo"}, {"critic", {{"precision", "fp64"}}}};
    r = scenario_from_json(j, test::catalog());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error_text().find("rlhf.critic.precision") != std::string::npos);
    j["rlhf"] = {{"algorithm", "ppo"}, {"rollout", {{"placement", "moon"}}}};
    CHECK_FALSE(scenario_from_json(j, test::catalog()).ok());
}

}  // namespace unit_rlhf
}  // namespace
