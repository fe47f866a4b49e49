// Scenario JSON: validation reports every problem; defaults (one owner: default_scenario); the key
// table; round trip through scenario_to_json (random scenarios: unit-scenario-roundtrip.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "model/lora_targets.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_scenario {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

TEST_CASE("scenario: defaults follow the spec") {
    auto r = scenario_from_text(R"({"model": "llama-3.1-8b"})", test::catalog());
    REQUIRE(r.ok());
    CHECK(r->workload == Workload::train);
    CHECK(r->framework == Framework::hf);
    CHECK(r->gpu.id == "h100-80gb");
    CHECK(r->gpu.memory_bytes == 85520809984);  // 81559 MiB as nvidia-smi reports it
    CHECK(r->num_gpus == 1);
    CHECK(r->target_utilization == Approx(0.9));
}

TEST_CASE("scenario: every problem is reported with field, value and what is allowed") {
    auto r = scenario_from_text(R"({"model": "no-such-model", "workload": "serve", "micro_batch": 0, "seq_len": -4,
        "precision": "int3", "gpu": "gtx-480", "lora": {"rank": 0}, "num_gpus": 3, "tp": 2})",
                                test::catalog());
    REQUIRE_FALSE(r.ok());
    const std::string t = r.error_text();
    INFO(t);
    CHECK(t.find("model: unknown preset id \"no-such-model\"") != std::string::npos);
    CHECK(t.find("workload: got \"serve\", allowed: train, infer") != std::string::npos);
    CHECK(t.find("micro_batch: got 0, expected an integer from 1") != std::string::npos);
    CHECK(t.find("seq_len: got -4") != std::string::npos);
    CHECK(t.find("precision: got \"int3\", allowed: fp32, fp16-mixed, bf16-mixed, fp16, bf16") != std::string::npos);
    CHECK(t.find("gpu: unknown GPU id \"gtx-480\"") != std::string::npos);
    CHECK(t.find("lora.rank: got 0") != std::string::npos);
    CHECK(t.find("num_gpus: 3 is not a multiple of tp x pp x cp = 2") != std::string::npos);
    CHECK(r.errors.size() == 8);
}

TEST_CASE("scenario: malformed documents are errors, not crashes") {
    const char* cases[] = {"", "{", "[]", "null", "42", R"({"model": 5})", R"({"model": null})",
                           R"({"model": {"parameters": -1}})", R"({"model": {"model_type": "llama"}})",
                           R"({"model": "gpt2", "gpu": {"name": "x"}})", R"({"model": "gpt2", "gpu": [1]})",
                           R"({"model": "gpt2", "lora": {"targets": 7}})", R"({"model": "gpt2", "weights": "int3"})",
                           R"({"model": "gpt2", "target_utilization": 2})"};
    for (const char* c : cases) {
        INFO(c);
        auto r = scenario_from_text(c, test::catalog());
        CHECK_FALSE(r.ok());
        CHECK_FALSE(r.errors.empty());
    }
}

TEST_CASE("scenario: inline config, custom GPU and parameter-only models") {
    auto r = scenario_from_text(R"({"model": {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12,
        "n_head": 12, "n_positions": 1024}, "gpu": {"name": "My card", "memory_gib": 48}})",
                                test::catalog());
    REQUIRE(r.ok());
    CHECK(r->gpu.memory_bytes == 48LL << 30);
    CHECK(count_parameters(r->model).total == 124439808);
    auto p = scenario_from_text(R"({"model": {"name": "ZeRO 7.5B", "parameters": 7500000000}})", test::catalog());
    REQUIRE(p.ok());
    CHECK(count_parameters(p->model).total == 7500000000);
}

TEST_CASE("scenario: unknown keys are warnings") {
    auto r = scenario_from_text(R"({"model": "gpt2", "colour": "blue", "extra": {"anything": 1}})", test::catalog());
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("colour") != std::string::npos);
}

TEST_CASE("scenario: unknown keys of the lora, gpu, rlhf and rollout objects are warnings too (from the key table)") {
    auto r = scenario_from_text(R"({"model": "gpt2", "method": "lora", "lora": {"rnak": 4, "r": 4}, "gpu": {"name": "x", "memory_gib": 8, "vendor": "amd"},
        "rlhf": {"algorithm": "ppo", "rollout": {"engine": "vllm", "gpu_util": 0.5}, "kl": 0.1}})",
                                test::catalog());
    REQUIRE(r.ok());
    std::string all;
    for (const auto& w : r.warnings) all += w + "\n";
    INFO(all);
    CHECK(r.warnings.size() == 4);
    for (const char* k : {"lora.rnak", "gpu.vendor", "rlhf.rollout.gpu_util", "rlhf.kl"})
        CHECK(all.find(std::string("unknown scenario key \"") + k + "\" ignored") != std::string::npos);
    CHECK(r->lora.rank == 4);  // "r" is lora.rank's alias
}

TEST_CASE("scenario: JSON round trip") {
    const char* texts[] = {
        R"({"model": "qwen2.5-7b", "method": "lora", "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"},
            "micro_batch": 4, "seq_len": 4096, "optimizer": "adamw-8bit", "gpu": "a100-80gb"})",
        R"({"model": "llama-3.1-8b", "workload": "infer", "weights": "awq-int4", "batch": 8, "prompt_len": 2000,
            "gen_len": 500, "kv_dtype": "fp8", "framework": "vllm"})",
        R"({"model": "mistral-7b-v0.1", "method": "qlora", "quantization": "nf4-dq", "gpu": {"name": "X", "memory_gib": 24}})"};
    for (const char* t : texts) {
        INFO(t);
        auto a = scenario_from_text(t, test::catalog());
        REQUIRE(a.ok());
        const json ja = scenario_to_json(*a);
        auto b = scenario_from_json(ja, test::catalog());
        REQUIRE(b.ok());
        CHECK(scenario_to_json(*b) == ja);
    }
}

TEST_CASE("scenario defaults: C++ (default_scenario) and JSON callers get identical bills, for every framework and workload") {
    int n = 0;
    for (const std::string& fw : allowed_values("framework")) {
        for (const std::string& wl : allowed_values("workload")) {
            for (const char* method : {"full", "lora", "qlora"}) {
                if (wl == "infer" && std::string(method) != "full") continue;
                INFO(fw << " " << wl << " " << method);
                json j = {{"model", "llama-3.1-8b"}, {"framework", fw}, {"workload", wl}};
                if (std::string(method) != "full") j["method"] = method;
                auto from_json = scenario_from_json(j, test::catalog());
                REQUIRE(from_json.ok());
                Scenario s = default_scenario(from_json->framework, from_json->workload, test::catalog());
                s.model = test::catalog().find_model("llama-3.1-8b")->spec;
                s.model_ref = "llama-3.1-8b";
                // The base's format follows the method (and the framework: Unsloth's QLoRA is nf4-dq).
                if (std::string(method) == "lora") s.method = Method::lora;
                if (std::string(method) == "qlora") s.method = Method::qlora;
                if (std::string(method) != "full") s.quantization = default_quantization(s.method, s.framework);
                s.precision = default_precision(s.framework, s.transformers, s.load_dtype, s.model);  // the checkpoint's bf16 (hf)
                CHECK(bill_to_json(estimate(s)).dump() == bill_to_json(estimate(*from_json)).dump());
                CHECK(scenario_to_json(s) == scenario_to_json(*from_json));
                ++n;
            }
        }
    }
    CHECK(n == 9 * 4);
}

TEST_CASE("scenario defaults: the in-class initialisers are default_scenario(hf, train)") {
    Scenario a = default_scenario(Framework::hf, Workload::train);
    Scenario b;
    a.model_ref = b.model_ref = "gpt2";
    CHECK(b.gpu.id == "h100-80gb");
    CHECK(scenario_to_json(a) == scenario_to_json(b));
    CHECK(a.lora == b.lora);
    CHECK(b.lora.alpha == 8);  // PEFT LoraConfig(lora_alpha=8)
    CHECK(b.lora.dropout == 0.0);
    CHECK(b.lora.default_targets());
}

TEST_CASE("scenario defaults: framework-dependent values come from default_scenario") {
    const auto tt = default_scenario(Framework::torchtune, Workload::train);
    CHECK(tt.precision == Precision::bf16);
    CHECK(tt.checkpointing == Checkpointing::full);
    CHECK(tt.loss == Loss::chunked);
    CHECK(tt.lora.alpha == 16);
    CHECK(tt.lora.dropout == 0.0);
    const auto lit = default_scenario(Framework::litgpt, Workload::train);
    CHECK(lit.fsdp_no_sync);
    CHECK(lit.lora.dropout == 0.05);
    CHECK_FALSE(default_scenario(Framework::hf, Workload::train).fsdp_no_sync);
    CHECK(default_scenario(Framework::vllm, Workload::infer).gpu.id == "h100-80gb");
    CHECK(default_scenario(Framework::vllm, Workload::infer, test::catalog()).gpu.memory_bytes == 85520809984);
    const auto all = allowed_values("framework");
    for (Workload w : {Workload::train, Workload::infer})
        for (const auto& f : frameworks_for(w)) CHECK(std::find(all.begin(), all.end(), f) != all.end());
    auto r = scenario_from_text(R"({"model": "gpt2", "framework": "litgpt", "method": "lora"})", test::catalog());
    REQUIRE(r.ok());
    CHECK(r->fsdp_no_sync);
    CHECK(r->lora == lit.lora);
}

TEST_CASE("scenario defaults: RLHF per algorithm") {
    Scenario policy = default_scenario(Framework::hf, Workload::train);
    policy.precision = Precision::bf16;
    policy.sharding = Sharding::zero3;
    const RlhfSetup ppo = default_rlhf(RlhfAlgorithm::ppo, policy);
    CHECK((ppo.critic.present && ppo.reward.present && ppo.reference.present && ppo.rollout && ppo.rollout_released));
    CHECK(ppo.critic.precision == Precision::bf16);
    CHECK(ppo.critic.sharding == Sharding::zero3);
    CHECK(ppo.rollout_gpu_memory_utilization == 0.5);
    const RlhfSetup dpo = default_rlhf(RlhfAlgorithm::dpo, policy);
    CHECK((!dpo.critic.present && !dpo.reward.present && dpo.reference.present && !dpo.rollout));
    const RlhfSetup grpo = default_rlhf(RlhfAlgorithm::grpo, policy);
    CHECK(grpo.group_size == 8);
    CHECK(grpo.rollout_gpu_memory_utilization == 0.3);
    CHECK_FALSE(grpo.rollout_released);
    // The reader gives the same for {"algorithm": ...}.
    auto r = scenario_from_text(R"({"model": "gpt2", "precision": "bf16", "sharding": "zero3", "rlhf": {"algorithm": "grpo"}})",
                                test::catalog());
    REQUIRE(r.ok());
    CHECK(r->rlhf.group_size == grpo.group_size);
    CHECK(r->rlhf.rollout_gpu_memory_utilization == grpo.rollout_gpu_memory_utilization);
    CHECK(r->rlhf.reference.sharding == Sharding::zero3);
}

TEST_CASE("scenario: LoRA targets absent mean the model's default targets") {
    auto r = scenario_from_text(R"({"model": "llama-3.1-8b", "method": "lora"})", test::catalog());
    REQUIRE(r.ok());
    CHECK(r->lora.targets.empty());
    CHECK(r->lora.default_targets());
    CHECK_FALSE(scenario_to_json(*r)["lora"].contains("targets"));
    CHECK(detail::lora_target_names(r->lora, r->model) == "q_proj, v_proj");  // PEFT's default, by role
    auto named = scenario_from_text(R"({"model": "llama-3.1-8b", "method": "lora", "lora": {"targets": ["q_proj", "v_proj"]}})",
                                    test::catalog());
    REQUIRE(named.ok());
    CHECK_FALSE(named->lora.default_targets());
    CHECK(scenario_to_json(*named)["lora"]["targets"] == json{"q_proj", "v_proj"});
    // Llama's default is q_proj, v_proj: the same bill either way.
    CHECK(bill_to_json(estimate(*named)) == bill_to_json(estimate(*r)));
    auto all = scenario_from_text(R"({"model": "llama-3.1-8b", "method": "lora", "lora": {"targets": "all-linear"}})", test::catalog());
    REQUIRE(all.ok());
    CHECK(scenario_to_json(*all)["lora"]["targets"] == "all-linear");
}

TEST_CASE("scenario keys: one table for the reader, the writer, the URL order and the help") {
    std::set<std::string> names;
    for (const auto& k : scenario_keys()) {
        INFO(k.name);
        CHECK(names.insert(std::string(k.name)).second);  // no key twice
        const auto dot = k.name.rfind('.');
        if (dot != std::string_view::npos) CHECK(names.count(std::string(k.name.substr(0, dot))));  // parent first
        CHECK_FALSE(k.help.empty());
        if (k.type == KeyType::integer || k.type == KeyType::number) CHECK(k.min < k.max);
        if (k.type == KeyType::enumeration) CHECK_FALSE(allowed_values(k.name).empty());
        if (dot == std::string_view::npos) {
            // A top-level key is known to the reader: no "unknown key" warning.
            json j = {{"model", "gpt2"}};
            if (k.name != "model") j[std::string(k.name)] = nullptr;
            CHECK(scenario_from_json(j, test::catalog()).warnings.empty());
        }
    }
    for (const char* k : {"compile", "optimizer_in_backward", "fsdp_no_sync", "max_num_seqs", "n_ubatch", "lora.rank", "rlhf.rollout.tp"})
        CHECK(find_scenario_key(k) != nullptr);
    CHECK(scenario_key_help("lora.dropout").find("dropout mask") != std::string_view::npos);
    CHECK(scenario_key_help("no-such-key").empty());
    // Range checks and their messages come from the table.
    const ScenarioKey& mb = *find_scenario_key("micro_batch");
    auto r = scenario_from_text(R"({"model": "gpt2", "micro_batch": 0, "lora": {"r": 0}})", test::catalog());
    CHECK(r.error_text().find("micro_batch: got 0, expected an integer from " + std::to_string(static_cast<long long>(mb.min)) +
                              " to " + std::to_string(static_cast<long long>(mb.max))) != std::string::npos);
    CHECK(r.error_text().find("lora.r: got 0") != std::string::npos);  // the alias of lora.rank
    // Where a key applies (what the writer writes at its default).
    Scenario s = default_scenario(Framework::vllm, Workload::infer);
    CHECK(applies_to(*find_scenario_key("max_num_seqs"), s));
    CHECK_FALSE(applies_to(*find_scenario_key("n_ctx"), s));
    CHECK_FALSE(applies_to(*find_scenario_key("micro_batch"), s));
    CHECK_FALSE(applies_to(*find_scenario_key("group_size"), s));
    s.weights = "awq-int4";
    CHECK(applies_to(*find_scenario_key("group_size"), s));
}

TEST_CASE("scenario: the writer keeps every key that differs from its default, wherever it applies") {
    auto r = scenario_from_text(R"({"model": "gpt2", "workload": "infer", "micro_batch": 4, "compile": true, "n_ctx": 8192})",
                                test::catalog());
    REQUIRE(r.ok());
    const json w = scenario_to_json(*r);
    CHECK(w["micro_batch"] == 4);
    CHECK(w["compile"] == true);
    CHECK(w["n_ctx"] == 8192);
    CHECK_FALSE(w.contains("seq_len"));       // a training key at its default, in an inference scenario
    CHECK_FALSE(w.contains("max_num_seqs"));  // a vLLM key at its default, for hf
}

}  // namespace unit_scenario
}  // namespace
