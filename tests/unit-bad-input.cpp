// The bad-input corpus (tests/data/bad/manifest.json): every case gives an error naming the expected
// field with the expected reason, and nothing crashes. Also the regressions the fuzz targets found:
// absurd sizes saturate with a warning instead of wrapping (or being undefined behaviour).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/checked.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/hf_config.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_bad_input {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

std::string read_bytes(const std::string& name) {  // raw bytes (some cases are not UTF-8)
    std::ifstream f(test::data_path(name), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The documents too large to commit, built the same way by cli_check.cmake.
std::string generated(const std::string& what, const std::string& kind) {
    if (what == "over-limit") return "{\"model\": \"gpt2\", \"extra\": \"" + std::string(9u << 20, 'x') + "\"}";
    if (what == "deep-nesting") {
        const std::string open(100000, '['), close(100000, ']');
        return kind == "scenario" ? "{\"model\": " + open + close + "}" : open + close;
    }
    std::string zeros;
    zeros.reserve(4u << 20);
    for (int i = 0; i < (2 << 20); ++i) zeros += "0,";  // 4 MiB: under the 8 MiB input limit
    zeros += "0";
    if (kind == "scenario") return "{\"extra\": [" + zeros + "], \"model\": \"gpt2\", \"micro_batch\": 0}";
    return "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"hidden_size\": 4096, \"num_hidden_layers\": 2, "
           "\"num_attention_heads\": 30, \"extra\": [" +
           zeros + "]}";
}

template <class R>
void check_expected(const R& r, const json& c) {
    const auto field = c["field"].get<std::string>(), reason = c["reason"].get<std::string>();
    INFO(r.error_text());
    if (c.value("expect", "error") == "warning") {  // accepted, and said
        REQUIRE(r.ok());
        bool warned = false;
        for (const auto& w : r.warnings) {
            warned = warned || w.find(reason) != std::string::npos;
            CHECK_NOTHROW(json(w).dump());
        }
        INFO(json(r.warnings).dump(-1, ' ', false, json::error_handler_t::replace));
        CHECK(warned);
        return;
    }
    REQUIRE_FALSE(r.ok());
    bool found = false;
    for (const auto& e : r.errors) {
        found = found || (e.field == field && e.message.find(reason) != std::string::npos);
        CHECK_NOTHROW(json(e.text()).dump());  // messages are UTF-8, whatever the input was
    }
    CHECK(found);
}

}  // namespace

TEST_CASE("bad input: every corpus case gives its error, field and reason") {
    const json m = test::load_json("bad/manifest.json");
    REQUIRE(m.is_object());
    int n = 0;
    for (const auto& c : m["cases"]) {
        const std::string kind = c["kind"];
        if (kind == "cli") continue;  // the CLI's own cases (files, stdin, commands): cli_check.cmake
        const std::string text = c.contains("file") ? read_bytes("bad/" + c["file"].get<std::string>())
                                                    : generated(c["generate"], kind);
        INFO(c.dump());
        if (c.contains("file")) REQUIRE(text.size() < 4096);  // committed cases stay small
        if (kind == "config") check_expected(model_from_config_text(text), c);
        else check_expected(scenario_from_text(text, test::catalog()), c);
        ++n;
    }
    CHECK(n >= 50);
}

TEST_CASE("bad input: absurd training sizes saturate with a warning, never wrap") {
    // fuzz target `estimate` (tests/fuzz/regressions/estimate/timeline-double-to-int64): the step
    // timeline cast a double above 2^63 to int64, which is undefined behaviour.
    auto r = scenario_from_text(R"({"model": "llama-3.1-8b", "micro_batch": 1048576, "seq_len": 134217728,
        "attention": "eager"})",
                                test::catalog());
    REQUIRE(r.ok());
    const Bill b = estimate(*r);
    std::int64_t sum = 0;
    bool saturated = false;
    for (const auto& c : b.components) {
        CHECK(c.bytes >= 0);
        CHECK(c.bytes <= detail::kSaturatedBytes);
        saturated = saturated || c.bytes == detail::kSaturatedBytes;
        sum += c.bytes;
    }
    CHECK(saturated);
    CHECK(sum == b.device_bytes);
    for (const auto& t : b.timeline) CHECK(t.bytes >= 0);
    CHECK_FALSE(b.fits);
    bool warned = false;
    for (const auto& w : b.warnings) warned = warned || w.find("saturated") != std::string::npos;
    CHECK(warned);
}

TEST_CASE("bad input: absurd inference sizes still add up to device_bytes") {
    // fuzz target `estimate` (tests/fuzz/regressions/estimate/inference-saturated-sum): the totals were
    // re-derived from doubles and no longer matched the saturated components.
    for (const char* fw : {"hf", "vllm", "llama.cpp", "torchtune"}) {
        INFO(fw);
        const json j = {{"model", {{"model_type", "llama"}, {"vocab_size", 1 << 24}, {"hidden_size", 1 << 20}, {"num_hidden_layers", 10000}, {"num_attention_heads", 1}, {"intermediate_size", 1 << 20}}},
                        {"workload", "infer"},
                        {"framework", fw},
                        {"weights", "fp32"},
                        {"batch", 1 << 20},
                        {"prompt_len", 1 << 27},
                        {"gen_len", 1 << 27}};
        auto r = scenario_from_json(j, test::catalog());
        INFO(r.error_text());
        REQUIRE(r.ok());
        const Bill b = estimate(*r);
        std::int64_t sum = 0;
        for (const auto& c : b.components) {
            CHECK(c.bytes >= 0);
            CHECK(c.bytes <= detail::kSaturatedBytes);
            sum += c.bytes;
        }
        CHECK(sum == b.device_bytes);
        CHECK(b.peak_allocated_bytes <= b.peak_reserved_bytes);
        CHECK(b.peak_reserved_bytes <= b.device_bytes);
        CHECK_FALSE(b.fits);
    }
}

}  // namespace unit_bad_input
}  // namespace
