// Kernel-by-kernel terms of a training step (core/src/time/kernels.cpp, stack_time.cpp; docs/methodology.md,
// "Time", kernel by kernel): the optimizer step, DoRA's weight norm, transformers' MoE expert loop, layer stacks.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "time/kernels.hpp"
#include "vramcalc/estimate.hpp"

using namespace vramcalc;

TEST_CASE("kernels: AdamW fused makes 7 passes over its states, foreach 21, the for-loop launches per tensor") {
    auto step = [](const char* impl) {
        const Scenario s = test::scenario({{"model", "llama-3.2-1b"}, {"gpu", "h200"}, {"precision", "bf16-mixed"},
                                           {"framework", "torchtune"}, {"adamw_impl", impl}});
        return detail::optimizer_step_seconds(s, 1.2e9, 146);
    };
    // fp32 states of 1.2e9 parameters at 80 % of 4.8 TB/s.
    CHECK(step("fused") == Approx(7 * 4 * 1.2e9 / (0.8 * 4800e9)));
    CHECK(step("foreach") == Approx(21 * 4 * 1.2e9 / (0.8 * 4800e9)));
    CHECK(step("for-loop") >= step("foreach"));
    // A model of many small tensors: the for-loop's 9 ops per tensor (and HF Trainer's 2 of gradient clipping)
    // at the eager op time bound it.
    const Scenario cnn = test::scenario({{"model", "resnet50"}, {"gpu", "h200"}, {"adamw_impl", "for-loop"}});
    CHECK(detail::optimizer_step_seconds(cnn, 25.6e6, 161) == Approx((9 + 2) * 161 * 26e-6));
}

TEST_CASE("kernels: DoRA pays its weight norm's eager ops per adapted linear, MoE its expert loop in transformers") {
    using nlohmann::json;
    const json lora = {{"model", "llama-3.2-1b"}, {"gpu", "h200"}, {"method", "lora"}, {"micro_batch", 1}, {"seq_len", 2048},
                       {"lora", {{"rank", 16}, {"targets", "all-linear"}}}};
    json dora = lora;
    dora["lora"]["use_dora"] = true;
    // 16 layers x 7 linears x 18 ops x 26 us x 3 passes.
    CHECK(detail::dora_seconds(test::scenario(dora)).issue_s == Approx(112 * 18 * 26e-6 * 3));
    CHECK(detail::dora_seconds(test::scenario(lora)).issue_s == 0);
    CHECK(estimate(test::scenario(dora)).speed->step_s > 2 * estimate(test::scenario(lora)).speed->step_s);
    const json moe = {{"model", "mixtral-8x7b-v0.1"}, {"gpu", "h200"}, {"method", "lora"}, {"micro_batch", 1}, {"seq_len", 2048}};
    json titan = moe;
    titan["framework"] = "torchtitan";
    CHECK(detail::moe_loop_seconds(test::scenario(moe)) == Approx(32 * 8 * 9 * 26e-6 * 3));
    CHECK(detail::moe_loop_seconds(test::scenario(titan)) == 0);
}

TEST_CASE("kernels: a layer stack's step is its kernels' time, not a borrowed MFU") {
    const Scenario s = test::scenario({{"model", "resnet50"}, {"gpu", "h200"}, {"precision", "fp32"}, {"micro_batch", 64}});
    const auto t = detail::stack_micro_batch_time(s);
    CHECK(t.matmul_s > 0);
    CHECK(t.pointwise_s > 0);  // batch norms, ReLUs and residual adds as memory-bound passes
    CHECK(t.gpu_s == Approx(t.matmul_s + t.pointwise_s));
    const Bill b = estimate(s);
    CHECK(b.speed->compute_s == Approx(t.gpu_s));
    // Half the batch, about half the GPU time; the issue time does not change.
    Scenario half = s;
    half.micro_batch = 32;
    CHECK(detail::stack_micro_batch_time(half).gpu_s < 0.6 * t.gpu_s);
    CHECK(detail::stack_micro_batch_time(half).cpu_s == t.cpu_s);
}
