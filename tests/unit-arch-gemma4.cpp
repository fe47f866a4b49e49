// Gemma 4 (docs/architectures.md): google/gemma-4-31B-it's config (tests/data/configs/gemma-4-31b-it.json, source in
// presets/models/gemma-4-31b-it.json) against its checkpoint's exact count, its two kinds of attention layer in
// the KV cache, and what vLLM loads for it; and RedHatAI's Qwen3.5-397B-A17B FP8-dynamic checkpoint served with
// --language-model-only.
#include <catch2/catch.hpp>

#include <string>

#include "inference/kv_cache.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_arch_gemma4 {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {

ModelSpec gemma4_31b() {
    const auto j = test::load_json("configs/gemma-4-31b-it.json");
    auto r = model_from_config(j, "gemma-4-31b-it");
    INFO(r.error_text());
    REQUIRE(r.ok());
    CHECK(r.warnings.empty());
    return *r.value;
}

double gib(std::int64_t bytes) { return static_cast<double>(bytes) / 1073741824.0; }

}  // namespace

TEST_CASE("arch: Gemma 4 31B counts its checkpoint's parameters exactly") {
    // The checkpoint's safetensors listing (find_string file id 62810419502): 1,188 tensors, 31,273,088,876
    // parameters. 50 sliding layers (q 8192, k / v 4096 wide) and 10 global ones (q 16384, k 2048, no v_proj:
    // attention_k_eq_v); the tower and embed_vision's projection are 575,743,536 of it.
    const ModelSpec m = gemma4_31b();
    const ParamBreakdown p = count_parameters(m);
    CHECK(p.total == 31'273'088'876);
    CHECK(p.vision == 575'743'536);
    CHECK(p.lm_head == 0);  // tied
    CHECK(m.traits.global_every == 6);
    CHECK(m.traits.global_head_dim == 512);
    CHECK(m.traits.global_kv_heads == 4);
    CHECK(m.traits.k_eq_v);
    CHECK(m.sliding_window == 1024);
}

TEST_CASE("arch: Gemma 4's global layers keep their own K and V widths in the KV cache") {
    // Per token: 50 sliding layers x K and V x 16 heads x 256 + 10 global layers x K and V x 4 heads x 512, bf16.
    const ModelSpec m = gemma4_31b();
    CHECK(kv_bytes_per_token(m, 2, false) == (50 * 2 * 16 * 256 + 10 * 2 * 4 * 512) * 2);
    nlohmann::json s = {{"model", "gemma-4-31b-it"}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h200"}, {"prompt_len", 8191}, {"gen_len", 1}, {"max_model_len", 8192}};
    const Scenario sc = test::scenario(s);
    CHECK(detail::kv_layer_token_bytes_at(sc, 2, 0) == 2 * 16 * 256 * 2);
    CHECK(detail::kv_layer_token_bytes_at(sc, 2, 5) == 2 * 4 * 512 * 2);
    // One 8192-token sequence under vLLM: the sliding layers hold their 1024-token window (plus the block it starts
    // in), the global ones every token.
    CHECK(detail::kv_bytes_for_tokens(sc, 8192) == 50.0 * 1024 * 16384 + 10.0 * 8192 * 8192);
}

TEST_CASE("arch: Gemma 4 31B under vLLM loads the checkpoint, the k_eq_v V slots and two rotary caches") {
    // vLLM logged "Model loading took 58.9 GiB" on one H200 (tests/data/vllm_startup_logs.json,
    // vmelog-gemma4-31b-h200-tp1-*): the checkpoint's 62,546,177,752 B, the V slots its QKVParallelLinear holds on
    // the 10 global layers (10 x 2048 x 5376 x 2 B, loaded from K) and the cos/sin caches of the sliding and the
    // proportional rope (262,144 positions x (256 + 512) x 2 B).
    nlohmann::json s = {{"model", "gemma-4-31b-it"}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h200"}, {"prompt_len", 8191}, {"gen_len", 1}, {"max_model_len", 8192}, {"gpu_memory_utilization", 0.95}};
    const Bill b = estimate(test::scenario(s));
    const double expected = 62'546'177'752.0 + 10.0 * 2048 * 5376 * 2 + 262144.0 * (256 + 512) * 2;
    CHECK(static_cast<double>(b.component("weights")) == expected);
    CHECK_THAT(gib(b.component("weights")), Catch::Matchers::WithinRel(58.9, 0.01));
}

TEST_CASE("arch: Gemma 4 refuses the parts it does not describe, by key") {
    auto j = test::load_json("configs/gemma-4-31b-it.json");
    j["audio_config"] = {{"model_type", "gemma4_audio"}};
    auto r = model_from_config(j, "gemma-4 with audio");
    CHECK_FALSE(r.ok());
    CHECK(r.error_text().find("audio_config") != std::string::npos);
    for (const char* key : {"num_kv_shared_layers", "hidden_size_per_layer_input", "enable_moe_block"}) {
        auto k = test::load_json("configs/gemma-4-31b-it.json");
        k["text_config"][key] = std::string(key) == "enable_moe_block" ? nlohmann::json(true) : nlohmann::json(4);
        auto e = model_from_config(k, key);
        INFO(key);
        CHECK_FALSE(e.ok());
        CHECK(e.error_text().find(key) != std::string::npos);
    }
    // Without its vision_config the text model alone is read (Gemma4Config builds no tower then).
    auto t = test::load_json("configs/gemma-4-31b-it.json");
    t.erase("vision_config");
    auto text = model_from_config(t, "gemma-4 text");
    REQUIRE(text.ok());
    CHECK(count_parameters(*text.value).total == 31'273'088'876 - 575'743'536);
}

TEST_CASE("checkpoint quant: RedHat's Qwen3.5-397B FP8-dynamic keeps DeltaNet and shared experts in bf16") {
    // The model card's recipe ignores lm_head, the tower, the routers, embed_tokens, shared_expert_gate, the
    // shared experts and every linear_attn module: only the 15 full-attention layers' q/k/v/o and the routed
    // experts are fp8 per channel.
    const ModelSpec m = test::preset("qwen3.5-397b-a17b-fp8-dynamic");
    CHECK(m.quant.format == "fp8-channel");
    for (const auto& g : m.params) {
        if (!g.is_linear || g.category == ParamCategory::lm_head || g.category == ParamCategory::router ||
            g.category == ParamCategory::vision)
            continue;
        INFO(g.name << " " << to_string(g.category));
        const bool fp8 = g.routed_expert || g.category == ParamCategory::attention;
        CHECK(g.checkpoint_16bit == (fp8 ? 0 : g.count));
    }
    // vLLM v0.18 on 4 H200 with --language-model-only logged 94.87 GiB per GPU (vmelog-qwen3.5-397b-a17b-fp8dyn-*):
    // no vision tower is built. With the tower (sharded over the 4 ranks) it would be 0.2 GiB more.
    nlohmann::json s = {{"model", "qwen3.5-397b-a17b-fp8-dynamic"}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h200"}, {"num_gpus", 4}, {"tp", 4}, {"prompt_len", 8191}, {"gen_len", 1}, {"max_model_len", 8192}, {"gpu_memory_utilization", 0.92}, {"vllm_language_model_only", true}};
    const double text_only = gib(estimate(test::scenario(s)).component("weights"));
    INFO("per GPU " << text_only << " GiB");
    CHECK_THAT(text_only, Catch::Matchers::WithinRel(94.87, 0.01));
    s["vllm_language_model_only"] = false;
    const double with_tower = gib(estimate(test::scenario(s)).component("weights"));
    CHECK(with_tower > text_only);
}

}  // namespace unit_arch_gemma4
}  // namespace
