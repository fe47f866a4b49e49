// Kernel-by-kernel terms of a training step (core/src/time/kernels.cpp, stack_time.cpp; docs/methodology.md,
// "Time", kernel by kernel): the optimizer step, DoRA's weight norm, transformers' MoE expert loop, layer stacks.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "time/kernels.hpp"
#include "vramcalc/estimate.hpp"

namespace {
namespace unit_time_kernels {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

TEST_CASE("kernels: AdamW fused makes 7 passes over its states, foreach 21, the for-loop launches per tensor") {
    auto step = [](const char* impl) {
        const Scenario s = test::scenario({{"model", "llama-3.2-1b"}, {"gpu", "h200"}, {"precision", "bf16-mixed"}, {"framework", "torchtune"}, {"adamw_impl", impl}});
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
    const json lora = {{"model", "llama-3.2-1b"}, {"gpu", "h200"}, {"method", "lora"}, {"micro_batch", 1}, {"seq_len", 2048}, {"lora", {{"rank", 16}, {"targets", "all-linear"}}}};
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

TEST_CASE("kernels: transformers' NewGELUActivation runs its tanh formula as eager elementwise passes") {
    using nlohmann::json;
    const json gpt2 = {{"model", "gpt2"}, {"gpu", "h200"}, {"precision", "fp32"}, {"micro_batch", 8}, {"seq_len", 1024}, {"checkpointing", "none"}};
    // 41 passes more than one GeLU kernel over the MLP's width (8 x 1024 tokens x 3072) in 12 layers, 4-byte
    // elements, at 80 % of 4.8 TB/s.
    const double passes_bytes = 8.0 * 1024 * 3072 * 12 * 4 / (0.8 * 4800e9);
    CHECK(detail::eager_gelu_seconds(test::scenario(gpt2)) == Approx(41 * passes_bytes));
    json ckpt = gpt2;
    ckpt["checkpointing"] = "full";  // the forward's 16 passes again
    CHECK(detail::eager_gelu_seconds(test::scenario(ckpt)) == Approx(57 * passes_bytes));
    json mixed = gpt2;
    mixed["precision"] = "bf16-mixed";  // autocast runs pow in fp32 and the chain after it promotes
    CHECK(detail::eager_gelu_seconds(test::scenario(mixed)) == Approx(41 * passes_bytes));
    json bf16 = gpt2;
    bf16["precision"] = "bf16";
    CHECK(detail::eager_gelu_seconds(test::scenario(bf16)) == Approx(41 * passes_bytes / 2));
    json compiled = gpt2;
    compiled["framework"] = "torchtune";
    compiled["compile"] = true;
    CHECK(detail::eager_gelu_seconds(test::scenario(compiled)) == 0);
    CHECK(detail::eager_gelu_seconds(test::scenario({{"model", "llama-3.2-1b"}, {"gpu", "h200"}})) == 0);  // SiLU: one kernel
}

TEST_CASE("kernels: tensor-core convolutions pay cuDNN's NCHW transposes, depthwise ones do not") {
    using nlohmann::json;
    // One 3x3 convolution, 64 -> 64 channels at 56 x 56, batch 64 on an H200, and the same shape depthwise.
    auto conv = [](int groups, const char* precision, const char* gpu = "h200") {
        const json stack = {{"input", {64, 56, 56}},
                            {"layers", {{{"type", "conv2d"}, {"name", "c"}, {"out_channels", 64}, {"kernel_size", 3}, {"padding", 1}, {"groups", groups}, {"bias", false}}}}};
        return detail::stack_micro_batch_time(
            test::scenario({{"model", stack}, {"gpu", gpu}, {"precision", precision}, {"micro_batch", 64}}));
    };
    const double tensor = 64.0 * 64 * 56 * 56;  // elements of the input, and of the output
    const double bw = 0.8 * 4800e9;
    // bf16: each of the 3 passes reads and writes its input and output once more (2 x (in + out) x 2 bytes);
    // the pass itself is at least its own bytes.
    CHECK(conv(1, "bf16").matmul_s >= (3 * 2 * 2 * tensor * 2 + 3 * 2 * tensor * 2) / bw);
    // fp32 on Hopper runs TF32 tensor cores: the same transposes in 4-byte elements.
    CHECK(conv(1, "fp32").matmul_s >= (3 * 2 * 2 * tensor * 4 + 3 * 2 * tensor * 4) / bw);
    // Depthwise: no tensor cores, no transposes, only its bytes; PyTorch's weight-gradient kernel runs 64 x 9
    // blocks of 256 threads, 54.5 % of an H200's 132 x 2048 resident threads, and reads its two tensors at that
    // share of the rate.
    const double share = 64.0 * 9 * 256 / (132 * 2048);
    CHECK(conv(64, "bf16").matmul_s == Approx(3 * 2 * tensor * 2 / bw + 3 * 64 * 9 * 2 / bw + 2 * tensor * 2 / bw * (1 / share - 1)));
    // Before Ampere fp32 convolutions run on CUDA cores in NCHW: no transposes; this one is bound by its FLOPs
    // (3 passes) at 80 % of 15.7 TFLOPS, half a tile wide (64 of 128 output channels).
    const double flops = 2.0 * 64 * 56 * 56 * 64 * 9 * 64;
    CHECK(conv(1, "fp32", "v100-32gb").matmul_s == Approx(3 * flops / (0.8 * 15.7e12 * 0.5)));
}

TEST_CASE("kernels: under autocast a layer stack's layer norms and residual stream are fp32, casts in front of matmuls") {
    using nlohmann::json;
    // A ViT-style block: tokens [197, 768] -> layer_norm -> linear: under bf16 autocast the norm writes fp32 and
    // the linear casts it to bf16 first; in pure bf16 neither happens.
    const json stack = {{"input", {197, 768}},
                        {"layers", {{{"type", "layer_norm"}, {"name", "ln"}}, {{"type", "linear"}, {"name", "fc"}, {"out_features", 768}}}}};
    auto time = [&](const char* precision) {
        return detail::stack_micro_batch_time(test::scenario({{"model", stack}, {"gpu", "h200"}, {"precision", precision}, {"micro_batch", 128}}));
    };
    const auto mixed = time("bf16-mixed"), bf16 = time("bf16");
    const double bw = 0.8 * 4800e9, x = 128.0 * 197 * 768;
    CHECK(mixed.pointwise_s == Approx(2 * bf16.pointwise_s));  // the norm's 7 passes in 4-byte elements
    // The cast of the norm's output (read 4, write 2 bytes) and of its gradient back, and the weight's casts.
    CHECK(mixed.matmul_s == Approx(bf16.matmul_s + 12 * x / bw + 12 * (768.0 * 768 + 768) / bw));
}

TEST_CASE("kernels: a layer stack's CPU time is its layers' eager ops, views, copies and autocast's casts included") {
    using nlohmann::json;
    // nn.MultiheadAttention issues 26 ops a forward (multi_head_attention_forward's views, copies, SDPA and
    // projections), each with its backward node, at 26 us forward and 52 us backward; a layer norm one.
    const json stack = {{"input", {197, 768}},
                        {"layers", {{{"type", "layer_norm"}, {"name", "ln"}}, {{"type", "multi_head_attention"}, {"name", "attn"}, {"embed_dim", 768}, {"num_heads", 12}}}}};
    auto cpu = [&](const char* precision) {
        return detail::stack_micro_batch_time(test::scenario({{"model", stack}, {"gpu", "h200"}, {"precision", precision}, {"micro_batch", 8}}))
            .cpu_s;
    };
    CHECK(cpu("bf16") == Approx(27 * (26e-6 + 52e-6)));
    // Under autocast the attention casts its weights and its fp32 input (the layer norm's output) first.
    CHECK(cpu("bf16-mixed") == Approx(29 * (26e-6 + 52e-6)));
    // Batch norm adds num_batches_tracked's increment, which records no backward.
    const json bn = {{"input", {16, 8, 8}}, {"layers", {{{"type", "batch_norm"}, {"name", "bn"}}}}};
    CHECK(detail::stack_micro_batch_time(test::scenario({{"model", bn}, {"gpu", "h200"}, {"micro_batch", 8}})).cpu_s ==
          Approx(2 * 26e-6 + 52e-6));
}

TEST_CASE("kernels: batch norm on NCHW: PyTorch's one block per channel in bf16, cuDNN's NHWC conversions in fp32") {
    using nlohmann::json;
    // One batch norm over 64 channels at 56 x 56, batch 64, on an H200 (132 SMs x 2048 threads).
    const json stack = {{"input", {64, 56, 56}}, {"layers", {{{"type", "batch_norm"}, {"name", "bn"}}}}};
    auto time = [&](const char* precision, const json& gpu) {
        return detail::stack_micro_batch_time(test::scenario({{"model", stack}, {"gpu", gpu}, {"precision", precision}, {"micro_batch", 64}}))
            .pointwise_s;
    };
    const double x = 64.0 * 64 * 56 * 56, bw = 0.8 * 4800e9;
    // bf16: PyTorch's statistics and fused backward kernels (6 of the 8 passes) run 64 blocks of 512 threads,
    // 12 % of the GPU's resident threads.
    const double share = 64.0 * 512 / (132 * 2048);
    CHECK(time("bf16", "h200") == Approx(8 * x * 2 / bw + 6 * x * 2 / bw * (1 / share - 1)));
    // fp32: cuDNN, with a conversion to NHWC and back around forward (4 passes) and backward (6).
    CHECK(time("fp32", "h200") == Approx(18 * x * 4 / bw));
    // A GPU whose SMs are not given pays no occupancy term.
    const json custom = {{"name", "X"}, {"memory_gib", 141}, {"peak_bf16_tflops", 989}, {"memory_bandwidth_gbps", 4800}};
    CHECK(time("bf16", custom) == Approx(8 * x * 2 / bw));
    // Given the H200's SMs and threads per SM, a custom GPU is priced as the catalog's H200.
    json with_sms = custom;
    with_sms["sm_count"] = 132;
    with_sms["max_threads_per_sm"] = 2048;
    CHECK(time("bf16", with_sms) == Approx(time("bf16", "h200")));
}

}  // namespace unit_time_kernels
}  // namespace
