// Fuzz target: random *valid* scenarios (every key in its allowed range, presets or synthesized
// config.json models up to the parser's size limits) -> estimate(). Checks the bill's invariants
// (fuzz_common.hpp) and, for one input in 16, runs the solvers and checks that the max-batch solver's
// answer fits and one more does not. Inputs the validator rejects are skipped (they are the scenario target's business).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz_common.hpp"

namespace {

using nlohmann::json;
using vramcalc::i64;

// Biased towards small values and powers of two, reaching `hi` (sizes span many orders of magnitude).
i64 size_in(FuzzedDataProvider& p, i64 lo, i64 hi) {
    switch (p.ConsumeIntegralInRange<int>(0, 3)) {
        case 0:
            return p.ConsumeIntegralInRange<i64>(lo, std::min<i64>(hi, lo + 64));
        case 1: {
            const int bits = p.ConsumeIntegralInRange<int>(0, 62);
            const i64 v = i64{1} << bits;
            return v < lo ? lo : v > hi ? hi
                                        : v;
        }
        case 2:
            return hi;
        default: {
            // Log-uniform: every order of magnitude as likely as any other (uniform on [lo, hi] would make
            // nearly every value huge, and a 10,000-layer model costs 10,000 times a 1-layer one).
            const int top = 63 - __builtin_clzll(static_cast<unsigned long long>(hi));
            const int bits = p.ConsumeIntegralInRange<int>(0, top);
            const i64 base = i64{1} << bits;
            const i64 v = base + p.ConsumeIntegralInRange<i64>(0, base - 1);
            return v < lo ? lo : v > hi ? hi
                                        : v;
        }
    }
}

template <std::size_t N>
const char* pick(FuzzedDataProvider& p, const char* const (&options)[N]) {
    return options[p.ConsumeIntegralInRange<std::size_t>(0, N - 1)];
}

json synthesized_model(FuzzedDataProvider& p) {
    static const char* const kTypes[] = {"llama", "mistral", "qwen2", "gemma", "mixtral", "qwen2_moe", "qwen3_moe",
                                         "deepseek_v3", "gpt2", "gpt_neox", "phi", "bert", "t5", "falcon", "opt"};
    const std::string type = pick(p, kTypes);
    const i64 kv = size_in(p, 1, 64);
    const i64 heads = kv * size_in(p, 1, 16);
    const i64 head_dim = size_in(p, 1, 512);
    json c = {{"model_type", type}, {"vocab_size", size_in(p, 1, i64{1} << 24)}, {"num_hidden_layers", size_in(p, 1, 10000)}, {"num_attention_heads", heads}, {"num_key_value_heads", kv}, {"hidden_size", std::min<i64>(heads * head_dim, i64{1} << 20)}, {"intermediate_size", size_in(p, 1, i64{1} << 20)}, {"max_position_embeddings", size_in(p, 1, 1 << 20)}, {"tie_word_embeddings", p.ConsumeBool()}};
    if (type == "gpt2" || type == "gpt_neox" || type == "phi" || type == "bert" || type == "opt") {
        c["n_embd"] = c["hidden_size"];
        c["n_layer"] = c["num_hidden_layers"];
        c["n_head"] = c["num_attention_heads"];
    }
    if (type == "t5") {
        c["d_model"] = c["hidden_size"];
        c["num_layers"] = c["num_hidden_layers"];
        c["num_heads"] = heads;
        c["d_kv"] = head_dim;
        c["d_ff"] = c["intermediate_size"];
    }
    if (type == "mixtral" || type == "qwen2_moe" || type == "qwen3_moe" || type == "deepseek_v3") {
        const i64 experts = size_in(p, 1, 1024);
        c["num_local_experts"] = experts;
        c["num_experts"] = experts;
        c["n_routed_experts"] = experts;
        c["num_experts_per_tok"] = size_in(p, 1, experts);
        c["moe_intermediate_size"] = size_in(p, 1, 1 << 16);
        c["shared_expert_intermediate_size"] = size_in(p, 0, 1 << 16);
    }
    if (type == "deepseek_v3") {
        c["kv_lora_rank"] = size_in(p, 1, 4096);
        c["q_lora_rank"] = size_in(p, 0, 4096);
        c["qk_nope_head_dim"] = size_in(p, 1, 512);
        c["qk_rope_head_dim"] = size_in(p, 1, 512);
        c["v_head_dim"] = size_in(p, 1, 512);
        c["n_shared_experts"] = size_in(p, 0, 8);
        c["first_k_dense_replace"] = size_in(p, 0, 3);
    }
    if (p.ConsumeBool()) c["head_dim"] = head_dim;
    return c;
}

json random_scenario(FuzzedDataProvider& p) {
    const auto& cat = vramcalc::fuzz::catalog();
    json s;
    switch (p.ConsumeIntegralInRange<int>(0, 5)) {
        case 0:
            s["model"] = synthesized_model(p);
            break;
        case 1:
            s["model"] = {{"name", "count only"}, {"parameters", size_in(p, 1, i64{1} << 46)}};
            break;
        default:
            s["model"] = cat.models()[p.ConsumeIntegralInRange<std::size_t>(0, cat.models().size() - 1)].id;
    }
    const bool train = p.ConsumeIntegralInRange<int>(0, 2) != 0;
    s["workload"] = train ? "train" : "infer";
    static const char* const kFrameworks[] = {"hf", "torchtune", "litgpt", "deepspeed", "megatron", "vllm", "llama.cpp"};
    s["framework"] = pick(p, kFrameworks);
    if (p.ConsumeBool()) s["gpu"] = cat.gpus()[p.ConsumeIntegralInRange<std::size_t>(0, cat.gpus().size() - 1)].id;
    else s["gpu"] = {{"name", "custom"}, {"memory_bytes", size_in(p, 1 << 20, i64{1} << 50)}};
    s["target_utilization"] = p.ConsumeFloatingPointInRange<double>(0.05, 1.0);
    if (train) {
        static const char* const kMethods[] = {"full", "lora", "qlora", "freeze"};
        static const char* const kPrecisions[] = {"fp32", "fp16-mixed", "bf16-mixed", "fp16", "bf16"};
        static const char* const kOptimizers[] = {"adamw", "adamw-8bit", "paged-adamw-8bit", "adafactor", "sgd",
                                                  "sgd-momentum", "lion"};
        static const char* const kQuant[] = {"nf4", "nf4-dq", "int8", "gptq-int4", "awq-int4"};
        static const char* const kCkpt[] = {"none", "full", "selective", "offload"};
        static const char* const kAttn[] = {"eager", "sdpa", "flash"};
        static const char* const kLoss[] = {"standard", "chunked", "fused"};
        static const char* const kTargets[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                               "down_proj", "c_attn", "query_key_value", "dense", "fc1", "w1"};
        const std::string method = pick(p, kMethods);
        s["method"] = method;
        s["precision"] = pick(p, kPrecisions);
        s["optimizer"] = pick(p, kOptimizers);
        if (method == "qlora") s["quantization"] = pick(p, kQuant);
        json lora = {{"rank", size_in(p, 1, 1 << 16)}, {"alpha", p.ConsumeFloatingPointInRange<double>(0, 1e9)}, {"dropout", p.ConsumeProbability<double>()}, {"train_embeddings", p.ConsumeBool()}};
        if (p.ConsumeBool()) {
            lora["targets"] = "all-linear";
        } else {
            json t = json::array();
            const int n = p.ConsumeIntegralInRange<int>(1, 4);
            for (int i = 0; i < n; ++i) t.push_back(pick(p, kTargets));
            lora["targets"] = t;
        }
        s["lora"] = lora;
        s["trainable_layers"] = size_in(p, 1, 10000);
        s["micro_batch"] = size_in(p, 1, i64{1} << 20);
        s["seq_len"] = size_in(p, 1, i64{1} << 27);
        s["grad_accum"] = size_in(p, 1, i64{1} << 20);
        s["checkpointing"] = pick(p, kCkpt);
        s["attention"] = pick(p, kAttn);
        s["loss"] = pick(p, kLoss);
        if (s["grad_accum"] == 1 && p.ConsumeBool()) s["optimizer_in_backward"] = true;
    } else {
        static const char* const kWeights[] = {"fp32", "bf16", "fp16", "fp8", "int8", "nf4", "nf4-dq", "gptq-int4",
                                               "awq-int4", "gptq-int8", "awq-int8", "gguf-f16", "gguf-q8_0",
                                               "gguf-q6_k", "gguf-q5_k_m", "gguf-q5_0", "gguf-q4_k_m", "gguf-q4_0",
                                               "gguf-q3_k_m", "gguf-q2_k", "gguf-iq4_xs"};
        static const char* const kKv[] = {"auto", "fp16", "bf16", "fp8", "q8_0", "q4_0"};
        s["weights"] = pick(p, kWeights);
        s["kv_dtype"] = pick(p, kKv);
        s["batch"] = size_in(p, 1, i64{1} << 20);
        s["prompt_len"] = size_in(p, 0, i64{1} << 27);
        s["gen_len"] = size_in(p, 1, i64{1} << 27);
        s["gpu_memory_utilization"] = p.ConsumeFloatingPointInRange<double>(0.01, 1.0);
    }
    // Multi-GPU keys: sharding, offload and parallel degrees with num_gpus a multiple of tp x pp x cp.
    static const char* const kSharding[] = {"none", "zero1", "zero2", "zero3", "fsdp-full", "fsdp-grad-op"};
    static const char* const kOffload[] = {"none", "optimizer", "optimizer+params"};
    s["sharding"] = pick(p, kSharding);
    s["offload"] = pick(p, kOffload);
    const i64 tp = size_in(p, 1, 64), pp = size_in(p, 1, 64), cp = size_in(p, 1, 16), ep = size_in(p, 1, 64);
    s["tp"] = tp;
    s["pp"] = pp;
    s["cp"] = cp;
    s["ep"] = ep;
    s["sp"] = p.ConsumeBool();
    s["num_gpus"] = tp * pp * cp * size_in(p, 1, 64);
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace vramcalc;
    FuzzedDataProvider p(data, size);
    // One input in 16 runs the full estimate() with its solvers (max micro-batch, max sequence) and checks
    // the solver's answer; the rest run estimate_peak(), the same bill without the solvers' 40-odd
    // re-estimates, so the peak accounting gets ~20x the executions per second.
    const bool solve = p.ConsumeIntegralInRange<int>(0, 15) == 0;
    const json j = random_scenario(p);
    const auto r = scenario_from_json(j, fuzz::catalog());
    if (!r.ok()) return 0;
    const Scenario& s = *r.value;
    const Bill b = solve ? estimate(s) : estimate_peak(s);
    fuzz::check_bill(s, b, solve);  // the JSON writer too, on the same one in 16
    if (b.max_micro_batch) fuzz::require(*b.max_micro_batch >= 0, "max_micro_batch < 0", &s);
    if (b.max_batch) fuzz::require(*b.max_batch >= 0, "max_batch < 0", &s);
    if (b.max_seq_len) fuzz::require(*b.max_seq_len >= 0, "max_seq_len < 0", &s);
    if (solve) fuzz::check_solver(s, 1 << 16);
    return 0;
}
