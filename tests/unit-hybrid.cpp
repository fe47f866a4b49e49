// Hybrid Mamba / attention models (Nemotron-H, families_hybrid.cpp): the parameter count from the block
// pattern, KV only in attention blocks, the Mamba state, vLLM's shared-page pool, the fp8 checkpoint's bf16
// blocks, and the workloads that are refused.
#include <catch2/catch.hpp>

#include <string>

#include "inference/kv_cache.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/hf_config.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_hybrid {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {
const char* kNano = "nvidia-nemotron-3-nano-30b-a3b";

Scenario scenario(const std::string& extra) {
    const std::string text = std::string(R"({"model": ")") + kNano + R"(", "workload": "infer")" + extra + "}";
    auto r = scenario_from_text(text, test::catalog());
    INFO(text << "\n"
              << r.error_text());
    REQUIRE(r.ok());
    return *r.value;
}

const Component* line(const Bill& b, const std::string& id) {
    for (const auto& c : b.components)
        if (c.id == id) return &c;
    return nullptr;
}
}  // namespace

TEST_CASE("hybrid: Nemotron-3-Nano's count follows its block pattern exactly") {
    const ModelSpec m = test::preset(kNano);
    const ParamBreakdown p = count_parameters(m);
    // ModelOpt's pruning log: 31.58B total, 3.58B active; our exact figures (notes in the preset's source).
    CHECK(p.total == 31'577'940'288);
    CHECK(p.active == 3'580'076'352);
    CHECK(m.hybrid.blocks('M') == 23);
    CHECK(m.hybrid.blocks('*') == 6);
    CHECK(m.hybrid.blocks('E') == 23);
    CHECK(attention_layers(m) == 6);
    CHECK(layer_attends(m, 5));
    CHECK_FALSE(layer_attends(m, 4));
    // One Mamba-2 mixer: in_proj [4096 + 6144 + 64, 2688], conv1d [6144, 1, 4] + bias, dt_bias / A_log / D [64],
    // out_proj [2688, 4096] (its gated norm counts under norms).
    CHECK(p.mamba == 23 * (10304LL * 2688 + 6144 * 4 + 6144 + 3 * 64 + 4096LL * 2688));
    // KV per token: 6 attention blocks x K and V x 2 KV heads x 128 x 2 B.
    CHECK(kv_bytes_per_token(m, 2, false) == 6 * 2 * 2 * 128 * 2);
}

TEST_CASE("hybrid: vLLM's pool pages attention and Mamba state alike (Nemotron-3-Nano FP8, H200)") {
    // The v0.14 startup logs: fp8 KV, fp32 SSM state, max_model_len 8192, "GPU KV cache size: 6,472,800 tokens",
    // concurrency 1292.17 with 92.64 GiB available (tests/data/vllm_startup_logs.json).
    const Scenario s = scenario(R"(, "framework": "vllm", "gpu": "h200", "weights": "fp8", "kv_dtype": "fp8",
        "prompt_len": 8191, "gen_len": 1, "gpu_memory_utilization": 0.92, "max_model_len": 8192,
        "max_num_batched_tokens": 8192, "max_num_seqs": 1024, "vllm_sampler": "sort")");
    // One Mamba block's state: conv 3 x 6144 x 2 B + SSM 64 x 64 x 128 x 4 B.
    CHECK(detail::mamba_state_bytes_per_layer(s) == 3 * 6144 * 2 + 64 * 64 * 128 * 4);
    const Bill b = estimate(s);
    const Component* kv = line(b, "kv_cache");
    REQUIRE(kv);
    INFO(kv->detail);
    CHECK(std::abs(static_cast<double>(kv->bytes) / 1073741824.0 - 92.64) < 0.05);
    CHECK(kv->detail.find("6472800 tokens in 4176-token blocks") != std::string::npos);
    CHECK(b.kv_pool_sequences == 1292);
    // The checkpoint keeps attention and the six Mamba blocks before it in bf16: 30.42 GiB (logged 30.52).
    const Component* w = line(b, "weights");
    REQUIRE(w);
    CHECK(std::abs(static_cast<double>(w->bytes) / 1073741824.0 - 30.42) < 0.01);
}

TEST_CASE("hybrid: transformers keeps the Mamba state beside the attention blocks' KV") {
    const Scenario s = scenario(R"(, "framework": "hf", "gpu": "h200", "batch": 2, "prompt_len": 1000, "gen_len": 24)");
    const Bill b = estimate(s);
    const Component* kv = line(b, "kv_cache");
    REQUIRE(kv);
    // HybridMambaAttentionDynamicCache: conv 4 x 6144 and SSM 64 x 64 x 128, bf16, 23 blocks, per sequence.
    const double state = 23.0 * (4 * 6144 + 64 * 64 * 128) * 2;
    const double tokens = b.peak_phase == "prefill" ? 1000 : 1024;  // the cache grows with the sequence
    const double attention = 6.0 * 2 * 2 * 128 * 2 * tokens;
    CHECK(static_cast<double>(kv->bytes) == Approx(2 * (state + attention)).epsilon(1e-9));
}

TEST_CASE("hybrid: training and llama.cpp are refused naming the key, a renamed copy reads as nemotron_h") {
    auto train = scenario_from_text(std::string(R"({"model": ")") + kNano + R"("})", test::catalog());
    REQUIRE_FALSE(train.ok());
    CHECK(train.error_text().find("workload") != std::string::npos);
    auto cpp = scenario_from_text(std::string(R"({"model": ")") + kNano + R"(", "workload": "infer", "framework": "llama.cpp"})",
                                  test::catalog());
    REQUIRE_FALSE(cpp.ok());
    CHECK(cpp.error_text().find("framework") != std::string::npos);

    auto j = nlohmann::json::parse(test::catalog().find_model(kNano)->config_json);
    j["model_type"] = "acme_hybrid";
    auto r = model_from_config(j, "acme");
    INFO(r.error_text());
    REQUIRE(r.ok());
    CHECK(count_parameters(*r).total == 31'577'940'288);
    // A pattern that does not match the layer count, or names an unknown block kind, is an error naming the key.
    j["hybrid_override_pattern"] = "M*E";
    CHECK(model_from_config(j, "acme").error_text().find("hybrid_override_pattern") != std::string::npos);
    j["num_hidden_layers"] = 3;
    j["hybrid_override_pattern"] = "M*X";
    CHECK(model_from_config(j, "acme").error_text().find("block kind 'X'") != std::string::npos);
}

TEST_CASE("hybrid: LFM2's conv layers keep conv_L_cache - 1 columns of conv_dim under vLLM, no SSM state") {
    const auto j = test::load_json("configs/lfm2-1.2b.json");
    const Scenario s = test::scenario({{"model", j}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h100-80gb"}, {"prompt_len", 4095}, {"gen_len", 1}});
    // vLLM's ShortConv state: (conv_L_cache - 1) x conv_dim in the model dtype, per conv layer and sequence.
    CHECK(detail::mamba_state_bytes_per_layer(s) == 2 * 2048 * 2);
    CHECK(detail::recurrent_state_bytes(s) == 10 * 2 * 2048 * 2);
}

TEST_CASE("hybrid: Jamba's Mamba-1 state: the conv window and d_inner x d_state per layer") {
    const auto j = test::load_json("configs/jamba-1.5-mini.json");
    const Scenario s = test::scenario({{"model", j}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h200"}, {"prompt_len", 4095}, {"gen_len", 1}});
    // vLLM's Mamba-1 state: conv (d_conv - 1) x d_inner and SSM d_inner x d_state, both bf16 here.
    CHECK(detail::mamba_state_bytes_per_layer(s) == 3 * 8192 * 2 + 8192 * 16 * 2);
    CHECK(detail::recurrent_state_bytes(s) == 28.0 * (3 * 8192 * 2 + 8192 * 16 * 2));
}

TEST_CASE("hybrid: Falcon-H1's layers keep a KV cache and a Mamba state each, and vLLM pages both") {
    const auto j = test::load_json("configs/falcon-h1-0.5b.assembled.json");
    const Scenario s = test::scenario({{"model", j}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h100-80gb"}, {"prompt_len", 4095}, {"gen_len", 1}});
    // conv (4 - 1) x 1792 and SSM 24 x 64 x 128, bf16.
    CHECK(detail::mamba_state_bytes_per_layer(s) == 3 * 1792 * 2 + 24 * 64 * 128 * 2);
    CHECK(detail::recurrent_state_bytes(s) == 36.0 * (3 * 1792 * 2 + 24 * 64 * 128 * 2));
    const Bill b = estimate(s);
    CHECK(b.kv_pool_bytes.has_value());
}

}  // namespace unit_hybrid
}  // namespace
