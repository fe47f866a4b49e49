// FLOPs from the model description against published formulas, and the time model's structure.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "time/flops.hpp"
#include "time/speed.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_time {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {

// A GPT block as Megatron-LM counts it: MHA, 4h MLP, untied-free (tied) head; GPT-2 layout.
Scenario gpt(std::int64_t h, std::int64_t layers, std::int64_t heads, std::int64_t vocab, std::int64_t s, const char* ckpt) {
    const nlohmann::json config = {{"model_type", "gpt2"}, {"vocab_size", vocab}, {"n_embd", h}, {"n_layer", layers}, {"n_head", heads}, {"n_positions", s}};
    return test::scenario({{"model", config}, {"micro_batch", 1}, {"seq_len", s}, {"checkpointing", ckpt}});
}

}  // namespace

TEST_CASE("time: training FLOPs equal Megatron-LM's model-FLOPs formula (Narayanan et al. 2021, Sec. 5.1)") {
    // 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) without recomputation; 96 B s l h^2 (1 + s/(6h) + V/(16 l h))
    // with full activation recomputation (one more forward of the layers).
    const double h = 4096, l = 32, V = 50257, s = 2048, B = 1;
    const auto none = detail::training_flops(gpt(4096, 32, 32, 50257, 2048, "none"));
    const auto full = detail::training_flops(gpt(4096, 32, 32, 50257, 2048, "full"));
    CHECK(none.executed() == Approx(72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))).epsilon(1e-12));
    CHECK(full.executed() == Approx(96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))).epsilon(1e-12));
    CHECK(full.model() == none.model());  // MFU's numerator ignores recomputation
}

TEST_CASE("time: the 6 N per token rule (Kaplan et al. 2020) holds for the non-attention part") {
    const Scenario sc = test::scenario({{"model", "llama-3.1-8b"}, {"micro_batch", 1}, {"seq_len", 1}});
    const auto f = detail::training_flops(sc);
    const ParamBreakdown p = count_parameters(sc.model);
    // Every parameter but the input embedding (a lookup) is a matmul weight: 6 x that many FLOPs per token.
    const double matmul_params = static_cast<double>(p.total - p.embeddings);
    CHECK(f.executed() == Approx(6 * matmul_params + 6 * 2.0 * 32 * 32 * 128 * 2).epsilon(1e-3));
}

TEST_CASE("time: LoRA trains no base weight gradients, MoE counts active experts only") {
    const auto full = detail::training_flops(test::scenario({{"model", "llama-3.1-8b"}, {"seq_len", 1024}}));
    const auto lora = detail::training_flops(test::scenario({{"model", "llama-3.1-8b"}, {"seq_len", 1024}, {"method", "lora"}}));
    CHECK(lora.executed() < full.executed());
    CHECK(lora.executed() > 0.6 * full.executed());  // forward + input gradients: about 2/3 of 3 passes
    const Scenario moe = test::scenario({{"model", "mixtral-8x7b-v0.1"}, {"seq_len", 1}});
    const ParamBreakdown p = count_parameters(moe.model);
    CHECK(detail::training_flops(moe).executed() == Approx(6.0 * static_cast<double>(p.active - p.embeddings)).epsilon(0.01));
}

TEST_CASE("time: checkpoint offload recomputes like full checkpointing, torch.compile runs 1.16x faster") {
    // `offload` keeps the same checkpoints as `full`, in host memory: backward still reruns each layer.
    const auto full = detail::training_flops(gpt(4096, 32, 32, 50257, 2048, "full"));
    const auto off = detail::training_flops(gpt(4096, 32, 32, 50257, 2048, "offload"));
    CHECK(off.recompute > 0);
    CHECK(off.executed() == full.executed());
    using nlohmann::json;
    const json eager = {{"model", "llama-3.2-3b"}, {"framework", "torchtune"}, {"gpu", "a100-80gb"}, {"micro_batch", 2}, {"seq_len", 4096}, {"checkpointing", "none"}};
    json compiled = eager;
    compiled["compile"] = true;
    const Bill e = estimate(test::scenario(eager)), c = estimate(test::scenario(compiled));
    REQUIRE(e.speed);
    REQUIRE(c.speed);
    // torchtitan's H100 ablation: 5762 -> 6667 and 5605 -> 6514 tokens/s/GPU with compile (x1.157, x1.162).
    CHECK(detail::compile_speedup(test::scenario(compiled)) == 1.16);
    CHECK(c.speed->compute_s == Approx(e.speed->compute_s / 1.16));
    CHECK(c.speed->basis.find("torch.compile") != std::string::npos);
    CHECK(e.speed->basis.find("torch.compile") == std::string::npos);
    // Checked against torchtune's README (Llama 3.2 3B, one A100): "+ Compile" over "+ Packed Dataset" is
    // x1.27 measured; the model's ratio is the fit's 1.16 where compute bounds the step.
    // (the optimizer step after backward is not compiled: it is left out of the ratio).
    CHECK((e.speed->step_s - e.speed->optimizer_s) / (c.speed->step_s - c.speed->optimizer_s) == Approx(1.16).epsilon(0.01));
    // An MFU the user sets is their run's own (compiled or not): compile does not multiply it again.
    json own = compiled;
    own["mfu"] = 0.4;
    CHECK(detail::compile_speedup(test::scenario(own)) == 1.0);
    CHECK(estimate(test::scenario(own)).speed->basis.find("torch.compile") == std::string::npos);
}

TEST_CASE("time: Hopper's default MFU is torchtitan's eager figure, compile reaches its compiled one") {
    // torchtitan llama3_h100_202412: eager 5762 tokens/s/GPU (33.8 % MFU), compiled 6667 (39.1 %).
    const GpuSpec h100 = test::scenario({{"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}}).gpu;
    CHECK(detail::default_mfu(h100) == Approx(0.335));
    CHECK(detail::default_mfu(h100) * 1.16 == Approx(0.391).epsilon(0.01));
}

TEST_CASE("time: the bill says how long a step takes and what bounds it") {
    const Bill b = estimate(test::scenario({{"model", "llama-3.1-8b"}, {"method", "lora"}, {"micro_batch", 4}}));
    REQUIRE(b.speed);
    CHECK(b.speed->step_s > 0);
    CHECK(b.speed->tokens_per_s == Approx(4 * 2048 / b.speed->step_s));
    CHECK((b.speed->bound == "compute" || b.speed->bound == "memory"));
    const Bill inf = estimate(test::scenario({{"model", "llama-3.1-8b"}, {"workload", "infer"}, {"framework", "vllm"}}));
    REQUIRE(inf.speed);
    CHECK(inf.speed->tokens_per_s_per_sequence > 0);
    CHECK(inf.speed->tokens_per_s_at_max_concurrency > inf.speed->tokens_per_s);
}

TEST_CASE("time: a user-set MFU scales compute, dataset_tokens gives the time for the dataset") {
    using nlohmann::json;
    // On the GPU the Hopper MFU was measured on (h100-96gb), where the default prices the step at it exactly.
    const json base = {{"model", "llama-3.1-8b"}, {"method", "lora"}, {"micro_batch", 4}, {"gpu", "h100-96gb"}};
    json set = base;
    set["mfu"] = 0.67;  // twice the Hopper default (0.335)
    set["dataset_tokens"] = 1e9;
    set["epochs"] = 3;
    const Bill d = estimate(test::scenario(base)), u = estimate(test::scenario(set));
    REQUIRE(d.speed);
    REQUIRE(u.speed);
    CHECK(u.speed->mfu == 0.67);
    CHECK(u.speed->compute_s == Approx(d.speed->compute_s / 2));
    CHECK(u.speed->basis.find("set by the scenario") != std::string::npos);
    CHECK(d.speed->time_for_dataset_s == 0);
    CHECK(u.speed->dataset_tokens == 3e9);
    CHECK(u.speed->time_for_dataset_s == Approx(3e9 / u.speed->tokens_per_s));
    const Bill inf = estimate(test::scenario({{"model", "llama-3.1-8b"}, {"workload", "infer"}, {"dataset_tokens", 1e6}, {"epochs", 5}}));
    REQUIRE(inf.speed);
    CHECK(inf.speed->time_for_dataset_s == Approx(1e6 / inf.speed->tokens_per_s));  // epochs: training only
}

TEST_CASE("time: a layer split decodes its stages one after another, bitsandbytes calls cost launch time") {
    using nlohmann::json;
    const json one = {{"model", "llama-2-70b"}, {"workload", "infer"}, {"framework", "litgpt"}, {"gpu", "a100-40gb"}, {"prompt_len", 8}, {"gen_len", 256}};
    json four = one;
    four["num_gpus"] = 4;
    four["pp"] = 4;
    json eight = four;
    eight["num_gpus"] = 8;
    eight["pp"] = 8;
    const Bill b4 = estimate(test::scenario(four)), b8 = estimate(test::scenario(eight));
    REQUIRE(b4.speed);
    REQUIRE(b8.speed);
    // More stages hold fewer layers each, but the step still reads every stage's weights in turn.
    CHECK(b8.speed->decode_s_per_token == Approx(b4.speed->decode_s_per_token).epsilon(0.01));
    CHECK(b4.speed->bound == "memory");
    json nf4 = one;
    nf4["weights"] = "nf4";
    json bf16 = one;
    bf16["model"] = "llama-2-7b";
    nf4["model"] = "llama-2-7b";
    const Bill q = estimate(test::scenario(nf4)), h = estimate(test::scenario(bf16));
    REQUIRE(q.speed);
    REQUIRE(h.speed);
    CHECK(h.speed->bound == "launch");
    // 32 layers x 5 LitGPT linears (fused qkv) x 0.13 ms on top of 32 x 0.88 ms.
    CHECK(q.speed->decode_s_per_token == Approx(32 * 0.00088 + 160 * 0.00013));
}

}  // namespace unit_time
}  // namespace
