// LoRA on a pre-quantised GPTQ / AWQ base ("quantization": "gptq-int4" / "awq-int4"): the stored bytes
// of the packed checkpoint and what AutoGPTQ's linear keeps for backward, against hand-computed counts.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_qlora_packed {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {
using test::bill;

// Llama-3.1-8B decoder linears per layer as (out, in): q, k, v, o, gate, up, down; 32 layers.
struct Linear {
    double out, in;
};
constexpr Linear kLayer[] = {{4096, 4096}, {1024, 4096}, {1024, 4096}, {4096, 4096}, {14336, 4096}, {14336, 4096}, {4096, 14336}};
constexpr double kLayers = 32, kTotal = 8030261248.0;

// AutoGPTQ QuantLinear at 4 bits, group 128: qweight int32 [in/8, out], qzeros int32 [in/128, out/8],
// scales fp16 [in/128, out], g_idx int32 [in]. AWQ: the same without g_idx.
double packed(const Linear& l, bool gptq) {
    return l.in / 8 * l.out * 4 + l.in / 128 * l.out / 8 * 4 + l.in / 128 * l.out * 2 + (gptq ? l.in * 4 : 0);
}
double linear_params() {
    double n = 0;
    for (const auto& l : kLayer) n += l.out * l.in;
    return n * kLayers;
}
}  // namespace

TEST_CASE("qlora packed: GPTQ and AWQ base weights") {
    const double linear = linear_params();
    double gptq = 0, awq = 0;
    for (const auto& l : kLayer) gptq += packed(l, true) * kLayers, awq += packed(l, false) * kLayers;
    const double rest = kTotal - linear;  // embeddings, lm_head, norms
    // GPTQ: PEFT leaves a GPTQ model's 16-bit tensors alone (prepare_model_for_kbit_training).
    const Bill g = bill(R"({"model": "llama-3.1-8b", "method": "qlora", "quantization": "gptq-int4", "framework": "hf"})");
    CHECK(static_cast<double>(g.component("weights")) == Approx(gptq + 2 * rest).epsilon(1e-12));
    // AWQ under hf: PEFT casts the 16-bit rest to fp32.
    const Bill a = bill(R"({"model": "llama-3.1-8b", "method": "qlora", "quantization": "awq-int4", "framework": "hf"})");
    CHECK(static_cast<double>(a.component("weights")) == Approx(awq + 4 * rest).epsilon(1e-12));
    // 4 + 16/128 (scale) + 4/128 (zero) = 4.156 bits per linear weight at group 128, plus g_idx's 4 B per input.
    CHECK(gptq / linear > 0.5 + 2.5 / 128);
    CHECK(gptq / linear < 0.5 + 2.5 / 128 + 4.0 / 4096);
}

TEST_CASE("qlora packed: AutoGPTQ keeps each layer's dequantised fp16 weights for backward") {
    // DeepSpeed fp16-mixed: the residual stream is fp16 with and without the quantised base, so LoRA and
    // GPTQ-QLoRA save the same tensors except the mm operand AutoGPTQ's torch path keeps: 2 B per linear
    // weight of every layer without checkpointing (auto_gptq qlinear_cuda_old.py, inputs of >= 128 rows).
    const std::string base = R"({"model": "llama-3.1-8b", "framework": "deepspeed", "precision": "fp16-mixed",
        "gpu": "a100-80gb", "seq_len": 512, "checkpointing": "none", )";
    const Bill lora = bill(base + R"("method": "lora"})");
    const Bill gptq = bill(base + R"("method": "qlora", "quantization": "gptq-int4"})");
    CHECK(gptq.component("activations") - lora.component("activations") ==
          static_cast<std::int64_t>(2 * linear_params()));
}

TEST_CASE("qlora packed: the reader names the new values") {
    auto r = scenario_from_text(R"({"model": "llama-3.1-8b", "method": "qlora", "quantization": "gptq-int8"})",
                                test::catalog());
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error_text(), Catch::Matchers::Contains("gptq-int4"));
}

}  // namespace unit_qlora_packed
}  // namespace
