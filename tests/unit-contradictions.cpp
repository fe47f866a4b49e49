// Issue 42: settings legal one by one but contradictory together. Each case is a scenario and what it must
// give: a read error (field and reason) when no real tool accepts it, or a warning (from the reader or in
// the bill) when the tool runs but the result surprises. The legal neighbours of each case stay silent.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/scenario_keys.hpp"

namespace {
namespace unit_contradictions {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

struct Case {
    const char* name;
    const char* scenario;  // JSON text
    const char* field;     // the read error's field, or "" for a warning
    const char* text;      // a substring of the error's message or of one warning
};

const std::vector<Case>& cases() {
    static const std::vector<Case> c = {
        // Parallel degrees against the model and the sequence.
        {"tp 3 of 32 heads, vLLM", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "tp": 3, "num_gpus": 3})",
         "tp", "does not divide the model's 32 attention heads"},
        {"tp 3 of 32 heads, Megatron", R"({"model": "llama-3.1-8b", "framework": "megatron", "tp": 3, "num_gpus": 3})", "tp",
         "Megatron-LM refuses it"},
        {"tp 3 of 32 heads, torchtitan", R"({"model": "llama-3.1-8b", "framework": "torchtitan", "tp": 3, "num_gpus": 3})", "tp",
         "allowed tp is a divisor of 32"},
        {"tp 3 of 32 heads, hf inference", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "hf", "tp": 3, "num_gpus": 3})",
         "", "tp 3 does not divide the model's 32 attention heads with framework \"hf\""},
        {"tp 7 of 4 KV heads, vLLM", R"({"model": "qwen2.5-7b", "workload": "infer", "framework": "vllm", "tp": 7, "num_gpus": 7})", "tp",
         "neither divides nor is a multiple of the model's 4 KV heads"},
        {"pp 3 of 32 layers, Megatron", R"({"model": "llama-3.1-8b", "framework": "megatron", "pp": 3, "num_gpus": 3})", "",
         "Number of layers should be divisible by the pipeline-model-parallel size"},
        {"ep 3 of 8 experts", R"({"model": "mixtral-8x7b-v0.1", "framework": "megatron", "ep": 3, "num_gpus": 3})", "ep",
         "does not divide the model's 8 experts"},
        {"cp 8 with seq_len 4", R"({"model": "llama-3.1-8b", "framework": "torchtitan", "cp": 8, "num_gpus": 8, "seq_len": 4})", "cp",
         "allowed seq_len is a multiple of 16"},
        {"cp 2 with seq_len 4098", R"({"model": "llama-3.1-8b", "framework": "megatron", "cp": 2, "num_gpus": 2, "seq_len": 4098})", "cp",
         "seq_len 4098"},
        {"sp with tp 1", R"({"model": "llama-3.1-8b", "framework": "megatron", "sp": true})", "", "sp true with tp 1"},
        // Frameworks against sharding and method.
        {"Megatron with fsdp-full", R"({"model": "llama-3.1-8b", "framework": "megatron", "sharding": "fsdp-full", "num_gpus": 8})", "",
         "sharding \"fsdp-full\" with framework \"megatron\""},
        {"Megatron with zero3", R"({"model": "llama-3.1-8b", "framework": "megatron", "sharding": "zero3", "num_gpus": 8})", "",
         "ZeRO stages 2 and 3 are DeepSpeed's"},
        {"torchtitan with zero3", R"({"model": "llama-3.1-8b", "framework": "torchtitan", "sharding": "zero3", "num_gpus": 8})",
         "", "framework \"torchtitan\" shards with FSDP2 only"},
        {"torchtitan with LoRA", R"({"model": "llama-3.1-8b", "framework": "torchtitan", "method": "lora"})", "",
         "torchtitan has no LoRA or adapters"},
        // RLHF rollout against the GPUs.
        {"GRPO rollout tp 8 on 1 GPU", R"({"model": "qwen2.5-0.5b", "rlhf": {"algorithm": "grpo", "rollout": {"tp": 8}}})",
         "rlhf.rollout.tp", "8 is more than the job's num_gpus 1"},
        {"GRPO rollout tp 3 on 4 GPUs", R"({"model": "qwen2.5-0.5b", "num_gpus": 4, "rlhf": {"algorithm": "grpo", "rollout": {"tp": 3}}})",
         "rlhf.rollout.tp", "is not divisible by infer_tp"},
        // Formats an engine does not load.
        {"fp8 weights under llama.cpp", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "llama.cpp", "weights": "fp8"})",
         "", "llama.cpp loads GGUF files only"},
        {"q4_0 KV under hf", R"({"model": "llama-3.1-8b", "workload": "infer", "kv_dtype": "q4_0"})", "",
         "kv_dtype \"q4_0\" is a llama.cpp cache type; framework \"hf\" has none"},
        {"fp8 KV under llama.cpp", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "llama.cpp", "weights": "gguf-q4_0", "kv_dtype": "fp8"})",
         "", "no fp8"},
        // Lengths and sizes.
        {"n_ctx 10^8", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "llama.cpp", "weights": "gguf-q4_0", "n_ctx": 100000000})",
         "", "possible training context overflow"},
        {"block_size 65536", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "block_size": 65536})", "block_size",
         "takes 1, 8, 16, 32, 64, 128 or 256"},
        {"block_size 24", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "block_size": 24})", "block_size", "got 24"},
        {"vLLM max_model_len above the model's", R"({"model": "llama-2-7b", "workload": "infer", "framework": "vllm", "max_model_len": 8192})",
         "", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"},
        {"group_size 7", R"({"model": "llama-3.1-8b", "workload": "infer", "weights": "gptq-int4", "group_size": 7})", "",
         "7 does not divide the hidden size 4096"},
        {"group_size 256", R"({"model": "llama-3.1-8b", "workload": "infer", "weights": "awq-int4", "group_size": 256})", "",
         "vLLM's Marlin kernels take only these"},
        // Keys where they do nothing.
        {"checkpoint_bytes on a training run", R"({"model": "llama-3.1-8b", "checkpoint_bytes": 16000000000})", "",
         "checkpoint_bytes: ignored with workload \"train\""},
        {"n_ctx under vLLM", R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "n_ctx": 8192})", "",
         "n_ctx: ignored with framework \"vllm\""},
        {"group_size with bf16 weights", R"({"model": "llama-3.1-8b", "workload": "infer", "group_size": 64})", "",
         "group_size: ignored with weights \"bf16\""},
        {"quantization with method lora", R"({"model": "llama-3.1-8b", "method": "lora", "quantization": "nf4"})", "",
         "quantization: ignored with method \"lora\""},
        // Adapters.
        {"llama-adapter past the last layer", R"({"model": "llama-3.1-8b", "framework": "litgpt", "method": "llama-adapter", "adapter_start_layer": 32})",
         "adapter_start_layer", "allowed 0 to 31"},
        {"adapter-v2 past the last layer", R"({"model": "llama-3.1-8b", "framework": "litgpt", "method": "adapter-v2", "adapter_start_layer": 40})",
         "", "no layer gets an adapter prompt"},
        {"lora r and rank disagree", R"({"model": "llama-3.1-8b", "method": "lora", "lora": {"r": 4, "rank": 64}})", "lora.rank",
         "lora.rank 64 and lora.r 4 disagree"},
        // Custom GPUs.
        {"custom GPU arch banana", R"({"model": "llama-3.1-8b", "gpu": {"name": "x", "memory_gib": 24, "arch": "banana"}})", "gpu.arch",
         "allowed: pascal, volta, turing, ampere"},
        {"volta custom GPU with bf16", R"({"model": "llama-3.1-8b", "gpu": {"name": "x", "memory_gib": 32, "arch": "volta", "bf16": true}})",
         "", "gpu.bf16 true with arch \"volta\""},
    };
    return c;
}

// The legal neighbours: read, and none of the cases' words in their warnings.
const std::vector<const char*>& neighbours() {
    static const std::vector<const char*> n = {
        R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "tp": 4, "num_gpus": 4})",
        R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "hf", "tp": 2, "num_gpus": 2})",
        R"({"model": "qwen2.5-7b", "workload": "infer", "framework": "vllm", "tp": 4, "num_gpus": 4})",
        R"({"model": "llama-3.1-8b", "framework": "megatron", "tp": 2, "pp": 4, "num_gpus": 8, "sp": true})",
        R"({"model": "mixtral-8x7b-v0.1", "framework": "megatron", "ep": 4, "num_gpus": 4})",
        R"({"model": "llama-3.1-8b", "framework": "torchtitan", "cp": 8, "num_gpus": 8, "seq_len": 65536})",
        R"({"model": "llama-3.1-8b", "framework": "torchtitan", "sharding": "fsdp-grad-op", "num_gpus": 8})",
        R"({"model": "llama-3.1-8b", "framework": "megatron", "sharding": "zero1", "num_gpus": 8})",
        R"({"model": "qwen2.5-0.5b", "num_gpus": 4, "rlhf": {"algorithm": "grpo", "rollout": {"tp": 2}}})",
        R"({"model": "qwen2.5-0.5b", "rlhf": {"algorithm": "grpo", "rollout": {"tp": 8, "placement": "separate"}}})",
        R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "llama.cpp", "weights": "gguf-q4_k_m", "kv_dtype": "q4_0", "n_ctx": 131072})",
        R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "llama.cpp", "weights": "bf16"})",
        R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "block_size": 256, "max_model_len": 131072})",
        R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "weights": "gptq-int4", "group_size": -1})",
        R"({"model": "llama-3.1-8b", "framework": "litgpt", "method": "llama-adapter", "adapter_start_layer": 31})",
        R"({"model": "llama-3.1-8b", "method": "lora", "lora": {"r": 16, "rank": 16}})",
        R"({"model": "llama-3.1-8b", "gpu": {"name": "x", "memory_gib": 32, "arch": "volta", "bf16": false}})",
        R"({"model": "llama-3.1-8b", "gpu": {"name": "x", "memory_gib": 32}})",
    };
    return n;
}

std::vector<std::string> all_warnings(const Result<Scenario>& r) {
    std::vector<std::string> w = r.warnings;
    if (r.ok())
        for (const auto& b : estimate(*r.value).warnings) w.push_back(b);
    return w;
}

}  // namespace

TEST_CASE("contradictions: each gives its read error or its warning") {
    for (const Case& c : cases()) {
        INFO(c.name << "\n"
                    << c.scenario);
        const auto r = scenario_from_text(c.scenario, test::catalog());
        INFO(r.error_text());
        if (*c.field) {
            REQUIRE_FALSE(r.ok());
            bool found = false;
            for (const auto& e : r.errors) found = found || (e.field == c.field && e.message.find(c.text) != std::string::npos);
            CHECK(found);
            continue;
        }
        REQUIRE(r.ok());
        const auto w = all_warnings(r);
        INFO(json(w).dump(1));
        bool warned = false;
        for (const auto& s : w) warned = warned || s.find(c.text) != std::string::npos;
        CHECK(warned);
    }
}

TEST_CASE("contradictions: the legal neighbours are read without those warnings") {
    for (const char* text : neighbours()) {
        INFO(text);
        const auto r = scenario_from_text(text, test::catalog());
        INFO(r.error_text());
        REQUIRE(r.ok());
        const auto w = all_warnings(r);
        INFO(json(w).dump(1));
        for (const Case& c : cases())
            for (const auto& s : w) CHECK(s.find(c.text) == std::string::npos);
    }
}

TEST_CASE("contradictions: every framework's defaults, read and written back, trip no refusal") {
    // Every framework's defaults for both workloads, written and read back, are still accepted.
    for (const auto w : {Workload::train, Workload::infer})
        for (const auto& f : frameworks_for(w)) {
            INFO(f << " " << to_string(w));
            json j = {{"model", "llama-3.1-8b"}, {"framework", f}, {"workload", to_string(w)}};
            const auto r = scenario_from_json(j, test::catalog());
            INFO(r.error_text());
            REQUIRE(r.ok());
            const auto again = scenario_from_json(scenario_to_json(*r.value), test::catalog());
            INFO(again.error_text());
            CHECK(again.ok());
        }
}

}  // namespace unit_contradictions
}  // namespace
