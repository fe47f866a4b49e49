// The simple parts of the bill, pinned against hand-computed byte counts.
#include <catch2/catch.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_estimate {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {
Bill bill(const char* text) {
    auto r = scenario_from_text(text, test::catalog());
    INFO(r.error_text());
    REQUIRE(r.ok());
    return estimate(*r);
}
constexpr std::int64_t kLlama8B = 8030261248;
constexpr std::int64_t kContext = 787LL << 20;  // a torch run's context and libraries (runtime.cpp, measured on an H200)
}  // namespace

TEST_CASE("estimate: full fine-tuning model states by recipe") {
    struct Case {
        const char* scenario;
        std::int64_t weights, master, grads, optimizer;
    };
    const std::int64_t P = kLlama8B;
    const Case cases[] = {
        // HF Trainer AMP: fp32 model, fp32 grads, two fp32 Adam states = 16 B/param.
        {R"({"model": "llama-3.1-8b", "grad_accum": 2, "precision": "bf16-mixed"})", 4 * P, 0, 4 * P, 8 * P},
        // DeepSpeed mixed precision: 2 + 4 (master) + 2 + 8 = 16 B/param (ZeRO paper).
        {R"({"model": "llama-3.1-8b", "grad_accum": 2, "precision": "bf16-mixed", "framework": "deepspeed"})", 2 * P, 4 * P, 2 * P, 8 * P},
        // Megatron: fp32 main grads: 18 B/param.
        {R"({"model": "llama-3.1-8b", "grad_accum": 2, "precision": "bf16-mixed", "framework": "megatron"})", 2 * P, 4 * P, 4 * P, 8 * P},
        // bf16-true (torchtune): 8 B/param.
        {R"({"model": "llama-3.1-8b", "grad_accum": 2, "precision": "bf16", "framework": "torchtune"})", 2 * P, 0, 2 * P, 4 * P},
        {R"({"model": "llama-3.1-8b", "grad_accum": 2, "precision": "fp32", "optimizer": "sgd"})", 4 * P, 0, 4 * P, 0},
        {R"({"model": "llama-3.1-8b", "grad_accum": 2, "precision": "fp32", "optimizer": "sgd-momentum"})", 4 * P, 0, 4 * P, 4 * P},
        {R"({"model": "llama-3.1-8b", "grad_accum": 2, "precision": "bf16", "optimizer": "lion"})", 2 * P, 0, 2 * P, 2 * P},
    };
    for (const auto& c : cases) {
        INFO(c.scenario);
        const Bill b = bill(c.scenario);
        CHECK(b.component("weights") == c.weights);
        CHECK(b.component("master_weights") == c.master);
        CHECK(b.component("gradients") == c.grads);
        CHECK(b.component("optimizer") == c.optimizer);
        CHECK(b.component("cuda_context") == kContext);
        CHECK(b.trainable_parameters == P);
    }
}

TEST_CASE("estimate: LoRA adapters on q_proj and v_proj of Llama-3.1-8B") {
    // Per layer: q_proj 4096 -> 4096 and v_proj 4096 -> 1024 (GQA); rank 8: 8 x (4096+4096) + 8 x (4096+1024).
    const std::int64_t adapters = 32LL * (8 * (4096 + 4096) + 8 * (4096 + 1024));
    const Bill b = bill(R"({"model": "llama-3.1-8b", "method": "lora", "precision": "bf16", "grad_accum": 4})");
    CHECK(b.trainable_parameters == adapters);
    CHECK(b.component("weights") == 2 * kLlama8B);  // frozen bf16 base
    CHECK(b.component("lora") == 4 * adapters);     // PEFT keeps adapters in fp32
    CHECK(b.component("gradients") == 4 * adapters);
    CHECK(b.component("optimizer") == 8 * adapters);
}

TEST_CASE("estimate: QLoRA nf4 base weights") {
    const Bill b = bill(R"({"model": "llama-3.1-8b", "method": "qlora", "quantization": "nf4", "framework": "torchtune",
                           "precision": "bf16"})");
    // Linear layers (all but the 525M-param embedding and lm_head) at 4.5 bits; the rest in bf16.
    const double linear = 8030261248.0 - 2 * 525336576.0 - 32 * 2 * 4096 - 4096;
    const double expected = linear * 0.5625 + (2 * 525336576.0 + 32 * 2 * 4096 + 4096) * 2;
    CHECK(static_cast<double>(b.component("weights")) == Approx(expected).epsilon(1e-9));
}

TEST_CASE("estimate: inference weights and KV cache") {
    const Bill b = bill(R"({"model": "llama-3.1-8b", "workload": "infer", "weights": "bf16", "batch": 4,
                           "prompt_len": 1000, "gen_len": 24})");
    CHECK(b.component("weights") == 2 * kLlama8B);
    // 128 KiB per token (formula_cases.json); the peak is the prefill of 4 x 1000 prompt tokens (inference.cpp).
    CHECK(b.component("kv_cache") == 131072LL * 1000 * 4);
    const Bill q = bill(R"({"model": "llama-3.1-8b", "workload": "infer", "weights": "gptq-int4"})");
    CHECK(q.component("weights") < b.component("weights") / 2);  // 16-bit embeddings and lm_head stay
    REQUIRE(b.max_batch.has_value());
    CHECK(*b.max_batch > 0);
}

TEST_CASE("estimate: totals are the sum of components and fits agrees with the numbers") {
    const char* scenarios[] = {R"({"model": "llama-3.1-8b"})", R"({"model": "llama-3.1-70b", "gpu": "rtx-4090"})",
                               R"({"model": "qwen2.5-7b", "workload": "infer", "batch": 64})"};
    for (const char* s : scenarios) {
        INFO(s);
        const Bill b = bill(s);
        std::int64_t sum = 0;
        for (const auto& c : b.components) {
            CHECK(c.bytes >= 0);
            sum += c.bytes;
        }
        CHECK(sum == b.device_bytes);
        CHECK(b.peak_allocated_bytes <= b.peak_reserved_bytes);
        CHECK(b.peak_reserved_bytes <= b.device_bytes);
        CHECK(b.fits == (b.device_bytes <= b.gpu.memory_bytes));
    }
    CHECK_FALSE(bill(R"({"model": "llama-3.1-70b", "gpu": "rtx-4090"})").fits);
}

TEST_CASE("estimate: optimizer in backward never holds the full gradient set") {
    const char* base = R"({"model": "llama-3.2-3b", "framework": "torchtune", "gpu": "a100-80gb", "method": "full",
        "precision": "bf16", "micro_batch": 2, "seq_len": 4096, "checkpointing": "full", "loss": "chunked")";
    const Bill plain = bill((std::string(base) + "}").c_str());
    const Bill oib = bill((std::string(base) + R"(, "optimizer_in_backward": true})").c_str());
    const std::int64_t params = plain.parameters;
    // Without it the step holds every bf16 gradient at once (and the foreach temporaries); with it only
    // one layer's gradients are ever in flight.
    CHECK(plain.component("gradients") == 2 * params);
    CHECK(oib.component("gradients") == 0);
    CHECK(oib.peak_allocated_bytes < plain.peak_allocated_bytes);
    CHECK(plain.peak_phase == "optimizer");
    CHECK(oib.peak_phase != "optimizer");
    // torchtune refuses gradient accumulation with optimizer_in_bwd; so does the scenario.
    auto bad = scenario_from_text(R"({"model": "llama-3.2-3b", "optimizer_in_backward": true, "grad_accum": 4})",
                                  test::catalog());
    CHECK_FALSE(bad.ok());
}

TEST_CASE("estimate: LitGPT keeps its own lm_head for a tied model") {
    const char* tmpl = R"({"model": "llama-3.2-1b", "framework": "%s", "method": "lora", "precision": "bf16",
        "micro_batch": 1, "seq_len": 512})";
    char a[512], b[512];
    std::snprintf(a, sizeof a, tmpl, "litgpt");
    std::snprintf(b, sizeof b, tmpl, "torchtune");
    const Bill lit = bill(a), tt = bill(b);
    // 128256 x 2048 bf16: the copy of the tied embedding LitGPT's converter writes into lm_head.weight.
    CHECK(lit.component("weights") - tt.component("weights") == 128256LL * 2048 * 2);
}

TEST_CASE("estimate: AdamW's step transient by implementation (adamw_impl)") {
    // bert-large-uncased, fp32, batch 1 with checkpointing: the optimizer step is the peak. foreach builds
    // sqrt(exp_avg_sq) for every parameter (4 B each); transformers' for-loop AdamW (the Trainer's adamw_hf) for
    // one parameter at a time, the largest being the word embeddings (30522 x 1024); the fused kernel none.
    const std::string base = R"({"model": "bert-large-uncased", "gpu": "v100-16gb", "precision": "fp32", "micro_batch": 1,
        "seq_len": 512, "checkpointing": "full")";
    const Bill foreach = bill((base + R"(, "adamw_impl": "foreach"})").c_str());
    const Bill loop = bill((base + R"(, "adamw_impl": "for-loop"})").c_str());
    const Bill fused = bill((base + R"(, "adamw_impl": "fused"})").c_str());
    REQUIRE(foreach.peak_phase == "optimizer");
    CHECK(foreach.component("temporaries") == 4 * foreach.trainable_parameters);
    CHECK(loop.component("temporaries") == 4LL * 30522 * 1024);
    CHECK(fused.peak_allocated_bytes <= loop.peak_allocated_bytes);
    CHECK(loop.peak_allocated_bytes < foreach.peak_allocated_bytes);
    // Not AdamW: the key changes nothing.
    const Bill sgd = bill((base + R"(, "optimizer": "sgd-momentum"})").c_str());
    const Bill sgd_loop = bill((base + R"(, "optimizer": "sgd-momentum", "adamw_impl": "for-loop"})").c_str());
    CHECK(sgd.peak_allocated_bytes == sgd_loop.peak_allocated_bytes);
}

TEST_CASE("estimate: zero_grad(set_to_none=False) keeps the gradients through the next forward") {
    // bert-large-uncased, fp32, batch 4, no accumulation: the peak is early in backward. With set_to_none the
    // gradients of the last layers only exist there; PyTorch 1.x's zero_grad() zeroes them in place instead,
    // so all 4 B per parameter are allocated at the peak.
    const std::string base = R"({"model": "bert-large-uncased", "gpu": "v100-16gb", "precision": "fp32", "micro_batch": 4,
        "seq_len": 512, "attention": "eager")";
    const Bill freed = bill((base + "}").c_str());
    const Bill kept = bill((base + R"(, "zero_grad_set_to_none": false})").c_str());
    CHECK(freed.component("gradients") < 4 * freed.trainable_parameters);
    CHECK(kept.component("gradients") == 4 * kept.trainable_parameters);
    CHECK(kept.peak_allocated_bytes - freed.peak_allocated_bytes == 4 * kept.trainable_parameters - freed.component("gradients"));
    // With accumulation they persist either way.
    const Bill accum = bill((base + R"(, "grad_accum": 2})").c_str());
    const Bill accum_kept = bill((base + R"(, "grad_accum": 2, "zero_grad_set_to_none": false})").c_str());
    CHECK(accum.peak_allocated_bytes == accum_kept.peak_allocated_bytes);
}

TEST_CASE("estimate: paged optimizer states that do not fit beside the rest page out to host RAM") {
    // torchtune's README ran Llama 3.1 8B full fine-tuning with PagedAdamW8bit on an RTX 4090 (24 GB):
    // 15.2 GiB of 8-bit states beside ~19.6 GiB reserved. Unified memory keeps the overflow on the host.
    const Bill b = bill(R"({"model": "llama-3.1-8b", "framework": "torchtune", "gpu": "rtx-4090", "precision": "bf16",
        "optimizer": "paged-adamw-8bit", "micro_batch": 2, "seq_len": 2048, "checkpointing": "full",
        "optimizer_in_backward": true, "compile": true, "loss": "chunked"})");
    REQUIRE(b.paged_to_host_bytes > 0);
    CHECK(b.fits);
    CHECK(b.device_bytes == b.gpu.memory_bytes);
    const std::int64_t states = 2 * 8030261248LL;  // two 8-bit states per parameter (block absmax on top)
    CHECK(b.component("optimizer") + b.paged_to_host_bytes >= states);
    CHECK(b.cpu_bytes == b.paged_to_host_bytes);
    CHECK(b.device_bytes == b.peak_reserved_bytes + b.torch_uncounted_bytes + b.component("cuda_context"));
    // On an 80 GB GPU nothing pages out; where even the rest does not fit, nothing is moved either.
    const Bill big = bill(R"({"model": "llama-3.1-8b", "gpu": "h100-80gb", "precision": "bf16", "optimizer": "paged-adamw-8bit"})");
    CHECK(big.paged_to_host_bytes == 0);
    const Bill over = bill(R"({"model": "llama-3.1-70b", "gpu": "rtx-4090", "precision": "bf16", "optimizer": "paged-adamw-8bit"})");
    CHECK(over.paged_to_host_bytes == 0);
    CHECK_FALSE(over.fits);
    // The per-GPU table sizes each GPU on its own: an 80 GB card holds every state, a 24 GB one pages.
    const Scenario sc = test::scenario(nlohmann::json::parse(R"({"model": "llama-3.1-8b", "framework": "torchtune",
        "gpu": "rtx-4090", "precision": "bf16", "optimizer": "paged-adamw-8bit", "micro_batch": 2, "seq_len": 2048,
        "checkpointing": "full", "optimizer_in_backward": true, "compile": true, "loss": "chunked"})"));
    const auto fits = solve_catalog(sc, test::catalog().gpus());
    bool saw_big = false;
    for (const auto& f : fits) {
        INFO(f.gpu.id);
        if (f.fits) CHECK(f.device_bytes <= f.gpu.memory_bytes);
        if (f.gpu.id == "h100-80gb") {
            saw_big = true;
            CHECK(f.device_bytes > b.gpu.memory_bytes);  // the whole 35 GiB, not capped at the 4090's 24
            CHECK(f.fits);
        }
    }
    CHECK(saw_big);
}

// Issue 41: the largest micro-batch names what it rests on (checkpointing, seq_len) and the figure with full
// checkpointing beside it, in the bill, its JSON and its text.
TEST_CASE("estimate: the largest micro-batch says its checkpointing and the full-checkpointing figure") {
    const Bill none = bill(R"({"model": "llama-3.1-8b", "method": "lora", "gpu": "h100-80gb", "checkpointing": "none"})");
    const Bill full = bill(R"({"model": "llama-3.1-8b", "method": "lora", "gpu": "h100-80gb", "checkpointing": "full"})");
    REQUIRE(none.max_micro_batch);
    REQUIRE(full.max_micro_batch);
    CHECK(none.max_micro_batch_checkpointing == "none");
    CHECK(none.max_micro_batch_seq_len == 2048);
    REQUIRE(none.max_micro_batch_full_checkpointing);
    CHECK(*none.max_micro_batch_full_checkpointing == *full.max_micro_batch);  // the same solve as the scenario with it
    CHECK(*none.max_micro_batch_full_checkpointing > *none.max_micro_batch);
    CHECK_FALSE(full.max_micro_batch_full_checkpointing);  // already the saver: no second figure
    CHECK(max_micro_batch_text(none) == std::to_string(*none.max_micro_batch) + " (seq_len 2048, no checkpointing; " +
                                            std::to_string(*full.max_micro_batch) + " with full checkpointing)");
    CHECK(max_micro_batch_text(full) == std::to_string(*full.max_micro_batch) + " (seq_len 2048, full checkpointing)");
    const nlohmann::json j = bill_to_json(none);
    CHECK(j["max_micro_batch"] == *none.max_micro_batch);  // the spec's field is unchanged
    CHECK(j["max_micro_batch_assumes"]["checkpointing"] == "none");
    CHECK(j["max_micro_batch_assumes"]["seq_len"] == 2048);
    CHECK(j["max_micro_batch_full_checkpointing"] == *full.max_micro_batch);
    CHECK_FALSE(bill_to_json(full).contains("max_micro_batch_full_checkpointing"));
    CHECK(bill_to_markdown(none).find("Largest micro-batch that fits: " + max_micro_batch_text(none)) != std::string::npos);
}

TEST_CASE("estimate: a largest micro-batch of 0 reads 'none, not even 1', never a bare 0") {
    // Full fine-tuning as transformers 4 ran it (an fp32 model under AMP, 16 B/param): over 80 GB.
    const Bill b = bill(R"({"model": "llama-3.1-8b", "gpu": "h100-80gb", "transformers": 4})");
    REQUIRE(b.max_micro_batch);
    CHECK(*b.max_micro_batch == 0);
    const std::string text = max_micro_batch_text(b);
    CHECK(text.rfind("none, not even 1 (", 0) == 0);
    CHECK(text.find("not even 1 with full checkpointing") != std::string::npos);
}

// Issue 41: the rule of thumb beside the bill compares like with like. It is per GPU as the bill is (ZeRO's
// per-rank figures, ZeRO paper Sec. 5), and under vLLM it is compared with the bill less the KV blocks the
// engine reserves beyond the batch (its pool fills gpu_memory_utilization whatever the batch).
TEST_CASE("estimate: the rule of thumb is per GPU under ZeRO and compared without vLLM's unused KV blocks") {
    auto bill_of = [](const char* text) {
        auto s = scenario_from_text(text, test::catalog());
        INFO(text << "\n"
                  << s.error_text());
        REQUIRE(s.ok());
        return estimate(*s);
    };
    const Bill one = bill_of(R"({"model": "qwen2.5-7b", "method": "full", "num_gpus": 1})");
    const double P = static_cast<double>(one.parameters);
    CHECK(one.rule_of_thumb_bytes == static_cast<std::int64_t>(std::ceil(P * 16)));
    struct Case {
        const char* text;
        double bytes_per_param;
        const char* says;
    } cases[] = {
        {R"({"model": "qwen2.5-7b", "method": "full", "num_gpus": 8, "sharding": "zero3"})", 16.0 / 8, "ZeRO-3 over 8 GPUs"},
        {R"({"model": "qwen2.5-7b", "method": "full", "num_gpus": 8, "sharding": "fsdp-full"})", 16.0 / 8, "FSDP FULL_SHARD over 8 GPUs"},
        {R"({"model": "qwen2.5-7b", "method": "full", "num_gpus": 8, "sharding": "zero2"})", 2 + 14.0 / 8, "ZeRO-2 over 8 GPUs"},
        {R"({"model": "qwen2.5-7b", "method": "full", "num_gpus": 8, "sharding": "zero1"})", 4 + 12.0 / 8, "ZeRO-1 over 8 GPUs"},
        {R"({"model": "qwen2.5-7b", "method": "lora", "num_gpus": 4, "sharding": "zero3"})", 2.0 / 4, "ZeRO-3 shards the base"},
        {R"({"model": "qwen2.5-7b", "method": "full", "num_gpus": 8, "tp": 2, "sharding": "zero3"})", 16.0 / 4 / 2, "/ 2 (tp x pp)"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const Bill b = bill_of(c.text);
        CHECK(static_cast<double>(b.rule_of_thumb_bytes) == Approx(P * c.bytes_per_param).epsilon(1e-9));
        CHECK(b.rule_of_thumb_formula.find(c.says) != std::string::npos);
        CHECK(rule_of_thumb_basis_bytes(b) == b.device_bytes);
        CHECK(rule_of_thumb_comparison(b).find(" against this bill") != std::string::npos);
    }
    // ZeRO-3 on 8 GPUs: the per-GPU rule is below the per-GPU bill (it counts no activations), not 8 x it.
    const Bill z3 = bill_of(cases[0].text);
    CHECK(z3.rule_of_thumb_bytes < z3.device_bytes);
    // vLLM's defaults: the pool fills the budget, the rule's 20 % covers the batch's own blocks.
    const Bill v = bill_of(R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "gpu": "h100-80gb"})");
    REQUIRE(v.kv_pool_bytes);
    const std::int64_t basis = rule_of_thumb_basis_bytes(v);
    CHECK(basis < v.device_bytes - *v.kv_pool_bytes / 2);
    CHECK(static_cast<double>(v.rule_of_thumb_bytes) == Approx(static_cast<double>(basis)).epsilon(0.2));  // within 20 %, was -76 %
    CHECK(rule_of_thumb_comparison(v).find("without the KV blocks vLLM reserves beyond the batch") != std::string::npos);
    CHECK(v.rule_of_thumb_formula.find("does not count vLLM's KV pool") != std::string::npos);
    CHECK(bill_to_json(v)["rule_of_thumb_basis_bytes"] == basis);
}

}  // namespace unit_estimate
}  // namespace
