// Pre-quantised checkpoints read from their config.json's quantization_config (model/quant_config.cpp): the
// format, what the exclusion list keeps 16-bit, and the stored bytes against the checkpoint's published
// size. Configs in tests/data/configs/ (sources in tests/data/README.md).
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "formats/recipes.hpp"
#include "formats/weight_formats.hpp"
#include "test_data.hpp"
#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_checkpoint_quant {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using detail::weight_bytes;

namespace {

ModelSpec from_json(const nlohmann::json& j, const std::string& name) {
    auto r = model_from_config(j, name);
    INFO(name << ": " << r.error_text());
    REQUIRE(r.ok());
    for (const auto& w : r.warnings) INFO(w);
    CHECK(r.warnings.empty());
    return *r.value;
}

ModelSpec from_file(const std::string& file) { return from_json(test::load_json("configs/" + file), file); }

// NVIDIA's ModelOpt checkpoints keep their quantisation in hf_quant_config.json ({"quantization": {...}}) beside
// a config.json without one; vLLM reads that file as the quantization_config (modelopt.py
// ModelOptFp8Config.get_config_filenames). Here the two are joined the same way.
ModelSpec modelopt(const std::string& file) {
    auto config = test::load_json("configs/" + file + ".json");
    auto q = test::load_json("configs/" + file + ".hf_quant_config.json")["quantization"];
    q["quant_method"] = "modelopt";
    config["quantization_config"] = q;
    return from_json(config, file);
}

const ParamGroup& group(const ModelSpec& m, const std::string& name, ParamCategory c) {
    for (const auto& g : m.params)
        if (g.name == name && g.category == c) return g;
    FAIL("no group " << name);
    return m.params.front();
}

}  // namespace

TEST_CASE("checkpoint quant: gpt-oss-20b's MXFP4 experts give the published checkpoint size") {
    const ModelSpec m = from_file("gpt-oss-20b.json");
    CHECK(m.quant.format == "mxfp4");
    // modules_to_not_convert "model.layers.*.self_attn": every attention projection stays bf16.
    const ParamGroup& q = group(m, "q_proj", ParamCategory::attention);
    CHECK(q.checkpoint_16bit == q.count);
    CHECK(group(m, "gate_up_proj", ParamCategory::experts).checkpoint_16bit == 0);
    // openai/gpt-oss-20b model.safetensors.index.json metadata.total_size: 13,761,264,768 bytes (the experts'
    // _blocks / _scales uint8, everything else bf16).
    const double ours = weight_bytes(m, "mxfp4", 128).total();
    INFO("ours " << ours);
    CHECK_THAT(ours, Catch::Matchers::WithinRel(13761264768.0, 0.01));
    // In bf16 the same model is 2 bytes per parameter: the experts are 3.8x smaller in MXFP4.
    CHECK(weight_bytes(m, "bf16", 128).total() == 2.0 * static_cast<double>(count_parameters(m).total));
}

TEST_CASE("checkpoint quant: Qwen3-30B-A3B-FP8 is 128x128 block fp8 with its routers kept") {
    const ModelSpec m = from_file("qwen3-30b-a3b-fp8.json");
    CHECK(m.quant.format == "fp8-block");
    // modules_to_not_convert lists lm_head and, per layer, input_layernorm, mlp.gate, post_attention_layernorm.
    CHECK(group(m, "gate", ParamCategory::router).checkpoint_16bit == 48);
    CHECK(group(m, "q_proj", ParamCategory::attention).checkpoint_16bit == 0);
    CHECK(group(m, "gate_proj", ParamCategory::experts).checkpoint_16bit == 0);
}

TEST_CASE("checkpoint quant: Nemotron-3-Nano NVFP4 keeps the attention and the Mamba mixers before it in bf16") {
    const ModelSpec m = modelopt("nemotron-3-nano-30b-a3b-nvfp4");
    CHECK(m.quant.format == "nvfp4");
    // exclude_modules names layers 4/11/18/25/32/41's in_proj / out_proj and the q/k/v/o_proj of the six
    // attention layers: what the family marks fp8_keeps_16bit from NVIDIA's recipe (families_hybrid.cpp).
    i64 kept = 0, marked = 0;
    for (const auto& g : m.params) {
        if (!g.is_linear || g.category == ParamCategory::lm_head) continue;
        kept += g.checkpoint_16bit;
        marked += g.fp8_keeps_16bit ? g.count : 0;
    }
    CHECK(kept == 36);
    CHECK(marked == 36);
    // Read from its own config the NVFP4 checkpoint costs what fp8's rule with the family's marks would at
    // 4 bits: the routed experts carry e4m3 scales per 16 inputs.
    const double nv = weight_bytes(m, "nvfp4", 128).total(), bf16 = weight_bytes(m, "bf16", 128).total();
    CHECK(nv < 0.35 * bf16);
}

TEST_CASE("checkpoint quant: Qwen3-235B-A22B NVFP4 lists each layer's router") {
    const ModelSpec m = modelopt("qwen3-235b-a22b-nvfp4");
    CHECK(m.quant.format == "nvfp4");
    CHECK(group(m, "gate", ParamCategory::router).checkpoint_16bit == 94);
    CHECK(group(m, "down_proj", ParamCategory::experts).checkpoint_16bit == 0);
}

TEST_CASE("checkpoint quant: a scenario loads the checkpoint's own format unless it names one") {
    auto j = test::load_json("configs/gpt-oss-20b.json");
    const nlohmann::json base = {{"model", j}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h100-80gb"}};
    CHECK(test::scenario(base).weights == "mxfp4");
    auto named = base;
    named["weights"] = "bf16";
    CHECK(test::scenario(named).weights == "bf16");
    named["weights"] = "checkpoint";
    CHECK(test::scenario(named).weights == "mxfp4");
    // An fp8 flavour other than the checkpoint's (vLLM's `--quantization fp8` imports as "fp8") is the checkpoint's.
    auto fp8 = scenario_from_json({{"model", "deepseek-v3"}, {"workload", "infer"}, {"weights", "fp8"}}, test::catalog());
    REQUIRE(fp8.ok());
    CHECK(fp8.value->weights == "fp8-block");
    CHECK(fp8.warnings.size() == 1);
    // A preset without a quantization_config: "checkpoint" names nothing.
    const auto r = scenario_from_json({{"model", "llama-3-8b"}, {"workload", "infer"}, {"weights", "checkpoint"}}, test::catalog());
    CHECK_FALSE(r.ok());
}

TEST_CASE("checkpoint quant: compressed-tensors groups, ignore lists and targets") {
    auto config = test::load_json("configs/qwen3-30b-a3b-fp8.json");
    config.erase("quantization_config");
    // RedHatAI's FP8-dynamic recipe (llm-compressor "FP8_DYNAMIC": float 8-bit weights per channel,
    // dynamic per-token activations) with its ignore list of lm_head and the routers.
    config["quantization_config"] = nlohmann::json::parse(R"({
        "quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
        "config_groups": {"group_0": {"targets": ["Linear"],
            "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true, "dynamic": false},
            "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true}}},
        "ignore": ["lm_head", "re:.*mlp.gate$"]})");
    ModelSpec m = from_json(config, "fp8-dynamic");
    CHECK(m.quant.format == "fp8-channel");
    CHECK(group(m, "gate", ParamCategory::router).checkpoint_16bit == 48);
    CHECK(group(m, "gate_proj", ParamCategory::experts).checkpoint_16bit == 0);
    // W4A16 (pack-quantized int4, group 128) with the attention ignored: only the experts are packed.
    config["quantization_config"] = nlohmann::json::parse(R"({
        "quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"],
            "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": true}}},
        "ignore": ["lm_head", "re:.*self_attn.*", "re:.*mlp.gate$"]})");
    m = from_json(config, "w4a16");
    CHECK(m.quant.format == "w4a16");
    CHECK(m.quant.group_size == 128);
    const ParamGroup& q = group(m, "q_proj", ParamCategory::attention);
    CHECK(q.checkpoint_16bit == q.count);
    // One 768 x 2048 expert projection: int32-packed 4-bit weights, bf16 scales per 128 inputs, int32 weight_shape [2].
    CHECK(detail::ct_packed_linear_bytes(4, 128, false, 768, 2048) == 768.0 * 2048 / 2 + 768.0 * 16 * 2 + 8);
    // A pattern that backtracks exponentially gives up (names nothing) instead of hanging the page.
    config["quantization_config"]["ignore"] = {"re:(.*)*(.*)*(.*)*x"};
    m = from_json(config, "w4a16, adversarial ignore");
    CHECK(group(m, "q_proj", ParamCategory::attention).checkpoint_16bit == 0);
    // An unknown method is a warning, and the weights stay the scenario's.
    config["quantization_config"] = {{"quant_method", "hqq"}};
    auto r = model_from_config(config, "hqq");
    REQUIRE(r.ok());
    CHECK(r.value->quant.format.empty());
    CHECK(r.warnings.size() == 1);
}

TEST_CASE("checkpoint quant: DeepSeek-V3's block-fp8 checkpoint, with its MTP layer, is the published size") {
    const ModelSpec m = test::preset("deepseek-v3");
    CHECK(m.quant.format == "fp8-block");  // the preset's config carries the Hub file's quantization_config
    const auto w = weight_bytes(m, "fp8-block", 128);
    // The repository's safetensors hold 688,586,727,753 bytes (deepseek-ai/DeepSeek-V3 @afb92e1f, as a public
    // artifact record states it: find_string id 59118868630). They include the MTP module (model.layers.61),
    // which HF and vLLM do not load: one more MoE decoder layer (costed as our last layer) plus its own bf16
    // embed_tokens and shared_head.head [129280, 7168], eh_proj [7168, 14336] and three norms.
    const double h = 7168, mtp = w.layers.back() + 2.0 * (2 * 129280 * h) + 2.0 * (2 * h * h) + 2.0 * 3 * h;
    INFO("loaded " << w.total() << ", with MTP " << w.total() + mtp);
    CHECK_THAT(w.total() + mtp, Catch::Matchers::WithinRel(688586727753.0, 0.001));
    // What vLLM loads (no MTP) is 2.2 % less than the repository's total.
    CHECK(w.total() < 0.98 * 688586727753.0);
}

TEST_CASE("checkpoint quant: Kimi-K2.5's W4A16 experts (compressed-tensors, group 32) against vLLM's logged weights") {
    // The quantization_config sits in the text_config of moonshotai/Kimi-K2.5 (a kimi_k25 wrapper with a MoonViT
    // tower, families_vision.cpp moonvit_vision()).
    const auto j = test::load_json("configs/kimi-k2.5.json");
    const ModelSpec m = from_json(j, "kimi-k2.5");
    CHECK(m.quant.format == "w4a16");
    CHECK(m.quant.group_size == 32);
    // ignore: lm_head, "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"
    // (the dense first layer's MLP), "re:vision_tower.*", "re:mm_projector.*": everything but the routed experts stays bf16.
    for (const auto& g : m.params) {
        if (!g.is_linear || g.category == ParamCategory::lm_head || g.category == ParamCategory::router ||
            g.category == ParamCategory::vision)
            continue;
        INFO(g.name << " " << to_string(g.category));
        CHECK(g.checkpoint_16bit == (g.routed_expert ? 0 : g.count));
    }
    // vLLM v0.18 on 8 H200 (tp 8) logged "Model loading took 72.02 GiB" (tests/data/vllm_startup_logs.json,
    // vmelog-kimi-k2.5-h200-tp8-*), run with --mm-encoder-tp-mode data: the MoonViT tower and projector (471M bf16
    // parameters, 0.88 GiB) are whole on every rank. The text model alone is 71.10 GiB; sharded, the tower would add 0.11.
    nlohmann::json s = {{"model", j}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h200"}, {"num_gpus", 8}, {"tp", 8}, {"prompt_len", 8191}, {"gen_len", 1}, {"max_model_len", 8192}, {"vllm_mm_encoder_dp", true}};
    const double gib = static_cast<double>(estimate(test::scenario(s)).component("weights")) / 1073741824.0;
    INFO("per GPU " << gib << " GiB");
    CHECK_THAT(gib, Catch::Matchers::WithinRel(72.02, 0.002));
    s["vllm_mm_encoder_dp"] = false;
    const double sharded = static_cast<double>(estimate(test::scenario(s)).component("weights")) / 1073741824.0;
    CHECK_THAT(gib - sharded, Catch::Matchers::WithinAbs(471143920.0 * 2 * 7 / 8 / 1073741824.0, 0.01));
}

TEST_CASE("checkpoint quant: a compressed-tensors config of two formats stores each linear in its group's") {
    // Qwen3-30B-A3B with FP8 per-channel attention (group_0) beside NVFP4 experts (group_1), in the shape
    // llm-compressor writes for such recipes (config_groups with re: targets, "format": "mixed-precision"); what no
    // group names (the routers, the head) stays 16-bit. The checkpoint's format is the one with the most parameters.
    auto j = test::load_json("configs/qwen3-30b-a3b-fp8.json");
    const nlohmann::json fp8_attn = {{"targets", {"re:.*self_attn.*"}}, {"weights", {{"num_bits", 8}, {"type", "float"}, {"strategy", "channel"}}}};
    const nlohmann::json nvfp4_experts = {{"targets", {"re:.*mlp.experts.*"}},
                                          {"weights", {{"num_bits", 4}, {"type", "float"}, {"strategy", "tensor_group"}, {"group_size", 16}}}};
    j["quantization_config"] = {{"quant_method", "compressed-tensors"}, {"format", "mixed-precision"}, {"config_groups", {{"group_0", fp8_attn}, {"group_1", nvfp4_experts}}}, {"ignore", {"lm_head"}}};
    const ModelSpec mixed = from_json(j, "qwen3-30b-a3b mixed");
    CHECK(mixed.quant.format == "nvfp4");
    const ParamGroup& q = group(mixed, "q_proj", ParamCategory::attention);
    CHECK(q.checkpoint_format == "fp8-channel");
    CHECK(q.checkpoint_16bit == 0);
    CHECK(group(mixed, "gate_proj", ParamCategory::experts).checkpoint_format.empty());
    CHECK(group(mixed, "gate", ParamCategory::router).checkpoint_16bit == 48);
    // The same checkpoint without group_0 keeps the attention in bf16: the two differ by exactly the attention's
    // bf16 bytes against its fp8 bytes with one fp32 scale per output channel.
    j["quantization_config"]["config_groups"] = {{"group_1", nvfp4_experts}};
    const ModelSpec experts_only = from_json(j, "qwen3-30b-a3b nvfp4 experts");
    double attn16 = 0, attn8 = 0;
    for (const auto& g : mixed.params)
        if (g.category == ParamCategory::attention && g.is_linear) {
            attn16 += 2.0 * static_cast<double>(g.rows * g.cols) * static_cast<double>(g.count);
            attn8 += detail::quantized_linear_bytes("fp8-channel", g.rows, g.cols) * static_cast<double>(g.count);
        }
    const double a = weight_bytes(mixed, "nvfp4", 128).total(), b = weight_bytes(experts_only, "nvfp4", 128).total();
    CHECK_THAT(b - a, Catch::Matchers::WithinRel(attn16 - attn8, 1e-9));
}

TEST_CASE("checkpoint quant: ModelOpt MIXED_PRECISION reads a format per module from quantized_layers") {
    // nvidia's mixed exports (hf_quant_config.json, e.g. Qwen3.6-35B-A3B-NVFP4): quant_algo MIXED_PRECISION and one
    // {"quant_algo"} per module, W4A16_NVFP4 on the experts and FP8 on some projections (vLLM modelopt.py
    // ModelOptMixedPrecisionConfig); modules it does not list stay 16-bit. Here on Qwen3-30B-A3B's shapes.
    auto j = test::load_json("configs/qwen3-30b-a3b-fp8.json");
    nlohmann::json layers = nlohmann::json::object();
    for (int i = 0; i < 48; ++i) {
        layers["model.layers." + std::to_string(i) + ".mlp.experts"] = {{"quant_algo", "W4A16_NVFP4"}, {"group_size", 16}};
        layers["model.layers." + std::to_string(i) + ".self_attn.o_proj"] = {{"quant_algo", "FP8"}};
    }
    j["quantization_config"] = {{"quant_method", "modelopt"}, {"quant_algo", "MIXED_PRECISION"}, {"quantized_layers", layers}, {"exclude_modules", {"lm_head"}}};
    const ModelSpec m = from_json(j, "qwen3-30b-a3b modelopt mixed");
    CHECK(m.quant.format == "nvfp4");
    CHECK(group(m, "o_proj", ParamCategory::attention).checkpoint_format == "fp8");
    CHECK(group(m, "o_proj", ParamCategory::attention).checkpoint_16bit == 0);
    CHECK(group(m, "q_proj", ParamCategory::attention).checkpoint_16bit == 48);  // not listed: bf16
    CHECK(group(m, "down_proj", ParamCategory::experts).checkpoint_16bit == 0);
    CHECK(m.quant.note.find("linears fp8") != std::string::npos);
}

}  // namespace unit_checkpoint_quant
}  // namespace
