// The bill-line registry: every line a bill can hold is registered, and docs/architecture.md's code map
// names each one and only files that exist.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "test_data.hpp"
#include "vramcalc/curves.hpp"
#include "vramcalc/estimate.hpp"

namespace {
namespace unit_bill_lines {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("bill lines: every component of a range of bills is in the registry") {
    const nlohmann::json scenarios[] = {
        {{"model", "llama-3.1-8b"}, {"method", "lora"}},
        {{"model", "llama-3.1-8b"}, {"num_gpus", 8}, {"sharding", "zero3"}},
        {{"model", "llama-3.1-8b"}, {"num_gpus", 8}, {"sharding", "fsdp-full"}, {"framework", "torchtune"}},
        {{"model", "qwen2.5-7b"}, {"workload", "infer"}, {"framework", "vllm"}},
        {{"model", "qwen2.5-7b"}, {"workload", "infer"}, {"framework", "llama.cpp"}, {"weights", "gguf-q4_k_m"}},
        {{"model", "qwen2.5-7b"}, {"rlhf", {{"algorithm", "ppo"}, {"rollout", {{"engine", "vllm"}}}}}},
    };
    for (const auto& j : scenarios) {
        const Bill b = estimate_peak(test::scenario(j));
        for (const auto& c : b.components) {
            INFO(c.id);
            CHECK(find_bill_line(c.id) != nullptr);
        }
    }
}

TEST_CASE("bill lines: docs/architecture.md maps every registered line to files that exist") {
    const std::string root = std::string(VRAMCALC_TEST_DATA) + "/../..";
    const std::string doc = read_text(root + "/docs/architecture.md");
    REQUIRE(!doc.empty());
    std::set<std::string> ids;
    for (const auto& l : bill_lines()) {
        INFO(l.id);
        CHECK(ids.insert(l.id).second);  // one entry per id
        CHECK(doc.find(std::string("| `") + l.id + "` |") != std::string::npos);
        // Each "folder/file.cpp" the registry names exists under core/src.
        std::string where = l.computed_in;
        for (std::size_t at = where.find(".cpp"); at != std::string::npos; at = where.find(".cpp", at + 4)) {
            const std::size_t start = where.rfind(' ', at) == std::string::npos ? 0 : where.rfind(' ', at) + 1;
            const std::string file = where.substr(start, at + 4 - start);
            INFO(file);
            if (file.find('*') == std::string::npos) CHECK(!read_text(root + "/core/src/" + file).empty());
        }
    }
}

TEST_CASE("curves: memory grows along both axes, the scenario's own values are points, lengths past the model's limit are marked") {
    const Scenario s = test::scenario({{"model", "llama-3.1-8b"}, {"method", "lora"}, {"micro_batch", 3}, {"seq_len", 3000}});
    const MemoryCurves c = memory_curves(s, estimate(s));
    REQUIRE(c.by_batch.size() > 3);
    REQUIRE(c.by_length.size() > 3);
    bool own_batch = false, own_len = false, past = false;
    for (std::size_t i = 1; i < c.by_batch.size(); ++i) CHECK(c.by_batch[i].device_bytes >= c.by_batch[i - 1].device_bytes);
    for (std::size_t i = 1; i < c.by_length.size(); ++i) CHECK(c.by_length[i].device_bytes >= c.by_length[i - 1].device_bytes);
    for (const auto& p : c.by_batch) own_batch = own_batch || p.x == 3;
    for (const auto& p : c.by_length) {
        own_len = own_len || p.x == 3000;
        past = past || p.past_model_limit;
        CHECK(p.past_model_limit == (p.x > s.model.max_positions));
    }
    CHECK(own_batch);
    CHECK(own_len);
    CHECK_FALSE(past);  // the axis stops at the model's 131,072 positions
}

}  // namespace unit_bill_lines
}  // namespace
