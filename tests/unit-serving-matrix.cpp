// The serving matrix (vramcalc/serving_matrix.hpp): its rows agree with the bill of the same scenario at
// that context, concurrency falls as the context grows, and training has none.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/serving_matrix.hpp"

namespace {
namespace unit_serving_matrix {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

TEST_CASE("serving matrix: vLLM rows are the KV pool's sequences at that context, capped by max_num_seqs") {
    const Scenario s = test::scenario({{"model", "qwen3-14b"}, {"workload", "infer"}, {"framework", "vllm"}, {"tp", 4}, {"num_gpus", 4}, {"max_model_len", 16384}, {"gpu", "a100-80gb"}});
    const ServingMatrix m = serving_matrix(s);
    REQUIRE(m.contexts.front() == 1024);
    REQUIRE(m.contexts.back() == s.model.max_positions);  // the model's own limit closes the list
    for (std::size_t i = 0; i < m.contexts.size(); ++i) {
        INFO("context " << m.contexts[i]);
        Scenario t = s;
        t.gen_len = std::min<std::int64_t>(s.gen_len, m.contexts[i] / 2);
        t.prompt_len = m.contexts[i] - t.gen_len;
        t.max_model_len = m.contexts[i];
        const Bill b = estimate_peak(t);
        CHECK(m.max_concurrency[i] == std::min(*b.kv_pool_sequences, s.max_num_seqs));
        if (i > 0) CHECK(m.max_concurrency[i] <= m.max_concurrency[i - 1]);
    }
}

TEST_CASE("serving matrix: llama.cpp and torch rows fit at their most and not one more") {
    for (const char* fw : {"llama.cpp", "hf"}) {
        INFO(fw);
        json j = {{"model", "llama-3.1-8b"}, {"workload", "infer"}, {"framework", fw}, {"gpu", "rtx-4090"}};
        if (std::string(fw) == "llama.cpp") j["weights"] = "gguf-q4_k_m";
        const Scenario s = test::scenario(j);
        const ServingMatrix m = serving_matrix(s);
        REQUIRE(!m.empty());
        const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
        for (std::size_t i = 0; i < m.contexts.size(); ++i) {
            const std::int64_t most = m.max_concurrency[i], len = m.contexts[i];
            INFO("context " << len << ", most " << most);
            auto device = [&](std::int64_t n) {
                Scenario t = s;
                t.gen_len = std::min<std::int64_t>(s.gen_len, len / 2);
                t.prompt_len = len - t.gen_len;
                t.batch = n;
                if (s.framework == Framework::llamacpp) t.n_ctx = n * len;
                return static_cast<double>(estimate_peak(t).device_bytes);
            };
            if (most > 0) CHECK(device(most) <= budget);
            if (most < (1 << 16)) CHECK(device(most + 1) > budget);
        }
    }
}

TEST_CASE("serving matrix: the fits table follows the most per context, and training has no matrix") {
    ServingMatrix m;
    m.contexts = {1024, 2048};
    m.concurrency = {1, 2, 4};
    m.max_concurrency = {3, 0};
    const json j = serving_matrix_to_json(m);
    CHECK(j["fits"] == json::array({json::array({true, true, false}), json::array({false, false, false})}));
    CHECK(serving_matrix(test::scenario({{"model", "llama-3.1-8b"}})).empty());
}

}  // namespace unit_serving_matrix
}  // namespace
