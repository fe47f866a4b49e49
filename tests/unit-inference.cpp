// Inference: GGUF block bytes and llama.cpp's K_M mix, weight formats, KV cache per engine, vLLM's pool,
// llama.cpp offload, tensor parallelism, solvers and the properties every bill must keep.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "inference/generate_replay.hpp"
#include "inference/inference.hpp"
#include "inference/kv_cache.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"
#include "formats/weight_formats.hpp"

namespace {
namespace unit_inference {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {
Scenario scenario(const std::string& text) {
    auto r = scenario_from_text(text, test::catalog());
    INFO(text << "\n"
              << r.error_text());
    REQUIRE(r.ok());
    return *r.value;
}
Bill bill(const std::string& text) { return estimate(scenario(text)); }
std::string infer(const std::string& extra) {
    return R"({"model": "llama-3.1-8b", "workload": "infer")" + extra + "}";
}
}  // namespace

TEST_CASE("inference: GGUF bytes per block (ggml-common.h)") {
    struct Case {
        const char* type;
        int weights, bytes;
    };
    const Case cases[] = {{"q8_0", 32, 34}, {"q6_k", 256, 210}, {"q5_k", 256, 176}, {"q5_0", 32, 22}, {"q4_k", 256, 144}, {"q4_0", 32, 18}, {"q3_k", 256, 110}, {"q2_k", 256, 84}, {"iq4_xs", 256, 136}, {"iq4_nl", 32, 18}, {"q5_1", 32, 24}, {"q4_1", 32, 20}};
    for (const auto& c : cases) {
        INFO(c.type);
        const detail::GgmlType* t = detail::ggml_type(c.type);
        REQUIRE(t != nullptr);
        CHECK(t->block_weights == c.weights);
        CHECK(t->block_bytes == c.bytes);
    }
}

TEST_CASE("inference: llama.cpp gives a fused attn_qkv its own branch (Pythia-2.8B in llama.cpp's CI log)") {
    // llama_tensor_get_type: attn_qkv.weight -> Q5_K under Q4_K_M, Q6_K under Q5_K_M, the default (Q2_K) under
    // Q2_K; llama.cpp's loader listed q4_K 81 / q5_K 32 / q6_K 17, q5_K 81 / q6_K 49 and q2_K 65 / q3_K 64
    // (tests/data/llamacpp_buffers.json). 32 layers of attn_qkv [7680 x 2560].
    const Scenario s = scenario(R"({"model": "pythia-2.8b", "workload": "infer"})");
    auto count = [&](const char* f, const char* type) {
        double n = 0;
        for (const auto& [t, e] : detail::weight_bytes(s.model, f, 128).gguf_mix)
            if (t == type) n += e;
        return n;
    };
    const double qkv = 32.0 * 7680 * 2560;
    CHECK(count("gguf-q4_k_m", "q5_k") == qkv);
    CHECK(count("gguf-q5_k_m", "q6_k") == qkv + 16.0 * 2560 * 10240 + 50304.0 * 2560);
    CHECK(count("gguf-q2_k", "q2_k") == qkv + 32.0 * 2560 * 10240 + 50304.0 * 2560);  // + ffn_up, token_embd
}

TEST_CASE("inference: llama.cpp Q4_K_M mix for Llama-3.1-8B") {
    // llama_tensor_get_type: attn_v and ffn_down of the 16 use_more_bits layers (0-3, 6, 9, ..., 27, 28-31)
    // go to Q6_K, the output head to Q6_K, 1-D tensors stay F32, everything else Q4_K: the 33 q6_K tensors
    // llama.cpp's loader lists for this model.
    const Scenario s = scenario(infer(R"(, "weights": "gguf-q4_k_m")"));
    const detail::WeightBytes w = detail::weight_bytes(s.model, "gguf-q4_k_m", 128);
    const double q6 = 16.0 * 1024 * 4096 + 16.0 * 4096 * 14336 + 128256.0 * 4096;
    const double f32 = 65.0 * 4096;
    const double q4 = 8030261248.0 - q6 - f32;
    double got_q6 = 0, got_q4 = 0, got_f32 = 0;
    for (const auto& [t, n] : w.gguf_mix) {
        if (t == "q6_k") got_q6 = n;
        else if (t == "q4_k") got_q4 = n;
        else if (t == "f32") got_f32 = n;
        else FAIL("unexpected type " << t);
    }
    CHECK(got_q6 == q6);
    CHECK(got_q4 == q4);
    CHECK(got_f32 == f32);
    CHECK(w.total() == Approx(q4 * 144 / 256 + q6 * 210 / 256 + f32 * 4).epsilon(1e-12));
    // Q3_K_M: attn_v of the first two layers Q5_K, ffn_down Q5_K below n/16, attn_output Q4_K.
    detail::GgufContext c{"q3_k_m", "llama", 32, 4, 0, false, false};
    CHECK(std::string(detail::gguf_tensor_type(c, "attn_v", 1, 4096).name) == "q5_k");
    CHECK(std::string(detail::gguf_tensor_type(c, "attn_v", 2, 4096).name) == "q4_k");
    CHECK(std::string(detail::gguf_tensor_type(c, "ffn_down", 1, 14336).name) == "q5_k");
    CHECK(std::string(detail::gguf_tensor_type(c, "attn_output", 5, 4096).name) == "q4_k");
    // A row length 256 does not divide falls back (tensor_type_fallback): Q4_K -> Q5_0.
    detail::GgufContext k{"q4_k_m", "llama", 32, 4, 0, false, false};
    CHECK(std::string(detail::gguf_tensor_type(k, "ffn_up", 5, 4800).name) == "q5_0");
}

TEST_CASE("inference: fp8 scales per tensor, per output channel and per 128x128 block") {
    ModelSpec one;
    one.layers = 1;
    one.params.push_back({"q_proj", ParamCategory::attention, Role::q, 7168, 1536, false, 1, true, false, 0});
    const double n = 7168.0 * 1536;
    CHECK(detail::weight_bytes(one, "fp8-channel", 128).total() == n + 4.0 * 7168);
    // DeepSeek-V3 weight_block_size [128, 128]: 56 x 12 blocks, one fp32 weight_scale_inv each.
    CHECK(detail::weight_bytes(one, "fp8-block", 128).total() == n + 4.0 * 56 * 12);
    one.params[0].rows = 7169;  // a partial block still has its scale
    CHECK(detail::weight_bytes(one, "fp8-block", 128).total() == 7169.0 * 1536 + 4.0 * 57 * 12);
}

TEST_CASE("inference: vLLM weights replicate norms, routers and MLA down-projections over TP") {
    // DeepSeek-V3 at tp 8: q_a_proj, kv_a_proj_with_mqa, router gates and norms stay whole on every rank,
    // so a rank holds more than 1/8 of the checkpoint; the absorbed MLA copies and the rope cache add more.
    const std::string base = R"({"model": "deepseek-v3", "workload": "infer", "framework": "vllm", "gpu": "h200",
                                 "weights": "fp8-block", "prompt_len": 4095, "gen_len": 1)";
    const Bill one = bill(base + "}");
    const Bill eight = bill(base + R"(, "num_gpus": 8, "tp": 8})");
    CHECK(static_cast<double>(eight.component("weights")) > static_cast<double>(one.component("weights")) / 8.0 + 0.9 * 1073741824.0);
}

TEST_CASE("inference: GPTQ and AWQ packing with group size") {
    const Scenario s = scenario(infer(""));
    ModelSpec one;
    one.layers = 1;
    one.params.push_back({"q_proj", ParamCategory::attention, Role::q, 4096, 4096, false, 1, true, false, 0});
    // GPTQ 4-bit, group 128: qweight 4096*4096/2, qzeros 32 groups x 4096/8 int32, fp16 scales, int32 g_idx.
    const double gptq = 4096.0 * 4096 / 2 + 32 * 512 * 4 + 32 * 4096 * 2 + 4096 * 4;
    CHECK(detail::weight_bytes(one, "gptq-int4", 128).total() == gptq);
    CHECK(detail::weight_bytes(one, "awq-int4", 128).total() == gptq - 4096 * 4);
    // Per-channel (-1): one group.
    CHECK(detail::weight_bytes(one, "gptq-int4", -1).total() == 4096.0 * 4096 / 2 + 512 * 4 + 4096 * 2 + 4096 * 4);
    (void)s;
    auto bad = scenario_from_text(infer(R"(, "weights": "gptq-int4", "group_size": 0)"), test::catalog());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error_text().find("group_size") != std::string::npos);
}

TEST_CASE("inference: KV cache bytes per token by engine") {
    // LitGPT's static cache: 128 KiB per token (formula_cases.json) x (prompt + new tokens) x batch.
    Bill b = bill(infer(R"(, "framework": "litgpt", "batch": 2, "prompt_len": 100, "gen_len": 28)"));
    CHECK(b.component("kv_cache") == 131072LL * 128 * 2);
    // fp8 halves it; q8_0 / q4_0 are ggml blocks.
    b = bill(infer(R"(, "framework": "litgpt", "batch": 2, "prompt_len": 100, "gen_len": 28, "kv_dtype": "fp8")"));
    CHECK(b.component("kv_cache") == 65536LL * 128 * 2);
    const Scenario q = scenario(infer(R"(, "framework": "llama.cpp", "kv_dtype": "q4_0")"));
    CHECK(detail::kv_element_bytes(q) == 18.0 / 32.0);
    // Gemma-2: alternate layers keep only the 4096-token window where the engine trims it.
    const Scenario g = scenario(R"({"model": "gemma-2-9b", "workload": "infer", "framework": "vllm"})");
    CHECK(detail::kv_bytes_for_tokens(g, 8192) == 21.0 * 2 * 8 * 256 * 2 * 8192 + 21.0 * 2 * 8 * 256 * 2 * 4096);
    const Scenario gl = scenario(R"({"model": "gemma-2-9b", "workload": "infer", "framework": "litgpt"})");
    CHECK(detail::kv_bytes_for_tokens(gl, 8192) == 344064.0 * 8192);
    // MLA: vLLM stores the latent (kv_lora_rank + rope) x layers; transformers expands per head.
    const Scenario mv = scenario(R"({"model": "deepseek-v2-lite", "workload": "infer", "framework": "vllm"})");
    const Scenario mh = scenario(R"({"model": "deepseek-v2-lite", "workload": "infer"})");
    CHECK(detail::kv_bytes_for_tokens(mv, 1) == (512.0 + 64) * 27 * 2);
    CHECK(detail::kv_bytes_for_tokens(mh, 1) == 16.0 * (192 + 128) * 27 * 2);
}

TEST_CASE("inference: vLLM block pool and sequences") {
    const Scenario s = scenario(infer(R"(, "framework": "vllm", "prompt_len": 1000, "gen_len": 24, "batch": 8)"));
    const Bill b = estimate(s);
    REQUIRE(b.kv_pool_bytes.has_value());
    // vLLM's budget is gpu_memory_utilization x the torch-visible total (MemorySnapshot.total_memory).
    const double total = static_cast<double>(s.gpu.memory_torch_bytes > 0 ? s.gpu.memory_torch_bytes : s.gpu.memory_bytes);
    const double budget = 0.9 * total;
    const double pool = budget - static_cast<double>(b.component("weights") + b.component("activations") + b.component("cuda_context"));
    CHECK(static_cast<double>(*b.kv_pool_bytes) == Approx(pool).margin(2.0));
    // 1024 tokens = 64 blocks of 16 tokens x 128 KiB.
    CHECK(*b.kv_pool_sequences == static_cast<std::int64_t>(static_cast<double>(*b.kv_pool_bytes) / (1024.0 * 131072)));
    CHECK(b.max_concurrent_sequences == std::min<std::int64_t>(*b.kv_pool_sequences, 256));
    CHECK(b.fits);
    // Tensor parallel 2: half the weights and KV heads per GPU, except what every rank keeps whole: the
    // RMSNorm weights (65 x 4096 bf16) and the rotary cos/sin cache (max_positions 131072 x 128 x 2 B).
    const Bill t = bill(infer(R"(, "framework": "vllm", "num_gpus": 2, "prompt_len": 1000, "gen_len": 24)"));
    const double whole = 65.0 * 4096 * 2 + 131072.0 * 128 * 2;
    CHECK(static_cast<double>(t.component("weights")) ==
          Approx((static_cast<double>(b.component("weights")) - whole) / 2.0 + whole).margin(1.0));
    CHECK(*t.kv_pool_sequences > 2 * *b.kv_pool_sequences);
}

TEST_CASE("inference: llama.cpp offload puts the rest in cpu_bytes") {
    const Bill all = bill(infer(R"(, "framework": "llama.cpp", "weights": "gguf-q4_k_m", "n_ctx": 8192)"));
    const Bill half = bill(infer(R"(, "framework": "llama.cpp", "weights": "gguf-q4_k_m", "n_ctx": 8192, "n_gpu_layers": 16)"));
    CHECK(all.component("kv_cache") == 131072LL * 8192);
    CHECK(half.component("kv_cache") == 131072LL * 8192 / 2);
    CHECK(half.cpu_bytes > 0);
    CHECK(half.component("weights") < all.component("weights") / 2);  // the output head stays on the CPU too
    CHECK(half.device_bytes < all.device_bytes);
}

TEST_CASE("inference: properties (batch, context, bits, kv dtype)") {
    for (const char* fw : {"hf", "litgpt", "torchtune", "vllm", "llama.cpp"}) {
        INFO(fw);
        const std::string f = std::string(R"(, "framework": ")") + fw + "\"";
        std::int64_t last = 0;
        for (int batch : {1, 2, 8, 32}) {
            const Bill b = bill(infer(f + R"(, "batch": )" + std::to_string(batch)));
            CHECK(b.peak_allocated_bytes >= last);
            last = b.peak_allocated_bytes;
        }
        last = 0;
        for (int len : {16, 1024, 8192, 30000}) {
            const Bill b = bill(infer(f + R"(, "prompt_len": )" + std::to_string(len) + R"(, "n_ctx": 32768)"));
            CHECK(b.peak_allocated_bytes >= last);
            last = b.peak_allocated_bytes;
        }
        const Bill bf = bill(infer(f + R"(, "kv_dtype": "bf16", "prompt_len": 4096)"));
        const Bill f8 = bill(infer(f + R"(, "kv_dtype": "fp8", "prompt_len": 4096)"));
        if (std::string(fw) == "vllm") CHECK(*f8.kv_pool_sequences >= *bf.kv_pool_sequences);
        else CHECK(f8.component("kv_cache") <= bf.component("kv_cache"));
    }
    // A lower-bit format never needs more weight memory (bits with their scales: GPTQ-8 8.19, fp8 8, nf4 4.5,
    // GPTQ-4 4.19 + g_idx, nf4-dq 4.13).
    const char* chain[] = {"fp32", "bf16", "gguf-q8_0", "gguf-q6_k", "gguf-q5_k_m", "gguf-q4_k_m", "gguf-q3_k_m", "gguf-q2_k"};
    std::int64_t prev = INT64_MAX;
    for (const char* f : chain) {
        INFO(f);
        const Bill b = bill(infer(std::string(R"(, "framework": "llama.cpp", "weights": ")") + f + "\""));
        CHECK(b.component("weights") <= prev);
        prev = b.component("weights");
    }
    prev = INT64_MAX;
    for (const char* f : {"bf16", "gptq-int8", "fp8", "nf4", "gptq-int4", "nf4-dq"}) {
        INFO(f);
        const Bill b = bill(infer(std::string(R"(, "weights": ")") + f + "\""));
        CHECK(b.component("weights") <= prev);
        prev = b.component("weights");
    }
}

TEST_CASE("inference: solvers and the rule of thumb") {
    const Bill b = bill(infer(R"(, "gpu": "rtx-4090", "prompt_len": 2048, "gen_len": 0)"));
    REQUIRE(b.max_context.has_value());
    CHECK(*b.max_context > 2048);
    CHECK(*b.max_concurrent_sequences >= 1);
    // The context solver's answer fits, one more does not grow past the budget unnoticed.
    const Bill at = bill(infer(R"(, "gpu": "rtx-4090", "gen_len": 0, "prompt_len": )" + std::to_string(*b.max_context)));
    CHECK(static_cast<double>(at.device_bytes) <= 0.9 * static_cast<double>(at.gpu.memory_bytes));
    CHECK(b.rule_of_thumb_bytes == static_cast<std::int64_t>(std::ceil(8030261248.0 * 2 * 1.2)));
    CHECK(b.rule_of_thumb_formula.find("1.2") != std::string::npos);
    const Bill t = bill(R"({"model": "llama-3.1-8b"})");
    CHECK(t.rule_of_thumb_bytes == 8030261248LL * 16);
    // The catalog solver fills the inference fields.
    const auto fits = solve_catalog(scenario(infer(R"(, "prompt_len": 4096)")), test::catalog().gpus());
    bool any = false;
    for (const auto& f : fits) any = any || (f.max_context > 0 && f.max_concurrent_sequences > 0);
    CHECK(any);
}

TEST_CASE("kv cache: bytes per token of the vLLM startup-log models match the logged pools") {
    // The logs' available_kv_cache_gib x 2^30 / kv_cache_tokens (shared/reference/vllm_startup_logs.json,
    // bf16 KV): Qwen3-VL-30B-A3B tp1 98,303; Qwen3-235B-A22B tp4 48,116 per GPU; DeepSeek-R1-0528 tp8
    // 70,275 (the MLA latent, kept whole on every GPU); Llama-3.3-70B tp4 81,921 per GPU. The logged GiB
    // are rounded to 0.01, so a few bytes either way.
    CHECK(kv_bytes_per_token(test::preset("qwen3-vl-30b-a3b"), 2, false) == 48 * 2 * 4 * 128 * 2);  // 98,304
    CHECK(kv_bytes_per_token(test::preset("qwen3-235b-a22b"), 2, false) / 4 == 48128);              // 4 KV heads over tp 4
    CHECK(kv_bytes_per_token(test::preset("deepseek-v3"), 2, true) == 61 * (512 + 64) * 2);         // 70,272
    CHECK(kv_bytes_per_token(test::preset("llama-3.3-70b"), 2, false) / 4 == 81920);
}

TEST_CASE("inference: LitGPT with bitsandbytes quantises lm_head and dequantises it at prefill") {
    // falcon-7b ties its head in the HF config; LitGPT's GPT has an lm_head of its own (65024 x 4544), and its
    // bitsandbytes plugin quantises it: nf4 0.5625 B per weight instead of being shared with the embedding.
    const std::string base = R"({"model": "falcon-7b", "workload": "infer", "gpu": "a100-40gb", "prompt_len": 7, "gen_len": 256)";
    const double head = 65024.0 * 4544;
    const Bill hf = bill(base + R"(, "framework": "hf", "weights": "nf4"})");
    const Bill lit = bill(base + R"(, "framework": "litgpt", "weights": "nf4"})");
    CHECK(static_cast<double>(lit.component("weights") - hf.component("weights")) == Approx(head * 0.5625).margin(1.0));
    // Prefill (7 rows) runs F.dequantize_4bit(...).to(bf16) on the head: fp16 + bf16 copies, 4 B per weight.
    CHECK(static_cast<double>(lit.component("temporaries")) == Approx(4.0 * head).margin(1.0));
    CHECK(lit.peak_phase == "prefill");
    // transformers quantises from the compute dtype (one copy) and leaves the head at 16 bit: its largest
    // 4-bit linear is an MLP projection (18176 x 4544), and loading it from an fp16 copy is the larger transient.
    const double mlp = 18176.0 * 4544;
    CHECK(static_cast<double>(hf.component("temporaries")) == Approx(2.0 * mlp + 0.5625 * mlp).margin(1.0));
    CHECK(hf.peak_phase == "load");
    // One prompt token: the decode path (gemv_4bit) dequantises nothing.
    const Bill one = bill(R"({"model": "falcon-7b", "workload": "infer", "gpu": "a100-40gb", "prompt_len": 1, "gen_len": 256, "framework": "litgpt", "weights": "nf4"})");
    CHECK(one.component("temporaries") < lit.component("temporaries"));
    // LLM.int8: loading holds the fp16 copy, CB and CBt of the largest weight (4 B per weight) with the weights.
    const Bill i8 = bill(base + R"(, "framework": "litgpt", "weights": "int8"})");
    CHECK(i8.peak_phase == "load");
    CHECK(static_cast<double>(i8.component("temporaries")) == Approx(4.0 * head).margin(1.0));
    CHECK(i8.component("kv_cache") == 0);
}

TEST_CASE("inference: vLLM's profile run holds the fused-MoE workspace while it samples") {
    // Qwen3-30B-A3B: hidden 2048, 128 experts of width 768, top-8. TritonExperts' workspaces for 8192 tokens:
    // 8192 x 8 rows x (max(N, K) + max(N/2, K)) = 65536 x (2048 + 2048) bf16 elements, N = 2 x 768.
    const Bill b = bill(R"({"model": "qwen3-30b-a3b", "workload": "infer", "framework": "vllm", "gpu": "h100-80gb",
                           "max_num_batched_tokens": 8192, "max_num_seqs": 1024, "vllm_sampler": "sort"})");
    const double workspace = 8192.0 * 8 * (2048 + 2048) * 2;
    const double sampler = 1024.0 * 151936 * 38;  // the sorting sampler over 1024 rows (vllm_engine.cpp)
    const double hidden = 8192.0 * 2048 * 2;      // the forward's hidden states, still held
    CHECK(static_cast<double>(b.component("activations")) == Approx(sampler + workspace + hidden).margin(2.0));
    // A dense model has no workspace: its sampler phase is the sampler alone.
    const Bill d = bill(R"({"model": "qwen3-8b", "workload": "infer", "framework": "vllm", "gpu": "h100-80gb",
                           "max_num_batched_tokens": 8192, "max_num_seqs": 1024, "vllm_sampler": "sort"})");
    CHECK(static_cast<double>(d.component("activations")) == Approx(1024.0 * 151936 * 38).margin(2.0));
}

TEST_CASE("inference: vLLM's profiled sampler, sorted (v0.16 and earlier) or Triton top-k/top-p (v0.17+)") {
    // Llama-3.1-8B: the sampler over 1024 rows of 128,256 logits outweighs one layer's forward of 8192 tokens.
    const std::string base = R"(, "framework": "vllm", "gpu": "h100-80gb", "max_num_seqs": 1024, "max_num_batched_tokens": 8192)";
    const double V = 128256;
    const Bill sorted = bill(infer(base + R"(, "vllm_sampler": "sort")"));
    const Bill triton = bill(infer(base));  // the default
    CHECK(sorted.component("activations") == static_cast<std::int64_t>(1024 * V * 38));
    // fp16 logits 2 + fp32 logits 4 + probabilities 4 + noise 4 per logit, and 132 rows of fp32 scratch.
    CHECK(triton.component("activations") == static_cast<std::int64_t>(1024 * V * 14 + 132 * V * 4));
    CHECK(triton.component("kv_cache") > sorted.component("kv_cache"));
}

TEST_CASE("inference: llama.cpp's compute buffer is the largest set of f32 tensors alive at once") {
    // Pythia-2.8B, n_ctx 2048, n_ubatch 512 (llama.cpp's CI log, tests/data/llamacpp_buffers.json): without flash
    // attention the KQ scores and mask beside the residual stream, the fused qkv output and the roped Q and K;
    // with it the logits and the final norm's output.
    const double MiB = 1048576.0;
    const std::string base = R"({"model": "pythia-2.8b", "workload": "infer", "framework": "llama.cpp", "weights": "gguf-q4_0",
                                 "n_ctx": 2048, "n_ubatch": 512, "gpu": "v100-16gb", "attention": )";
    const double ub = 512, ctx = 2048;
    const Bill eager = bill(base + R"("eager"})");
    CHECK(static_cast<double>(eager.component("compute_buffer")) == (33 * ctx * ub * 4 + ub * 4 * (2560 + 3 * 2560 + 2 * 2560)));
    CHECK(static_cast<double>(eager.component("compute_buffer")) == 162 * MiB);
    const Bill flash = bill(base + R"("flash"})");
    CHECK(static_cast<double>(flash.component("compute_buffer")) == Approx(103.25 * MiB).margin(1));
}

TEST_CASE("inference: transformers' legacy tuple cache holds the previous step's cache through the forward") {
    // qwen-7b: 32 layers x 2 x 4096 x 2 B = 524288 B per token. One prompt token and 2048 new ones end with
    // 2049 cached tokens; with hf_cache tuple the previous tuple (2048 tokens) is alive until the forward returns.
    const std::string base = R"({"model": "qwen-7b", "workload": "infer", "gpu": "a100-80gb", "prompt_len": 1, "gen_len": 2048)";
    const Bill dyn = bill(base + "}");
    const Bill tup = bill(base + R"(, "hf_cache": "tuple"})");
    CHECK(dyn.component("kv_cache") == 524288LL * 2049);
    CHECK(tup.component("kv_cache") == 524288LL * 2049);
    CHECK(dyn.component("temporaries") == 0);
    CHECK(tup.component("temporaries") == 524288LL * 2048);
    CHECK(tup.peak_phase == "decode");
    // DynamicCache concatenates one layer's K (or V) at a time: 1/64 of the cache, not the whole old copy.
    CHECK(dyn.component("activations") - tup.component("activations") == 524288LL * 2049 / 64);
    // Batch scales it; the static caches of LitGPT and torchtune have no tuple, so the key changes nothing there.
    const Bill four = bill(base + R"(, "hf_cache": "tuple", "batch": 4})");
    CHECK(four.component("temporaries") == 4 * 524288LL * 2048);
    const Bill lit = bill(base + R"(, "framework": "litgpt"})");
    const Bill lit_tuple = bill(base + R"(, "framework": "litgpt", "hf_cache": "tuple"})");
    CHECK(lit.peak_allocated_bytes == lit_tuple.peak_allocated_bytes);
    CHECK(lit.warnings.size() + 1 == lit_tuple.warnings.size());
}

TEST_CASE("inference: transformers' prefill holds four hidden-wide tensors, Phi-3's fused gate_up four MLP-wide ones") {
    // Phi-3-mini (h 3072, intermediate 8192, fused gate_up_proj) at batch 16 x 2048 in bf16: the last layer's MLP is
    // the peak, with inputs_embeds, the layer's input, the residual sum and its normed copy (4 T h c) and gate_up's
    // output (2 T I c, kept by its chunk views), act_fn(gate) and the product (T I c each).
    const Bill phi = bill(R"({"model": "phi-3-mini-4k-instruct", "workload": "infer", "gpu": "h200", "batch": 16,
        "prompt_len": 2048, "gen_len": 64})");
    const std::int64_t T = 16 * 2048;
    CHECK(phi.peak_phase == "prefill");
    CHECK(phi.component("activations") == 4 * T * 3072 * 2 + 4 * T * 8192 * 2);
    // The logits come after the layers have freed their working memory: not at this peak.
    CHECK(phi.component("logits") == 0);
}

TEST_CASE("inference: generate's prefill on the caching allocator: the cache's copies pin the transients' segments") {
    // Each layer's K and V copies are carved from the segments its transients freed; a segment that holds them
    // cannot serve the next layer's transient of its size, so what is left beside them stays reserved. More
    // layers, more such segments: the reserve above the allocated peak grows with the layer count.
    detail::PrefillLayer l;
    const double T = 16.0 * 2048;
    l.hidden = T * 3072 * 2;
    l.norm_fp32 = T * 3072 * 4;
    l.q = l.attn_out = T * 3072 * 2;
    l.kv = l.kv_block = T * 3072 * 2;
    l.mlp = T * 8192 * 2;
    l.fused_qkv = l.fused_gate_up = true;
    const double w = 7.7e9;
    const detail::PrefillReserve r16 = detail::replay_prefill(w, l, 16, 0);
    const detail::PrefillReserve r32 = detail::replay_prefill(w, l, 32, 0);
    CHECK(r16.reserved >= r16.allocated);
    CHECK(r32.reserved - r32.allocated > r16.reserved - r16.allocated);
    // 192 MiB blocks, two to a 512 MiB segment: 128 MiB lost per layer once the cache spreads over them.
    CHECK((r32.reserved - r32.allocated) - (r16.reserved - r16.allocated) == Approx(16.0 * 128 * 1048576).epsilon(0.15));
    // Without a cache nothing pins the transients: the reserve stays within one MLP-wide segment.
    l.kv_block = 0;
    const detail::PrefillReserve none = detail::replay_prefill(w, l, 32, 0);
    CHECK(none.reserved - none.allocated <= 2 * l.mlp);
    // The bill takes the replay's reserve and says so.
    const Bill phi = bill(R"({"model": "phi-3-mini-4k-instruct", "workload": "infer", "gpu": "h200", "batch": 16,
        "prompt_len": 2048, "gen_len": 64})");
    CHECK(phi.replay_reserve_bytes > 0);
    bool named = false;
    for (const Component& c : phi.components)
        if (c.id == "allocator_slack") named = c.detail.find("generate's prefill") != std::string::npos;
    CHECK(named);
}

}  // namespace unit_inference
}  // namespace
