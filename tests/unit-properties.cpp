// Properties of the training bill across many scenarios: the total is the sum of its parts at the peak,
// memory never falls as micro_batch or seq_len grow, checkpointing never raises the peak, LoRA <= full,
// bf16 <= fp32, and the solvers' answers fit while one more does not.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

using test::scenario;

std::int64_t peak(json j) { return estimate(scenario(std::move(j))).peak_allocated_bytes; }

const char* kModels[] = {"llama-3.1-8b", "qwen2.5-0.5b", "mixtral-8x7b-v0.1", "gpt2", "phi-2", "deepseek-v2-lite",
                         "gemma-2-2b", "t5-large", "falcon-7b", "qwen3-30b-a3b"};
const char* kMethods[] = {"full", "lora", "qlora"};
const char* kCheckpointing[] = {"none", "selective", "full", "offload"};

}  // namespace

TEST_CASE("properties: the bill's components sum to device_bytes") {
    for (const char* m : kModels)
        for (const char* method : kMethods) {
            INFO(m << " " << method);
            const Bill b = estimate(scenario({{"model", m}, {"method", method}, {"micro_batch", 2}, {"seq_len", 512}}));
            std::int64_t sum = 0;
            for (const auto& c : b.components) sum += c.bytes;
            CHECK(sum == b.device_bytes);
            CHECK(b.peak_allocated_bytes <= b.peak_reserved_bytes);
            CHECK(b.peak_reserved_bytes <= b.device_bytes);
        }
}

TEST_CASE("properties: memory is non-decreasing in micro_batch and seq_len") {
    for (const char* m : kModels)
        for (const char* ck : kCheckpointing) {
            INFO(m << " " << ck);
            std::int64_t last = 0;
            for (int mb : {1, 2, 3, 4, 8}) {
                const auto p = peak({{"model", m}, {"micro_batch", mb}, {"seq_len", 256}, {"checkpointing", ck}});
                CHECK(p >= last);
                last = p;
            }
            last = 0;
            for (int s : {16, 128, 512, 1000, 2048, 4096}) {
                const auto p = peak({{"model", m}, {"method", "lora"}, {"seq_len", s}, {"checkpointing", ck}});
                CHECK(p >= last);
                last = p;
            }
        }
}

TEST_CASE("properties: checkpointing never increases the peak; LoRA <= full; bf16 <= fp32") {
    for (const char* m : kModels) {
        INFO(m);
        const json base = {{"model", m}, {"micro_batch", 4}, {"seq_len", 1024}};
        auto with = [&](json extra) {
            json j = base;
            j.merge_patch(extra);
            return peak(j);
        };
        const auto none = with({{"checkpointing", "none"}});
        CHECK(with({{"checkpointing", "selective"}}) <= none);
        CHECK(with({{"checkpointing", "full"}}) <= none);
        CHECK(with({{"checkpointing", "offload"}}) <= with({{"checkpointing", "full"}}));
        CHECK(with({{"method", "lora"}}) <= with({{"method", "full"}}));
        CHECK(with({{"method", "qlora"}}) <= with({{"method", "lora"}}));
        CHECK(with({{"precision", "bf16"}}) <= with({{"precision", "fp32"}}));
        CHECK(with({{"precision", "bf16-mixed"}}) <= with({{"precision", "fp32"}}));
    }
}

TEST_CASE("properties: the solvers' answers fit and one more does not") {
    for (const char* m : {"llama-3.1-8b", "qwen2.5-0.5b", "gpt2"}) {
        INFO(m);
        const Scenario s = scenario({{"model", m}, {"method", "lora"}, {"precision", "bf16"}, {"checkpointing", "full"}, {"gpu", "rtx-4090"}, {"seq_len", 1024}});
        const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
        const auto n = solve_max_batch(s);
        REQUIRE(n > 0);
        Scenario t = s;
        t.micro_batch = n;
        CHECK(static_cast<double>(estimate(t).device_bytes) <= budget);
        t.micro_batch = n + 1;
        if (n < (1 << 16)) CHECK(static_cast<double>(estimate(t).device_bytes) > budget);
        const auto len = solve_max_seq_len(s);
        REQUIRE(len > 0);
        t = s;
        t.seq_len = len;
        CHECK(static_cast<double>(estimate(t).device_bytes) <= budget);
        t.seq_len = len + 1;
        CHECK(static_cast<double>(estimate(t).device_bytes) > budget);
    }
    const auto all = solve_catalog(scenario({{"model", "llama-3.1-8b"}, {"method", "lora"}}), test::catalog().gpus());
    CHECK(all.size() == test::catalog().gpus().size());
}
