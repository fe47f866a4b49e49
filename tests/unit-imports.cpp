// Import (core/src/imports/): every real config in tests/data/imports/ imports to the scenario its
// manifest names, the scenario reads without errors, and malformed input names the line and the key.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "vramcalc/import.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

std::string read_text(const std::string& name) {
    std::ifstream f(test::data_path(name), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("imports: every fixture gives its expected scenario and report") {
    const json manifest = test::load_json("imports/manifest.json");
    REQUIRE(manifest.contains("fixtures"));
    REQUIRE(manifest["fixtures"].size() >= 11);
    for (const auto& f : manifest["fixtures"]) {
        const std::string file = f["file"];
        INFO(file);
        REQUIRE(f["source"]["repo"].is_string());
        const auto r = import_config(read_text("imports/" + file), test::catalog());
        INFO(r.error_text());
        REQUIRE(r.ok());
        CHECK(r->report.format == f["format"]);
        CHECK(r->scenario == f["scenario"]);
        CHECK(r->report.read.size() == f["read"].get<std::size_t>());
        CHECK(r->report.ignored.size() == f["ignored"].get<std::size_t>());
        std::vector<std::string> unknown;
        for (const auto& k : r->report.unknown) unknown.push_back(k.key);
        CHECK(json(unknown) == f["unknown"]);
        // Every key of the file is accounted for (read, ignored or unknown), and every read key names its target.
        for (const auto& k : r->report.read) CHECK(!k.target.empty());
        for (const auto& k : r->report.ignored) CHECK(!k.note.empty());
        // The scenario reads without errors once it has a model (a fine-tune's own name is no preset).
        json s = r->scenario;
        if (!s.contains("model")) s["model"] = s.value("workload", "train") == "infer" ? "qwen2.5-3b" : "llama-3.1-8b";
        const auto sc = scenario_from_json(s, test::catalog());
        INFO(sc.error_text());
        CHECK(sc.ok());
        for (const auto& w : sc.warnings) CHECK(w.find("unknown scenario key") == std::string::npos);
    }
}

TEST_CASE("imports: unknown keys and flags are reported, never dropped") {
    const auto cli = import_config("vllm serve Qwen/Qwen3-8B --max-model-len 4096 --frobnicate 3\n", test::catalog());
    REQUIRE(cli.ok());
    REQUIRE(cli->report.unknown.size() == 1);
    CHECK(cli->report.unknown[0].key == "--frobnicate");
    CHECK(cli->report.unknown[0].value == "3");
    const auto yaml = import_config("base_model: NousResearch/Meta-Llama-3-8B\nmicro_batch_size: 2\nmystery: 1\n", test::catalog());
    REQUIRE(yaml.ok());
    REQUIRE(yaml->report.unknown.size() == 1);
    CHECK(yaml->report.unknown[0].key == "mystery");
    CHECK(yaml->report.unknown[0].line == 3);
}

TEST_CASE("imports: malformed input names the line and the key") {
    struct Case { const char* text; const char* field; const char* words; };
    const Case cases[] = {
        {"base_model: x\nlora_r: [1, 2\nmicro_batch_size: 2\n", "line ", "not valid YAML"},
        {"stage: sft\nlora_rank: eight\n", "line 2, key lora_rank", "expected an integer"},
        {"{\"zero_optimization\": {\"stage\": \"three\"}}", "line 1, key zero_optimization.stage", "expected an integer"},
        {"vllm serve m --gpu-memory-utilization lots\n", "line 1, key --gpu-memory-utilization", "expected a number"},
        {"llama-server -m x.gguf \\\n  -c many\n", "line 2, key -c", "expected an integer"},
        {"just: [a, list]\n", "line 1", "not a format vramcalc imports"},
        {"- a\n- b\n", "line 1", "expected a command line"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const auto r = import_config(c.text, test::catalog());
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.errors.front().field, Catch::Contains(c.field));
        CHECK_THAT(r.errors.front().message, Catch::Contains(c.words));
        // Every front end (JS API, the page's import module, the UI) answers with the same object.
        const json answer = import_answer(r);
        CHECK(answer["ok"] == false);
        CHECK_THAT(answer["errors"][0]["field"].get<std::string>(), Catch::Contains(c.field));
        CHECK_FALSE(answer.contains("error"));
    }
    const json good = import_answer(import_config("vllm serve Qwen/Qwen2.5-7B-Instruct\n", test::catalog()));
    CHECK(good["ok"] == true);
    CHECK(good["format"].is_string());
}

TEST_CASE("imports: presets are found by hub id, path and GGUF file name") {
    struct Case { const char* text; const char* model; const char* weights; };
    const Case cases[] = {
        {"vllm serve meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", ""},
        {"python -m sglang.launch_server --model-path /data/Qwen2.5-7B-Instruct", "qwen2.5-7b", ""},
        {"llama-server -m ~/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -c 8192", "llama-3.1-8b", "gguf-q4_k_m"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const auto r = import_config(c.text, test::catalog());
        REQUIRE(r.ok());
        CHECK(r->scenario.value("model", "") == c.model);
        CHECK(r->scenario.value("weights", "") == c.weights);
    }
}

TEST_CASE("imports: TrainingArguments with an inline DeepSpeed config, and --flag=value") {
    const auto r = import_config(R"({"output_dir": "out", "per_device_train_batch_size": 4, "bf16": true,
        "deepspeed": {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": "auto"}}})",
                                 test::catalog());
    REQUIRE(r.ok());
    CHECK(r->report.format == "hf-trainer");
    CHECK(r->scenario["sharding"] == "zero2");
    CHECK(r->scenario["offload"] == "optimizer");
    CHECK(r->scenario["micro_batch"] == 4);
    bool named = false;
    for (const auto& k : r->report.read) named = named || k.key == "deepspeed.zero_optimization.stage";
    CHECK(named);
    CHECK(r->report.unknown.empty());
    // The Trainer's optim names how AdamW steps: adamw_hf loops over the parameters, the fused ones have no transient.
    const auto hf = import_config(R"({"output_dir": "out", "optim": "adamw_hf"})", test::catalog());
    REQUIRE(hf.ok());
    CHECK(hf->scenario["optimizer"] == "adamw");
    CHECK(hf->scenario["adamw_impl"] == "for-loop");
    const auto fused = import_config(R"({"output_dir": "out", "optim": "adamw_torch_fused"})", test::catalog());
    REQUIRE(fused.ok());
    CHECK(fused->scenario["adamw_impl"] == "fused");
    const auto torch = import_config(R"({"output_dir": "out", "optim": "adamw_torch"})", test::catalog());
    REQUIRE(torch.ok());
    CHECK_FALSE(torch->scenario.contains("adamw_impl"));
    const auto v = import_config("vllm serve Qwen/Qwen3-8B --max-model-len=16K --kv-cache-dtype=fp8_e4m3 -tp 2", test::catalog());
    REQUIRE(v.ok());
    CHECK(v->scenario["max_model_len"] == 16384);
    CHECK(v->scenario["kv_dtype"] == "fp8");
    CHECK(v->scenario["num_gpus"] == 2);
}

TEST_CASE("imports: DoRA in PEFT, LLaMA-Factory and axolotl configs sets lora.use_dora") {
    const auto peft = import_config(R"({"peft_type": "LORA", "r": 16, "use_dora": true, "target_modules": ["q_proj", "v_proj"]})", test::catalog());
    REQUIRE(peft.ok());
    CHECK(peft->scenario["lora"]["use_dora"] == true);
    const auto lf = import_config("model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: lora\nuse_dora: true\n", test::catalog());
    REQUIRE(lf.ok());
    CHECK(lf->scenario["lora"]["use_dora"] == true);
    const auto ax = import_config("base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: 16\npeft_use_dora: true\n", test::catalog());
    REQUIRE(ax.ok());
    CHECK(ax->scenario["lora"]["use_dora"] == true);
}
