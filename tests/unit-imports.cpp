// Import (core/src/imports/): every real config in tests/data/imports/ imports to the scenario its
// manifest names, the scenario reads without errors, and malformed input names the line and the key.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/import.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_imports {  // the file's own names: the unit tests build in unity batches

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
    struct Case {
        const char* text;
        const char* field;
        const char* words;
    };
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
    struct Case {
        const char* text;
        const char* model;
        const char* weights;
    };
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
    // vLLM's expert parallelism is a switch over the tp x dp ranks (vllm/config/parallel.py): tp 4 x dp 2 -> ep 8,
    // and the scenario it gives is accepted (ep = tp x dp is vLLM's rule, scenario/read.cpp).
    const auto ep = import_config("vllm serve Qwen/Qwen3-30B-A3B -tp 4 -dp 2 --enable-expert-parallel", test::catalog());
    REQUIRE(ep.ok());
    CHECK(ep->scenario["ep"] == 8);
    CHECK(ep->scenario["num_gpus"] == 8);
    CHECK(vramcalc::scenario_from_json(ep->scenario, test::catalog()).ok());
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

// Issue 42: the importers are bounded, refuse what the tool refuses, and say what they could not use.
namespace {

std::string first_error(const Result<Imported>& r) { return r.errors.empty() ? "" : r.errors.front().text(); }

bool has_warning(const Result<Imported>& r, const std::string& words) {
    bool in_warnings = false, in_notes = false;
    for (const auto& w : r.warnings) in_warnings = in_warnings || w.find(words) != std::string::npos;
    if (r.value)
        for (const auto& n : r->report.notes) in_notes = in_notes || (n.rfind("warning: ", 0) == 0 && n.find(words) != std::string::npos);
    return in_warnings && in_notes;
}

}  // namespace

TEST_CASE("imports: YAML aliases, documents and sizes are bounded") {
    // A billion laughs: nine aliases per level, nine levels (10^9 values once expanded) in under 1 KB.
    std::string laughs = "a: &a {x1: lol, x2: lol, x3: lol, x4: lol, x5: lol, x6: lol, x7: lol, x8: lol, x9: lol}\n";
    const std::string names = "abcdefghi";
    for (std::size_t level = 1; level < names.size(); ++level) {
        laughs += std::string(1, names[level]) + ": &" + names[level] + " {";
        for (int i = 0; i < 9; ++i) laughs += (i ? ", k" : "k") + std::to_string(i) + ": *" + names[level - 1];
        laughs += "}\n";
    }
    laughs += "output_dir: out\n";
    REQUIRE(laughs.size() < 1024);
    const auto r = import_config(laughs, test::catalog());
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(first_error(r), Catch::Contains("more than 10000 values") && Catch::Contains("node limit"));
    // A self-referencing anchor is a cycle: refused at the depth limit, not walked forever.
    const auto cycle = import_config("output_dir: out\nx: &c {y: *c}\n", test::catalog());
    REQUIRE_FALSE(cycle.ok());
    CHECK_THAT(first_error(cycle), Catch::Contains("depth limit"));
    // Long keys repeated by aliases: the paths' text is bounded as well as their count.
    std::string longkeys =
        "output_dir: out\n"
        "a: &a {" +
        std::string(1000, 'k') + ": 1}\n";
    for (char c = 'b'; c <= 'e'; ++c) {
        longkeys += std::string(1, c) + ": &" + c + " {";
        for (int i = 0; i < 8; ++i) longkeys += (i ? ", " : "") + std::string(300, static_cast<char>('m' + i)) + ": *" + static_cast<char>(c - 1);
        longkeys += "}\n";
    }
    CHECK_THAT(first_error(import_config(longkeys, test::catalog())), Catch::Contains("key limit") || Catch::Contains("size limit"));
    // PyYAML's safe_load refuses a second document.
    const auto two = import_config("output_dir: out\n---\noutput_dir: other\n", test::catalog());
    REQUIRE_FALSE(two.ok());
    CHECK_THAT(first_error(two), Catch::Contains("line 2") && Catch::Contains("second YAML document"));
    // More lines than the node limit is refused before yaml-cpp parses it; so is a file over the size limit.
    std::string many = "output_dir: out\n";
    for (int i = 0; i < 10001; ++i) many.append("k").append(std::to_string(i)).append(": 1\n");
    CHECK_THAT(first_error(import_config(many, test::catalog())), Catch::Contains("node limit"));
    CHECK_THAT(first_error(import_config("output_dir: \"" + std::string(300000, 'a') + "\"\n", test::catalog())),
               Catch::Contains("size limit"));
    std::string words = "vllm serve Qwen/Qwen3-8B";
    for (int i = 0; i < 6000; ++i) words += " --seed 1";
    CHECK_THAT(first_error(import_config(words, test::catalog())), Catch::Contains("more than 10000 words"));
}

TEST_CASE("imports: configs the tool itself refuses are refused with its reason") {
    const auto dup = import_config("{\"train_micro_batch_size_per_gpu\": 1,\n \"zero_optimization\": {\"stage\": 2, \"stage\": 3}}",
                                   test::catalog());
    REQUIRE_FALSE(dup.ok());
    CHECK_THAT(first_error(dup), Catch::Contains("Duplicate keys in DeepSpeed config") && Catch::Contains("zero_optimization.stage"));
    const auto both = import_config("{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true},\n \"fp16\": {\"enabled\": true}}",
                                    test::catalog());
    REQUIRE_FALSE(both.ok());
    CHECK_THAT(first_error(both), Catch::Contains("line 2, key fp16.enabled") &&
                                      Catch::Contains("bfloat16 and fp16 modes cannot be simultaneously enabled"));
    // "auto" is the HF Trainer's to fill in from one of its flags: not refused.
    CHECK(import_config("{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": \"auto\"}, \"fp16\": {\"enabled\": \"auto\"}}",
                        test::catalog())
              .ok());
    const auto ds0 = import_config("{\"train_micro_batch_size_per_gpu\": 0}", test::catalog());
    CHECK_THAT(first_error(ds0), Catch::Contains("has to be greater than 0"));
    const auto hf0 = import_config("output_dir: out\nper_device_train_batch_size: 0\n", test::catalog());
    CHECK_THAT(first_error(hf0), Catch::Contains("line 2, key per_device_train_batch_size") && Catch::Contains("DataLoader"));
    const auto hf2 = import_config("output_dir: out\nbf16: true\nfp16: true\n", test::catalog());
    CHECK_THAT(first_error(hf2), Catch::Contains("At most one of fp16 and bf16"));
    // A quote never closed: a shell refuses the script (the flags after it are not silently dropped).
    const auto quote = import_config("vllm serve m --x \"abc --tensor-parallel-size 8\n", test::catalog());
    REQUIRE_FALSE(quote.ok());
    CHECK_THAT(first_error(quote), Catch::Contains("unbalanced quote at line 1"));
    CHECK_THAT(first_error(import_config("llama-server -m x.gguf -ngl 2147483648", test::catalog())), Catch::Contains("std::stoi"));
}

TEST_CASE("imports: out-of-range and repeated values are reported with a warning") {
    for (const char* tp : {"0", "-2", "2147483648"}) {
        INFO(tp);
        const auto r = import_config(std::string("vllm serve Qwen/Qwen3-8B -tp ") + tp, test::catalog());
        REQUIRE(r.ok());
        CHECK_FALSE(r->scenario.contains("tp"));
        CHECK_FALSE(r->scenario.contains("num_gpus"));
        REQUIRE(r->report.ignored.size() >= 1);
        CHECK(has_warning(r, "out of range for tp (allowed: 1 to 4096)"));
    }
    const auto dp = import_config("vllm serve Qwen/Qwen3-8B -tp 2 -dp 0", test::catalog());
    REQUIRE(dp.ok());
    CHECK(dp->scenario["num_gpus"] == 2);
    CHECK(has_warning(dp, "data-parallel replicas is out of range"));
    // -ngl: llama.cpp reads any negative count as every layer; other than -1/-2 that is worth a word.
    const auto ngl = import_config("llama-server -m x-Q4_K_M.gguf -ngl -5", test::catalog());
    REQUIRE(ngl.ok());
    CHECK(ngl->scenario["n_gpu_layers"] == -1);
    CHECK(has_warning(ngl, "line 1, key -ngl: a negative layer count"));
    // A repeated flag: the last one wins (argparse), and the report says so.
    const auto rep = import_config("vllm serve Qwen/Qwen3-8B \\\n  -tp 2 \\\n  -tp 4\n", test::catalog());
    REQUIRE(rep.ok());
    CHECK(rep->scenario["tp"] == 4);
    bool reported = false;
    for (const auto& k : rep->report.ignored) reported = reported || (k.key == "-tp" && k.line == 2 && k.note.find("line 3") != std::string::npos);
    CHECK(reported);
    CHECK(has_warning(rep, "line 2, key -tp: written again on line 3"));
    // A YAML key written twice: PyYAML keeps the last, whole (a map is not merged).
    const auto yrep = import_config("output_dir: out\nper_device_train_batch_size: 2\nper_device_train_batch_size: 4\n", test::catalog());
    REQUIRE(yrep.ok());
    CHECK(yrep->scenario["micro_batch"] == 4);
    CHECK(has_warning(yrep, "line 2, key per_device_train_batch_size: written again on line 3"));
    const auto grad = import_config("output_dir: out\ngradient_accumulation_steps: 0\n", test::catalog());
    REQUIRE(grad.ok());
    CHECK_FALSE(grad->scenario.contains("grad_accum"));
    CHECK(has_warning(grad, "out of range for grad_accum"));
}

TEST_CASE("imports: LLaMA-Factory, axolotl and TRL load a 16-bit base as the tools do") {
    const char* lf =
        "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: lora\nlora_target: all\n"
        "bf16: true\ngradient_checkpointing: false\ncutoff_len: 1024\n";
    const auto r = import_config(lf, test::catalog());
    REQUIRE(r.ok());
    CHECK(r->scenario["precision"] == "bf16");
    CHECK(r->scenario["checkpointing"] == "full");  // LLaMA-Factory's own switch is disable_gradient_checkpointing
    const auto sc = scenario_from_json(r->scenario, test::catalog());
    REQUIRE(sc.ok());
    const Bill b = estimate(*sc.value);
    CHECK(static_cast<double>(b.component("weights")) / static_cast<double>(b.parameters) == Approx(2.0).epsilon(0.01));
    // Full tuning: the trained weights are upcast to fp32 and autocast computes in bf16.
    const auto full = import_config("model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: full\nbf16: true\n",
                                    test::catalog());
    REQUIRE(full.ok());
    CHECK(full->scenario["precision"] == "bf16-mixed");
    const auto pure = import_config("stage: sft\nfinetuning_type: full\nbf16: true\npure_bf16: true\n", test::catalog());
    REQUIRE(pure.ok());
    CHECK(pure->scenario["precision"] == "bf16");
    // TRL: a model loaded in bf16 trains in bf16 unless DeepSpeed or FSDP keeps fp32 master weights.
    const auto trl = import_config("model_name_or_path: Qwen/Qwen2.5-0.5B\ntorch_dtype: bfloat16\nbf16: true\n", test::catalog());
    REQUIRE(trl.ok());
    CHECK(trl->scenario["precision"] == "bf16");
    const auto fsdp = import_config("model_name_or_path: Qwen/Qwen2.5-0.5B\ntorch_dtype: bfloat16\nbf16: true\nfsdp: full_shard\n",
                                    test::catalog());
    REQUIRE(fsdp.ok());
    CHECK(fsdp->scenario["precision"] == "bf16-mixed");
    const auto ax = import_config("base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nbf16: auto\ngradient_checkpointing: offload\n",
                                  test::catalog());
    REQUIRE(ax.ok());
    CHECK(ax->scenario["precision"] == "bf16");
    CHECK(ax->scenario["checkpointing"] == "offload");
}

TEST_CASE("imports: a TRL config runs with TRL's defaults where it leaves them out") {
    // trl/trainer/base_config.py, model_config.py, sft_config.py @f2cd5771: checkpointing on, bf16 autocast, the
    // model loaded in float32, and for SFT max_length 1024 with the chunked_nll loss.
    const auto lora = import_config("model_name_or_path: Qwen/Qwen2.5-7B\nuse_peft: true\nlora_r: 16\n", test::catalog());
    REQUIRE(lora.ok());
    CHECK(lora->scenario["checkpointing"] == "full");
    CHECK(lora->scenario["load_dtype"] == "float32");
    CHECK(lora->scenario["precision"] == "bf16-mixed");
    CHECK(lora->scenario["seq_len"] == 1024);
    CHECK(lora->scenario["loss"] == "chunked-nll");
    const auto sc = scenario_from_json(lora->scenario, test::catalog());
    REQUIRE(sc.ok());
    const Bill b = estimate(*sc.value);
    CHECK(static_cast<double>(b.component("weights")) / static_cast<double>(b.parameters) == Approx(4.0).epsilon(0.01));
    // dtype auto: the checkpoint's bf16, which the reader makes the precision.
    const auto autod = import_config("model_name_or_path: Qwen/Qwen2.5-7B\nuse_peft: true\ndtype: auto\nbf16: true\n", test::catalog());
    REQUIRE(autod.ok());
    CHECK(autod->scenario["load_dtype"] == "auto");
    CHECK_FALSE(autod->scenario.contains("precision"));
    const auto sa = scenario_from_json(autod->scenario, test::catalog());
    REQUIRE(sa.ok());
    CHECK(sa.value->precision == Precision::bf16);
    // What the file says wins; Liger's kernels fuse the loss; a GRPO config gets no SFT defaults.
    const auto own = import_config(
        "model_name_or_path: Qwen/Qwen2.5-7B\ngradient_checkpointing: false\nmax_length: 4096\n"
        "use_liger_kernel: true\n",
        test::catalog());
    REQUIRE(own.ok());
    CHECK(own->scenario["checkpointing"] == "none");
    CHECK(own->scenario["seq_len"] == 4096);
    CHECK(own->scenario["loss"] == "fused");
    const auto nll = import_config("model_name_or_path: Qwen/Qwen2.5-7B\nloss_type: nll\n", test::catalog());
    REQUIRE(nll.ok());
    CHECK(nll->scenario["loss"] == "standard");
    const auto grpo = import_config("model_name_or_path: Qwen/Qwen2.5-7B\nnum_generations: 8\n", test::catalog());
    REQUIRE(grpo.ok());
    CHECK_FALSE(grpo->scenario.contains("loss"));
    CHECK_FALSE(grpo->scenario.contains("seq_len"));
    CHECK(grpo->scenario["checkpointing"] == "full");
}

}  // namespace unit_imports
}  // namespace
