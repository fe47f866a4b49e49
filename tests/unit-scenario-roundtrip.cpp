// scenario_to_json is the exact inverse of scenario_from_json: random scenarios (a seeded PRNG over every
// key: all enums, both workloads, all frameworks, custom GPUs with arch/bf16, inline configs from the
// presets' config.json, parameter-count-only models, lora and rlhf objects) read, write, read again to
// the same struct and the same bill, write the same JSON again, and survive the URL codec.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/rows.hpp"  // internal: the key table's bindings, to compare structs field by field
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/scenario_keys.hpp"
#include "vramcalc/url_state.hpp"

namespace {
namespace unit_scenario_roundtrip {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

// Draws from std::mt19937_64, whose output the standard fixes: the same scenarios on every platform.
struct Draw {
    std::mt19937_64 rng{20261123};
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng() % n); }
    bool chance(int percent) { return below(100) < static_cast<std::size_t>(percent); }
    template <class V>
    const typename V::value_type& one(const V& v) { return v[below(v.size())]; }
    std::int64_t of(std::initializer_list<std::int64_t> l) { return *(l.begin() + below(l.size())); }
    double real(std::initializer_list<double> l) { return *(l.begin() + below(l.size())); }
};

const std::vector<std::string> kFrameworks = allowed_values("framework");
const std::vector<std::string> kArchs = {"", "volta", "turing", "ampere", "ada", "hopper", "blackwell"};
const std::vector<std::string> kModules = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                                           "c_attn", "query_key_value", "gate_up_proj", "qkv_proj", "w1", "w3"};

// A layer-stack preset (CNNs, ViTs) or its inline {"input", "layers"}: such a model trains data parallel in
// plain PyTorch, with no freeze method and no RLHF (the reader refuses those; scenario/read.cpp check_stack).
bool is_stack_model(const json& m) {
    if (m.is_object()) return m.contains("layers");
    const ModelPreset* p = m.is_string() ? test::catalog().find_model(m.get<std::string>()) : nullptr;
    return p && p->spec.stack;
}

void fit_layer_stack(json& j) {
    if (!is_stack_model(j["model"])) return;
    if (j.value("method", "") == "freeze") j["method"] = "full";
    const std::string f = j.value("framework", "");
    if (f == "vllm" || f == "llama.cpp") j["framework"] = "hf";
    std::int64_t split = 1;
    for (const char* k : {"tp", "pp", "cp", "ep"})
        if (j.contains(k)) split *= j[k].get<std::int64_t>(), j[k] = 1;
    if (j.contains("num_gpus")) j["num_gpus"] = j["num_gpus"].get<std::int64_t>() / split;
    j.erase("rlhf");
}

// A hybrid Mamba / attention model (Nemotron-H) is modelled for serving with vLLM and transformers only (the
// reader refuses the rest; scenario/read.cpp check_hybrid).
void fit_hybrid(json& j) {
    const json& m = j["model"];
    const ModelPreset* p = m.is_string() ? test::catalog().find_model(m.get<std::string>()) : nullptr;
    const bool hybrid = m.is_object() ? m.contains("hybrid_override_pattern") : p && !p->spec.hybrid.pattern.empty();
    if (!hybrid) return;
    j["workload"] = "infer";
    const std::string f = j.value("framework", "hf");
    if (f != "vllm" && f != "hf") j["framework"] = "vllm";
    j.erase("rlhf");
}

json random_model(Draw& d, bool allow_count_only, bool allow_stack = true) {
    const auto& presets = test::catalog().models();
    const ModelPreset* pick = &d.one(presets);
    while (!allow_stack && pick->spec.stack) pick = &d.one(presets);
    const auto& p = *pick;
    const auto k = d.below(100);
    if (k < 60) return p.id;
    if (k < 85 || !allow_count_only) return json::parse(p.config_json);
    json m = {{"parameters", d.of({125000000, 1300000000, 7500000000, 70000000000})}};
    if (d.chance(70)) m["name"] = "custom " + std::to_string(d.below(1000));
    return m;
}

json random_gpu(Draw& d) {
    if (d.chance(20)) return nullptr;  // the default
    if (d.chance(50)) return d.one(test::catalog().gpus()).id;
    json g = json::object();
    if (d.chance(80)) g["name"] = "card " + std::to_string(d.below(100));
    if (d.chance(50)) g["memory_gib"] = d.real({8, 11.5, 24, 48, 80, 96, 141});
    else g["memory_bytes"] = d.of({std::int64_t{25757220864}, std::int64_t{85520809984}, std::int64_t{1} << 35});
    if (d.chance(60)) g["arch"] = d.one(kArchs);
    if (d.chance(50)) g["bf16"] = d.chance(50);
    return g;
}

json random_lora(Draw& d) {
    json l = json::object();
    if (d.chance(60)) l["rank"] = d.of({1, 4, 8, 16, 64, 256});
    if (d.chance(40)) l["alpha"] = d.real({8, 16, 32.5});
    if (d.chance(40)) l["dropout"] = d.real({0, 0.05, 0.1});
    if (d.chance(30)) l["train_embeddings"] = d.chance(50);
    if (d.chance(30)) {
        l["targets"] = "all-linear";
    } else if (d.chance(40)) {
        json t = json::array();
        for (const auto& m : kModules)
            if (d.chance(25)) t.push_back(m);
        if (t.empty()) t.push_back(d.one(kModules));
        l["targets"] = t;
    }
    return l;
}

json random_role(Draw& d, bool trained) {
    const auto k = d.below(4);
    if (k == 0) return false;
    if (k == 1) return true;
    json r = json::object();
    if (d.chance(40)) r["model"] = random_model(d, false, false);
    if (trained && d.chance(50)) r["method"] = d.chance(50) ? "full" : "lora";
    if (d.chance(50)) r["precision"] = d.one(allowed_values("precision"));
    if (d.chance(30)) r["sharding"] = d.one(allowed_values("sharding"));
    if (d.chance(30)) r["offload"] = d.one(allowed_values("offload"));
    return r;
}

json random_rlhf(Draw& d) {
    const std::string a = d.one(std::vector<std::string>{"ppo", "dpo", "grpo"});
    json x = {{"algorithm", a}};
    if (d.chance(50)) x["critic"] = random_role(d, true);
    if (d.chance(50)) x["reference"] = random_role(d, false);
    if (d.chance(50)) x["reward"] = random_role(d, false);
    if (d.chance(30)) x["group_size"] = d.of({1, 4, 8, 16});
    if (d.chance(30)) x["prompt_len"] = d.of({128, 512, 1024});
    if (d.chance(30)) x["gen_len"] = d.of({64, 512, 2048});
    if (a == "dpo") {
        if (d.chance(30)) x["rollout"] = false;
    } else if (d.chance(60)) {
        if (d.chance(30)) {
            x["rollout"] = d.chance(50);
        } else {
            json ro = json::object();
            if (d.chance(50)) ro["engine"] = d.one(allowed_values("rlhf.rollout.engine"));
            if (d.chance(50)) ro["placement"] = d.one(allowed_values("rlhf.rollout.placement"));
            if (d.chance(50)) ro["gpu_memory_utilization"] = d.real({0.3, 0.5, 0.7});
            if (d.chance(50)) ro["released"] = d.chance(50);
            if (d.chance(30)) ro["tp"] = d.of({1, 2});
            if (d.chance(30)) ro["batch"] = d.of({0, 4, 16});
            x["rollout"] = ro;
        }
    }
    return x;
}

void random_training_keys(Draw& d, json& j, int p) {
    const std::string method = d.one(allowed_values("method"));
    if (d.chance(p)) j["method"] = method;
    const bool qlora = j.value("method", "full") == "qlora";
    if (d.chance(p)) j["precision"] = d.one(allowed_values("precision"));
    if (d.chance(p)) j["optimizer"] = d.one(allowed_values("optimizer"));
    if (d.chance(p)) j["lora"] = random_lora(d);
    if (d.chance(p)) {
        std::string q = d.one(allowed_values("quantization"));
        if (qlora && q == "none") q = "nf4-dq";
        j["quantization"] = q;
    }
    if (d.chance(p)) j["trainable_layers"] = d.of({1, 2, 4});
    if (d.chance(p)) j["micro_batch"] = d.of({1, 2, 8});
    if (d.chance(p)) j["seq_len"] = d.of({128, 1024, 4096});
    if (d.chance(p)) j["grad_accum"] = d.of({1, 1, 4});
    if (d.chance(p / 2) && j.value("grad_accum", std::int64_t{1}) == 1) j["optimizer_in_backward"] = d.chance(50);
    if (d.chance(p / 2)) j["compile"] = d.chance(50);
    if (d.chance(p / 2)) j["fsdp_no_sync"] = d.chance(50);
    for (const char* k : {"checkpointing", "attention", "loss", "sharding", "offload"})
        if (d.chance(p)) j[k] = d.one(allowed_values(k));
    if (d.chance(p / 2)) j["ep"] = d.of({1, 2});
    if (d.chance(p / 2)) j["sp"] = d.chance(50);
}

void random_inference_keys(Draw& d, json& j, int p) {
    if (d.chance(p)) j["weights"] = d.one(allowed_values("weights"));
    if (d.chance(p)) j["kv_dtype"] = d.one(allowed_values("kv_dtype"));
    if (d.chance(p)) j["batch"] = d.of({1, 4, 32});
    if (d.chance(p)) j["prompt_len"] = d.of({1, 512, 4096});
    if (d.chance(p)) j["gen_len"] = d.of({0, 128, 1024});
    if (d.chance(p)) j["gpu_memory_utilization"] = d.real({0.5, 0.9, 0.95});
    if (d.chance(p)) j["group_size"] = d.of({-1, 32, 128});
    if (d.chance(p)) j["max_model_len"] = d.of({0, 4096, 32768});
    if (d.chance(p)) j["max_num_seqs"] = d.of({1, 64, 256});
    if (d.chance(p)) j["max_num_batched_tokens"] = d.of({2048, 8192});
    if (d.chance(p)) j["block_size"] = d.of({16, 32});
    if (d.chance(p)) j["enforce_eager"] = d.chance(50);
    if (d.chance(p)) j["n_ctx"] = d.of({512, 4096, 32768});
    if (d.chance(p)) j["n_gpu_layers"] = d.of({-1, 0, 10, 1000});
    if (d.chance(p)) j["n_ubatch"] = d.of({128, 512});
}

json random_scenario(Draw& d) {
    json j = {{"model", random_model(d, true)}};
    const bool train = d.chance(55);
    if (!train || d.chance(70)) j["workload"] = train ? "train" : "infer";
    if (d.chance(85)) j["framework"] = d.one(kFrameworks);
    if (json g = random_gpu(d); !g.is_null()) j["gpu"] = g;
    if (d.chance(40)) j["target_utilization"] = d.real({0.5, 0.85, 0.9, 1.0});
    // Keys of the other workload too, less often: the writer keeps what differs from a default.
    random_training_keys(d, j, train ? 50 : 10);
    random_inference_keys(d, j, train ? 10 : 50);
    const std::int64_t tp = train ? d.of({1, 1, 2}) : 1, pp = train ? d.of({1, 1, 2}) : 1, cp = train ? d.of({1, 1, 2}) : 1;
    if (tp > 1 || d.chance(20)) j["tp"] = tp;
    if (pp > 1 || d.chance(20)) j["pp"] = pp;
    if (cp > 1 || d.chance(20)) j["cp"] = cp;
    const std::int64_t dp = d.of({1, 1, 2, 4});
    if (tp * pp * cp * dp > 1 || d.chance(20)) j["num_gpus"] = tp * pp * cp * dp;
    // ep must divide the data-parallel ranks (vLLM serving: equal tp x dp) and needs experts (the reader refuses
    // it otherwise).
    if (j.contains("ep") && j["ep"] != 1) {
        const ModelPreset* m = j["model"].is_string() ? test::catalog().find_model(j["model"].get<std::string>()) : nullptr;
        const std::int64_t ep = j["ep"].get<std::int64_t>();
        const bool vllm_serving = !train && j.value("framework", "") == "vllm";
        if (!m || m->spec.moe.experts < ep || (vllm_serving ? ep != tp * dp : dp % ep != 0)) j["ep"] = 1;
    }
    if (train && d.chance(20)) j["rlhf"] = random_rlhf(d);
    if (d.chance(5)) j["model_hub_id"] = "org/model";
    fit_layer_stack(j);
    fit_hybrid(j);
    return j;
}

std::string bill_text(const Scenario& s) { return bill_to_json(estimate(s)).dump(); }

// The bill less the warnings that name a key doing nothing (contradictions.cpp check_ignored_keys).
std::string bill_text_without_ignored(const Scenario& s) {
    json j = bill_to_json(estimate(s));
    json kept = json::array();
    for (const auto& w : j["warnings"])
        if (w.get<std::string>().find(": ignored with ") == std::string::npos) kept.push_back(w);
    j["warnings"] = kept;
    return j.dump();
}

void check_same_role(const RlhfRole& a, const RlhfRole& b) {
    CHECK(a.present == b.present);
    if (!a.present) return;
    CHECK(a.same_model == b.same_model);
    CHECK(a.model_ref == b.model_ref);
    CHECK(a.model_config == b.model_config);
    CHECK(a.method == b.method);
    CHECK(a.precision == b.precision);
    CHECK(a.sharding == b.sharding);
    CHECK(a.offload == b.offload);
}

// Equal structs: every field a row of the key table binds, the model, the GPU and the RLHF setup.
void check_same_struct(const Scenario& a, const Scenario& b) {
    for (const auto& row : detail::key_rows()) {
        if (!row.bind.at_default || row.key.name == "model" || row.key.name == "gpu" || row.key.name == "rlhf") continue;
        INFO("key " << row.key.name);
        CHECK(row.bind.at_default(a, b));
    }
    CHECK(a.model_ref == b.model_ref);
    CHECK(a.model_config == b.model_config);
    CHECK(a.model.name == b.model.name);
    CHECK(count_parameters(a.model).total == count_parameters(b.model).total);
    CHECK(a.gpu.id == b.gpu.id);
    CHECK(a.gpu.name == b.gpu.name);
    CHECK(a.gpu.arch == b.gpu.arch);
    CHECK(a.gpu.bf16 == b.gpu.bf16);
    CHECK(a.gpu.memory_bytes == b.gpu.memory_bytes);
    const RlhfSetup &x = a.rlhf, &y = b.rlhf;
    CHECK(x.algorithm == y.algorithm);
    check_same_role(x.critic, y.critic);
    check_same_role(x.reference, y.reference);
    check_same_role(x.reward, y.reward);
    CHECK((x.rollout == y.rollout && x.rollout_engine == y.rollout_engine && x.rollout_colocated == y.rollout_colocated &&
           x.rollout_gpu_memory_utilization == y.rollout_gpu_memory_utilization && x.rollout_released == y.rollout_released &&
           x.rollout_tp == y.rollout_tp && x.rollout_batch == y.rollout_batch));
    CHECK((x.group_size == y.group_size && x.prompt_len == y.prompt_len && x.gen_len == y.gen_len));
}

}  // namespace

TEST_CASE("scenario round trip: 1,000 random scenarios read, write and read again to the same struct, bill and JSON") {
    Draw d;
    int valid = 0, tried = 0, inline_models = 0, count_only = 0, custom_gpus = 0, rlhf = 0, infer = 0, dropped = 0;
    std::vector<std::string> rejected;
    while (valid < 1000 && tried < 1200) {
        ++tried;
        const json j0 = random_scenario(d);
        const auto s1 = scenario_from_json(j0, test::catalog());
        if (!s1.ok()) {
            rejected.push_back(j0.dump() + "\n  " + s1.error_text());
            continue;
        }
        ++valid;
        inline_models += s1->model_ref == "inline";
        count_only += s1->model_ref == "parameters";
        custom_gpus += s1->gpu.id == "custom";
        rlhf += s1->rlhf.algorithm != RlhfAlgorithm::none;
        infer += s1->workload == Workload::infer;

        const json j1 = scenario_to_json(*s1);
        INFO("scenario: " << j0.dump() << "\nwritten: " << j1.dump());
        const auto s2 = scenario_from_json(j1, test::catalog());
        INFO(s2.error_text());
        REQUIRE(s2.ok());
        CHECK(s2.warnings.size() <= s1.warnings.size());
        check_same_struct(*s1, *s2);
        CHECK(scenario_to_json(*s2) == j1);
        CHECK(bill_text(*s2) == bill_text(*s1));
        // The link of the written scenario decodes to it.
        const auto back = decode_url_state(encode_url_state(j1));
        REQUIRE(back.ok());
        CHECK(*back == j1);
        // The page's link (issue 41): the scenario as the user left it, less the keys its estimate does not read,
        // gives the same bill; every key it keeps is one the estimate reads.
        const json kept = applicable_keys(j0, *s1);
        INFO("link keeps: " << kept.dump());
        const auto linked = decode_url_state(encode_url_state(kept));
        REQUIRE(linked.ok());
        const auto s3 = scenario_from_json(*linked, test::catalog());
        INFO(s3.error_text());
        REQUIRE(s3.ok());
        CHECK(bill_text_without_ignored(*s3) == bill_text_without_ignored(*s1));
        dropped += kept.size() < j0.size();
        for (const auto& [k, v] : kept.items())
            if (const ScenarioKey* key = find_scenario_key(k); key && key->read) {
                INFO("key " << k);
                CHECK(read_by_estimate(*key, *s1));
            }
    }
    CHECK(dropped >= 100);  // the generator gives keys of the other workload often enough
    INFO("rejected (the generator should make valid scenarios):\n"
         << (rejected.empty() ? "" : rejected.front()));
    CHECK(valid == 1000);
    CHECK(rejected.size() <= 10);
    // Every kind of input was drawn often enough to mean something.
    CHECK(inline_models >= 100);
    CHECK(count_only >= 50);
    CHECK(custom_gpus >= 200);
    CHECK(rlhf >= 50);
    CHECK(infer >= 300);
}

TEST_CASE("scenario round trip: a custom GPU keeps arch and bf16, so its CUDA context survives the trip") {
    const json j = {{"model", "gpt2"}, {"gpu", {{"name", "V100 32GB"}, {"memory_gib", 32}, {"arch", "volta"}, {"bf16", false}}}};
    const Scenario s1 = test::scenario(j);
    const json w = scenario_to_json(s1);
    CHECK(w["gpu"] == json{{"name", "V100 32GB"}, {"memory_bytes", 34359738368}, {"arch", "volta"}, {"bf16", false}});
    const Scenario s2 = test::scenario(w);
    CHECK(s2.gpu.arch == "volta");
    CHECK_FALSE(s2.gpu.bf16);
    CHECK(estimate(s2).component("cuda_context") == estimate(s1).component("cuda_context"));
    CHECK(estimate(s1).component("cuda_context") == 1343LL * 1048576);  // eager kernel loading (Volta)
}

TEST_CASE("scenario round trip: inline configs, count-only models and RLHF role models are written as given") {
    const auto& p = *test::catalog().find_model("qwen2.5-7b");
    const json config = json::parse(p.config_json);
    const Scenario s = test::scenario({{"model", config}, {"method", "lora"}, {"rlhf", {{"algorithm", "ppo"}, {"reward", {{"model", config}}}, {"critic", {{"model", "gpt2"}}}}}});
    const json w = scenario_to_json(s);
    CHECK(w["model"] == config);
    CHECK(w["rlhf"]["reward"]["model"] == config);
    CHECK(w["rlhf"]["critic"]["model"] == "gpt2");
    CHECK(count_parameters(test::scenario(w).model).total == p.params.total);

    const json zero = {{"model", {{"name", "ZeRO 7.5B"}, {"parameters", 7500000000}}}};
    CHECK(scenario_to_json(test::scenario(zero))["model"] == zero["model"]);
    CHECK(scenario_to_json(test::scenario({{"model", {{"parameters", 1000}}}}))["model"] ==
          json{{"name", "custom model"}, {"parameters", 1000}});
}

}  // namespace unit_scenario_roundtrip
}  // namespace
