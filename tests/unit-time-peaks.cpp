// The GPU catalog's peaks per precision and its links, and which of them a training step runs at
// (core/src/time/peaks.cpp; docs/methodology.md, "Time": peaks per precision).
#include <catch2/catch.hpp>

#include <algorithm>

#include "test_data.hpp"
#include "time/flops.hpp"
#include "time/peaks.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_time_peaks {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {

const Speed& speed_of(const Bill& b) {
    REQUIRE(b.speed);
    return *b.speed;
}

bool warns(const Bill& b, const std::string& part) {
    return std::any_of(b.warnings.begin(), b.warnings.end(), [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("peaks: every GPU with a bf16 peak and a link is sourced, dense figures are ordered") {
    for (const auto& g : test::catalog().gpus()) {
        INFO(g.id);
        CHECK(g.pcie_gen >= 3);  // every catalog entry names its host link
        if (g.peak_fp32_tflops > 0) CHECK(g.peak_fp32_tflops < g.peak_bf16_tflops);
        if (g.peak_tf32_tflops > 0) {
            CHECK(g.peak_tf32_tflops >= g.peak_fp32_tflops);
            CHECK(g.peak_tf32_tflops <= g.peak_bf16_tflops * 0.51);  // TF32 runs at most half bf16's rate
        }
        if (g.peak_fp32_tflops > 0 || g.gpu_link_gbps > 0) CHECK(g.source.find("Peaks and links") != std::string::npos);
    }
    const GpuSpec* h200 = test::catalog().find_gpu("h200");
    REQUIRE(h200);
    CHECK(h200->peak_fp32_tflops == 67.0);   // NVIDIA H200 datasheet, SXM
    CHECK(h200->peak_tf32_tflops == 494.7);  // 989 with sparsity
    CHECK(h200->gpu_link_gbps == 450.0);     // NVLink 900 GB/s both directions
    CHECK(pcie_gbps(h200->pcie_gen, h200->pcie_lanes) == 63.0);
}

// The rest of a step beside the matmuls: half of it scales with the GPU's bandwidth over that of the GPU the
// MFU was measured on (Hopper: torchtitan's H100 96GB, 2.4 TB/s).
double rest_scale(double bandwidth) { return 0.5 + 0.5 * 2400e9 / bandwidth; }

TEST_CASE("peaks: a bf16 run on the MFU's own GPU is priced exactly as executed FLOPs / (bf16 peak x MFU)") {
    const Scenario sc = test::scenario({{"model", "llama-3.2-1b"}, {"gpu", "h100-96gb"}, {"precision", "bf16-mixed"}, {"micro_batch", 4}, {"seq_len", 2048}});
    const auto f = detail::training_flops(sc);
    CHECK(speed_of(estimate(sc)).compute_s == Approx(f.executed() / (989.4e12 * 0.335)).epsilon(1e-9));
    // On an H200 (4.8 TB/s) the memory-bound half of the rest takes half the time.
    const Scenario h200 = test::scenario({{"model", "llama-3.2-1b"}, {"gpu", "h200"}, {"precision", "bf16-mixed"}, {"micro_batch", 4}, {"seq_len", 2048}});
    const double rest = f.executed() * (1 / (989.4e12 * 0.335) - 1 / 989.4e12);
    CHECK(speed_of(estimate(h200)).compute_s == Approx(f.executed() / 989.4e12 + rest * rest_scale(4800e9)).epsilon(1e-9));
}

TEST_CASE("peaks: fp32 matmuls run on the FP32 units (PyTorch allows no TF32 for matmuls by default)") {
    auto gpt2 = [](const char* precision, const char* attention) {
        return test::scenario({{"model", "gpt2"}, {"gpu", "h200"}, {"precision", precision}, {"micro_batch", 8}, {"seq_len", 1024}, {"framework", "torchtune"}, {"compile", false}, {"checkpointing", "none"}, {"attention", attention}});
    };
    const Bill fp32 = estimate(gpt2("fp32", "sdpa")), bf16 = estimate(gpt2("bf16-mixed", "sdpa"));
    const auto f = detail::training_flops(gpt2("fp32", "sdpa"));
    // The linears and the output layer at 67 TFLOPS, the attention core at a third of TF32's 494.7 (SDPA's
    // memory-efficient kernel, 3xTF32), each short of its peak by the same 80 % share as the published bf16
    // matmuls (charged beyond the bf16 shortfall the rest holds), plus the rest of the step that a bf16 run
    // at 33.5 % MFU leaves, whose memory-bound half moves fp32 tensors (twice the bytes).
    CHECK(f.attention > 0);
    const double other = f.executed() - f.linears - f.attention;
    auto at = [](double flops, double rate) { return flops / rate + flops * 0.25 * (1 / rate - 1 / 989.4e12); };
    const double rest = f.executed() * (1 / (989.4e12 * 0.335) - 1 / 989.4e12) * (0.5 + 0.5 * 2 * 2400e9 / 4800e9);
    const double expected = at(f.linears + other, 67e12) + at(f.attention, 494.7e12 / 3) + rest;
    CHECK(speed_of(fp32).compute_s == Approx(expected).epsilon(1e-9));
    CHECK(speed_of(fp32).compute_s > 3 * speed_of(bf16).compute_s);
    CHECK(speed_of(fp32).basis.find("FP32 TFLOPS") != std::string::npos);
    CHECK(speed_of(fp32).basis.find("3xTF32") != std::string::npos);
    // Eager attention's fp32 bmm runs on the FP32 units like the linears.
    CHECK(detail::matmul_rates(gpt2("fp32", "sdpa")).attention == Approx(494.7e12 / 3));
    CHECK(detail::matmul_rates(gpt2("fp32", "eager")).attention == 67e12);
    CHECK(detail::matmul_rates(gpt2("bf16-mixed", "sdpa")).attention == 989.4e12);
}

TEST_CASE("peaks: fp32 convolutions run on TF32 (cuDNN's default), before Ampere on FP32") {
    auto resnet = [](const char* gpu) {
        return detail::matmul_rates(test::scenario({{"model", "resnet50"}, {"gpu", gpu}, {"precision", "fp32"}, {"micro_batch", 8}}));
    };
    CHECK(resnet("a100-80gb").conv == 156e12);
    CHECK(resnet("a100-80gb").matmul == 19.5e12);
    CHECK(resnet("v100-32gb").conv == 15.7e12);  // Volta: no TF32
    const Scenario sc = test::scenario({{"model", "resnet50"}, {"gpu", "a100-80gb"}, {"precision", "fp32"}, {"micro_batch", 8}});
    const auto f = detail::training_flops(sc);
    CHECK(f.convs > 0.9 * f.executed());  // a ResNet's FLOPs are its convolutions
    CHECK(f.linears > 0);                 // and its classifier
}

TEST_CASE("peaks: float8 runs its linears at the FP8 peak, the attention core and the output layer at bf16") {
    const Scenario sc = test::scenario({{"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}, {"framework", "torchtitan"}, {"precision", "bf16-mixed"}, {"float8", "tensorwise"}, {"micro_batch", 1}, {"seq_len", 8192}});
    const auto r = detail::matmul_rates(sc);
    CHECK(r.linear == 1979e12);
    CHECK(r.matmul == 989.4e12);
    const auto f = detail::training_flops(sc);
    CHECK(f.linears < f.executed());
    const double rest = f.executed() * (1 / (989.4e12 * 0.335) - 1 / 989.4e12) * rest_scale(3350e9);
    // No shortfall saving for the faster fp8 units (speed.cpp: torchao's casts are not in the rest).
    const double expected = f.linears / 1979e12 + (f.executed() - f.linears) / 989.4e12 + rest;
    CHECK(speed_of(estimate(sc)).compute_s == Approx(expected).epsilon(1e-9));
}

TEST_CASE("links: NVLink from the catalog, PCIe by generation, a custom GPU without one warns") {
    auto job = [](const nlohmann::json& gpu) {
        return estimate(test::scenario({{"model", "llama-3.2-1b"}, {"gpu", gpu}, {"num_gpus", 4}, {"sharding", "fsdp-full"}, {"micro_batch", 1}, {"seq_len", 512}}));
    };
    CHECK(detail::link_bytes_per_s(*test::catalog().find_gpu("h100-nvl"), 4) == 63e9);             // PCIe Gen5, no NVSwitch
    CHECK(detail::link_bytes_per_s(*test::catalog().find_gpu("a100-80gb"), 4) == 300e9);           // NVLink 600 GB/s
    CHECK(detail::link_bytes_per_s(*test::catalog().find_gpu("rtx-4060-ti-16gb"), 2) == 15.75e9);  // Gen4 x8
    CHECK(detail::host_bytes_per_s(*test::catalog().find_gpu("t4")) == 15.75e9);                   // Gen3
    const nlohmann::json custom = {{"name", "My GPU"}, {"memory_gib", 80}, {"arch", "hopper"}, {"peak_bf16_tflops", 900}, {"memory_bandwidth_gbps", 3000}};
    const Bill unknown = job(custom);
    CHECK(warns(unknown, "PCIe Gen4 x16"));
    nlohmann::json given = custom;
    given["gpu_link_gbps"] = 450;
    given["pcie_gen"] = 5;
    const Bill known = job(given);
    CHECK_FALSE(warns(known, "PCIe Gen4"));
    CHECK(speed_of(known).communication_s <= speed_of(unknown).communication_s);
    CHECK(speed_of(unknown).step_s > 0);  // a custom GPU with peaks has a time estimate
}

TEST_CASE("links: a custom GPU's peaks and links survive the scenario writer") {
    const nlohmann::json j = {{"model", "llama-3.2-1b"},
                              {"gpu", {{"name", "X"}, {"memory_gib", 48}, {"peak_fp32_tflops", 40}, {"peak_tf32_tflops", 80}, {"peak_bf16_tflops", 160}, {"gpu_link_gbps", 100}, {"pcie_gen", 5}, {"pcie_lanes", 8}}}};
    const Scenario a = test::scenario(j);
    const Scenario b = test::scenario(scenario_to_json(a));
    CHECK(b.gpu.peak_fp32_tflops == 40);
    CHECK(b.gpu.peak_tf32_tflops == 80);
    CHECK(b.gpu.gpu_link_gbps == 100);
    CHECK(b.gpu.pcie_gen == 5);
    CHECK(b.gpu.pcie_lanes == 8);
    auto bad = scenario_from_json({{"model", "llama-3.2-1b"}, {"gpu", {{"name", "X"}, {"memory_gib", 48}, {"pcie_gen", 7}}}}, test::catalog());
    CHECK_FALSE(bad.ok());
}

}  // namespace unit_time_peaks
}  // namespace
