// The key table's defaults and ranges: the defaults help shows are default_scenario's (every framework of
// every workload), and the ranges the UI's number widgets clamp to are the reader's.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "vramcalc/scenario_json.hpp"
#include "vramcalc/scenario_keys.hpp"

namespace {
namespace unit_scenario_keys {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

// A value as help shows it, rendered here independently of the core.
std::string rendered(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>())) return std::to_string(v.get<std::int64_t>());
    return v.dump();
}

// The value the text "<v>; a, b: <v2>; c: <v3> (note)" gives framework `f`.
std::string value_for(std::string text, std::string_view note, const std::string& f) {
    if (!note.empty() && text.rfind(std::string(note), 0) == 0) {
        text.replace(0, note.size(), "(note)");  // no value in the key's context: the note stands first
    } else if (!note.empty()) {
        const std::string tail = " (" + std::string(note) + ")";
        REQUIRE(text.size() > tail.size());
        REQUIRE(text.substr(text.size() - tail.size()) == tail);
        text.resize(text.size() - tail.size());
    }
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
        const auto sc = text.find("; ", at);
        parts.push_back(text.substr(at, sc - at));
        if (sc == std::string::npos) break;
        at = sc + 2;
    }
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const auto colon = parts[i].find(": ");
        const std::string names = ", " + parts[i].substr(0, colon) + ",";
        if (names.find(", " + f + ",") != std::string::npos) return parts[i].substr(colon + 2);
    }
    return parts.front();
}

Framework framework_named(const std::string& name) {
    for (Framework f : {Framework::hf, Framework::torchtune, Framework::litgpt, Framework::deepspeed, Framework::megatron,
                        Framework::vllm, Framework::llamacpp, Framework::unsloth, Framework::torchtitan})
        if (name == to_string(f)) return f;
    FAIL("unknown framework " << name);
    return Framework::hf;
}

// Top-level primitives and the primitives of top-level objects ("lora.rank") of a written scenario.
std::vector<std::pair<std::string, json>> flattened(const json& j) {
    std::vector<std::pair<std::string, json>> out;
    for (const auto& [k, v] : j.items()) {
        if (v.is_primitive()) out.push_back({k, v});
        if (v.is_object())
            for (const auto& [k2, v2] : v.items())
                if (v2.is_primitive()) out.push_back({k + "." + k2, v2});
    }
    return out;
}

}  // namespace

TEST_CASE("scenario keys: the defaults help shows are default_scenario's") {
    int checked = 0;
    for (Workload w : {Workload::train, Workload::infer}) {
        for (const std::string& f : frameworks_for(w)) {
            const Scenario s = default_scenario(framework_named(f), w);
            for (const auto& [name, value] : flattened(scenario_to_json(s))) {
                const ScenarioKey* k = find_scenario_key(name);
                if (!k || name == "workload" || name == "framework" || (value.is_string() && value.get<std::string>().empty())) continue;
                INFO(f << " " << to_string(w) << " " << name << " = " << value.dump());
                const std::string d = scenario_key_default(name, s.framework, w);
                REQUIRE_FALSE(d.empty());
                CHECK(json::parse(d) == value);
                CHECK(value_for(scenario_key_default_text(name), k->default_note, f) == rendered(value));
                ++checked;
            }
        }
    }
    CHECK(checked > 200);
    // The three that disagreed with default_scenario when the table kept its own copy in words.
    CHECK(scenario_key_default_text("lora.rank") == "8; unsloth: 16");
    CHECK(scenario_key_default_text("lora.alpha") == "8; torchtune, litgpt, deepspeed, megatron, unsloth: 16");
    CHECK(scenario_key_default_text("lora.dropout") == "0; litgpt, deepspeed, megatron: 0.05");
    CHECK(scenario_key_default("lora.alpha", Framework::torchtitan, Workload::train) == "8.0");
    // Keys of one framework show its default; the note says what a value means.
    CHECK(scenario_key_default_text("max_num_seqs") == "256");
    CHECK(scenario_key_default_text("n_gpu_layers") == "-1 (all)");
    CHECK(scenario_key_default_text("precision") ==
          "bf16; litgpt, deepspeed, megatron, unsloth, torchtitan: bf16-mixed (hf: the checkpoint's dtype, bf16-mixed for a float32 one)");
    CHECK(scenario_key_default_text("gpu") == "h100-80gb");
    CHECK(scenario_key_default_text("model") == "required");
    CHECK(scenario_key_default_text("quantization") == "none; unsloth: nf4-dq (method qlora: nf4)");
    CHECK(to_string(default_quantization(Method::qlora)) == std::string("nf4"));
}

TEST_CASE("scenario keys: rlhf's defaults follow default_rlhf") {
    const Scenario policy = default_scenario(Framework::hf, Workload::train);
    const RlhfSetup ppo = default_rlhf(RlhfAlgorithm::ppo, policy), grpo = default_rlhf(RlhfAlgorithm::grpo, policy);
    CHECK(scenario_key_default_text("rlhf.group_size") ==
          "ppo, dpo: " + std::to_string(ppo.group_size) + "; grpo: " + std::to_string(grpo.group_size));
    CHECK(scenario_key_default_text("rlhf.rollout.gpu_memory_utilization") ==
          "ppo: " + json(ppo.rollout_gpu_memory_utilization).dump() + "; grpo: " + json(grpo.rollout_gpu_memory_utilization).dump());
    CHECK(scenario_key_default_text("rlhf.rollout.released") == "ppo: true; grpo: false");
    CHECK(scenario_key_default_text("rlhf.prompt_len") == std::to_string(ppo.prompt_len));
    CHECK(scenario_key_default_text("rlhf.rollout.batch") == "0 (takes micro_batch)");
    CHECK(scenario_key_default_text("rlhf.algorithm") == "required");
    CHECK(scenario_key_default_text("rlhf.critic") == "ppo: true; dpo, grpo: false");
    CHECK(scenario_key_default_text("rlhf.reference") == "true");
    CHECK(scenario_key_default_text("rlhf.rollout") == "ppo, grpo: true; dpo: false");
    CHECK(scenario_key_default_text("lora.targets").find("; unsloth: all-linear") != std::string::npos);
    CHECK(scenario_key_default("rlhf.group_size", Framework::hf, Workload::train).empty());  // no rlhf object by default
}

TEST_CASE("scenario keys: every read key shows a default, and a note never restates a derived value") {
    // Keys default_scenario holds no plain value of: their note is the whole default.
    const std::set<std::string> notes_only = {
        "model", "lora", "lora.use_dora", "rlhf", "rlhf.algorithm", "model_hub_id", "extra"};
    for (const auto& k : scenario_keys()) {
        INFO(k.name);
        const std::string name(k.name);
        const bool derived = !scenario_key_default_text(name).empty() && scenario_key_default_text(name) != k.default_note;
        if (k.read) CHECK_FALSE(scenario_key_default_text(name).empty());
        const bool expected_note_only = notes_only.count(name) || name.rfind("gpu.", 0) == 0;
        CHECK(derived != expected_note_only);
        if (derived && !k.default_note.empty()) {
            const char c = k.default_note.front();
            CHECK_FALSE(((c >= '0' && c <= '9') || c == '-' || k.default_note.rfind("true", 0) == 0 || k.default_note.rfind("false", 0) == 0));
        }
    }
}

TEST_CASE("scenario keys: key_range is the reader's range") {
    const KeyRange rank = key_range("lora.rank");
    CHECK(rank.min == 1);
    CHECK(rank.max == 65536);
    CHECK(key_range("gpu_memory_utilization").min == find_scenario_key("gpu_memory_utilization")->min);
    CHECK(key_range("method").max == 0);  // not a number key
    CHECK(key_range("no-such-key").max == 0);
}

}  // namespace unit_scenario_keys
}  // namespace
