// Issue 38: the one table of inference weight formats (formats/weight_format_table.cpp). Every name
// round-trips through the table and the scenario JSON, an unknown name is refused with the allowed list,
// and the table gives the bytes the per-format string tests it replaced gave.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/recipes.hpp"
#include "formats/weight_format_table.hpp"
#include "formats/weight_formats.hpp"
#include "test_data.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_weight_formats {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using namespace vramcalc::detail;
using nlohmann::json;

namespace {

json infer(const std::string& weights) {
    return {{"model", "llama-3.1-8b"}, {"workload", "infer"}, {"weights", weights}};
}

// The rules the table replaced, as they stood before it (weight_formats.cpp nominal_bytes_per_param,
// recipes.cpp plain_dtype_bytes, the `f == "fp32" ? 4 : 2` of placement.cpp and rocm_loading.cpp).
double former_nominal(const std::string& f) {
    if (f == "fp32") return 4;
    if (f == "bf16" || f == "fp16" || f == "gguf-f16") return 2;
    if (f == "fp8" || f == "fp8-channel" || f == "fp8-block" || f == "int8" || f == "gptq-int8" || f == "awq-int8" ||
        f == "gguf-q8_0")
        return 1;
    if (f == "gguf-q6_k") return 6.0 / 8;
    if (f == "gguf-q5_k_m" || f == "gguf-q5_0") return 5.0 / 8;
    if (f == "gguf-q3_k_m") return 3.0 / 8;
    if (f == "gguf-q2_k") return 2.0 / 8;
    return 0.5;
}
double former_plain(const std::string& f) {
    if (f == "fp32") return 4;
    if (f == "bf16" || f == "fp16" || f == "gguf-f16") return 2;
    return 0;
}

}  // namespace

TEST_CASE("weight formats: every name of the table round-trips") {
    const auto& names = weight_format_names();
    REQUIRE(names.size() == 26);  // + mxfp4, nvfp4, w4a16 (pre-quantised checkpoints)
    for (const auto& n : names) {
        INFO(n);
        const WeightFormat* f = find_weight_format(n);
        REQUIRE(f);
        CHECK(f->name == n);
        CHECK(f->bits > 0);
        CHECK((f->dense_bytes > 0) == (f->layout == WeightLayout::dense || n == "gguf-f16"));
        CHECK(is_gguf(n) == (n.rfind("gguf-", 0) == 0));
        CHECK(is_packed(n) == (n.rfind("gptq-", 0) == 0 || n.rfind("awq-", 0) == 0));
        if (is_gguf(n)) CHECK(ggml_type(f->ggml_base) != nullptr);
        const auto r = scenario_from_json(infer(n), test::catalog());
        REQUIRE(r.ok());
        CHECK(r->weights == n);
        CHECK(scenario_to_json(*r).value("weights", std::string("bf16")) == n);
    }
}

TEST_CASE("weight formats: an unknown name is refused with the allowed list") {
    CHECK(find_weight_format("int3") == nullptr);
    CHECK(find_weight_format("gguf-q4_k_s") == nullptr);  // a GGUF ftype we have no rules for
    for (const char* bad : {"int3", "gguf-q4_k_s", "FP16", ""}) {
        INFO(bad);
        const auto r = scenario_from_json(infer(bad), test::catalog());
        REQUIRE_FALSE(r.ok());
        bool found = false;
        for (const auto& e : r.errors) {
            if (e.field != "weights") continue;
            found = true;
            CHECK(e.message.find("got \"" + std::string(bad) + "\"") != std::string::npos);
            for (const auto& n : weight_format_names()) CHECK(e.message.find(n) != std::string::npos);
        }
        CHECK(found);
    }
    // Internal callers that get past the reader are counted at 16 bit, no longer at a silent 0.5 B.
    CHECK(nominal_bytes_per_param("int3") == 2.0);
    CHECK(unquantized_bytes("int3") == 2.0);
    CHECK(quantized_linear_bytes("int3", 4096, 4096) < 0);
}

TEST_CASE("weight formats: the table gives the former per-format bytes") {
    for (const auto& n : weight_format_names()) {
        INFO(n);
        CHECK(nominal_bytes_per_param(n) == former_nominal(n));
        CHECK(plain_dtype_bytes(n) == former_plain(n));
        CHECK(unquantized_bytes(n) == (n == "fp32" ? 4.0 : 2.0));
        CHECK(is_fp8_format(n) == (n == "fp8" || n == "fp8-channel" || n == "fp8-block"));
        CHECK(is_bnb(n) == (n == "int8" || n == "nf4" || n == "nf4-dq"));
        CHECK(is_float_format(n) == (n == "fp32" || n == "fp16" || n == "bf16"));
    }
    const double rows = 14336, cols = 4096, n = rows * cols;
    CHECK(quantized_linear_bytes("fp8", 14336, 4096) == n * 1.0 + 4.0);
    CHECK(quantized_linear_bytes("fp8-channel", 14336, 4096) == n + 4.0 * rows);
    CHECK(quantized_linear_bytes("fp8-block", 14336, 4096) == n + 4.0 * std::ceil(rows / 128.0) * std::ceil(cols / 128.0));
    CHECK(quantized_linear_bytes("int8", 14336, 4096) == n + 4.0 * rows);
    CHECK(quantized_linear_bytes("nf4", 14336, 4096) == n * (0.5 + 4.0 / 64.0));
    CHECK(quantized_linear_bytes("nf4-dq", 14336, 4096) == n * (0.5 + (8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0));
    CHECK(quantized_linear_bytes("gptq-int4", 14336, 4096) < 0);  // packed_linear_bytes' (weight_formats.cpp)
    CHECK(gguf_ftype("gguf-q4_k_m") == "q4_k_m");
    CHECK(std::string(find_weight_format("gguf-q5_k_m")->ggml_base) == "q5_k");
    CHECK(gguf_ftype("nf4").empty());
}

}  // namespace unit_weight_formats
}  // namespace
