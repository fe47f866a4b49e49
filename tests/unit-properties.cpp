// Properties of the training bill across many scenarios: the total is the sum of its parts at the peak,
// memory never falls as micro_batch or seq_len grow, checkpointing never raises the peak, LoRA <= full,
// bf16 <= fp32, and the solvers' answers fit while one more does not.
#include <algorithm>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_properties {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

using test::scenario;

std::int64_t peak(json j) { return estimate_peak(scenario(std::move(j))).peak_allocated_bytes; }  // the bill, without its solvers

std::int64_t component_bytes(const Bill& b, const std::string& id) {
    for (const auto& c : b.components)
        if (c.id == id) return c.bytes;
    FAIL("no component " << id);
    return 0;
}

const char* kModels[] = {"llama-3.1-8b", "qwen2.5-0.5b", "mixtral-8x7b-v0.1", "gpt2", "phi-2", "deepseek-v2-lite",
                         "gemma-2-2b", "t5-large", "falcon-7b", "qwen3-30b-a3b"};
const char* kMethods[] = {"full", "lora", "qlora"};
const char* kCheckpointing[] = {"none", "selective", "full", "offload"};

}  // namespace

TEST_CASE("properties: the bill's components sum to device_bytes") {
    for (const char* m : kModels)
        for (const char* method : kMethods) {
            INFO(m << " " << method);
            const Bill b = estimate(scenario({{"model", m}, {"method", method}, {"micro_batch", 2}, {"seq_len", 512}}));
            std::int64_t sum = 0;
            for (const auto& c : b.components) sum += c.bytes;
            CHECK(sum == b.device_bytes);
            CHECK(b.peak_allocated_bytes <= b.peak_reserved_bytes);
            CHECK(b.peak_reserved_bytes <= b.device_bytes);
        }
}

TEST_CASE("properties: memory is non-decreasing in micro_batch and seq_len") {
    for (const char* m : kModels)
        for (const char* ck : kCheckpointing) {
            INFO(m << " " << ck);
            std::int64_t last = 0;
            for (int mb : {1, 2, 3, 4, 8}) {
                const auto p = peak({{"model", m}, {"micro_batch", mb}, {"seq_len", 256}, {"checkpointing", ck}});
                CHECK(p >= last);
                last = p;
            }
            last = 0;
            for (int s : {16, 128, 512, 1000, 2048, 4096}) {
                const auto p = peak({{"model", m}, {"method", "lora"}, {"seq_len", s}, {"checkpointing", ck}});
                CHECK(p >= last);
                last = p;
            }
        }
}

TEST_CASE("properties: checkpointing never increases the peak, LoRA <= full, bf16 <= fp32") {
    for (const char* m : kModels) {
        INFO(m);
        const json base = {{"model", m}, {"micro_batch", 4}, {"seq_len", 1024}};
        auto with = [&](json extra) {
            json j = base;
            j.merge_patch(extra);
            return peak(j);
        };
        const auto none = with({{"checkpointing", "none"}});
        const ModelSpec& spec = test::catalog().find_model(m)->spec;
        // Checkpointing keeps every layer's input. Where the peak is at the end of backward (every gradient
        // present: fused AdamW has no step transient), the first layer's input is still held while that layer
        // recomputes, and a run without checkpointing freed it after forward: at most one layer input more
        // (4 x 1024 tokens x hidden, fp32 at most).
        const auto layer_input = static_cast<std::int64_t>(4 * 1024 * 4 * spec.hidden);
        CHECK(with({{"checkpointing", "selective"}}) <= none + layer_input);
        CHECK(with({{"checkpointing", "full"}}) <= none + layer_input);
        CHECK(with({{"checkpointing", "offload"}}) <= with({{"checkpointing", "full"}}));
        CHECK(with({{"method", "lora"}}) <= with({{"method", "full"}}));
        // QLoRA's 4-bit base is smaller than LoRA's 16-bit one, but its total is not always: bitsandbytes'
        // MatMul4Bit keeps every quantised linear's input for backward, which a frozen 16-bit nn.Linear does
        // not (activations.cpp), so activation-bound runs of small models take more under QLoRA.
        auto weights = [&](json extra) {
            json j = base;
            j.merge_patch(extra);
            return component_bytes(estimate(scenario(j)), "weights");
        };
        CHECK(weights({{"method", "qlora"}}) <= weights({{"method", "lora"}}));
        CHECK(with({{"precision", "bf16"}}) <= with({{"precision", "fp32"}}));
        // Under AMP each linear's bf16 copy lives from its forward to its backward (autocast's cached_cast), which
        // an fp32 run does not hold; with few activations (an MoE's experts at micro-batch 4) the copies can outweigh
        // the halved activations, so mixed stays under fp32 plus those copies.
        const auto copies = static_cast<std::int64_t>(2 * count_parameters(spec).linear);
        CHECK(with({{"precision", "bf16-mixed"}}) <= with({{"precision", "fp32"}}) + copies);
    }
}

TEST_CASE("properties: the solvers' answers fit and one more does not") {
    for (const char* m : {"llama-3.1-8b", "qwen2.5-0.5b", "gpt2"}) {
        INFO(m);
        const Scenario s = scenario({{"model", m}, {"method", "lora"}, {"precision", "bf16"}, {"checkpointing", "full"}, {"gpu", "rtx-4090"}, {"seq_len", 1024}});
        const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
        const auto n = solve_max_batch(s);
        REQUIRE(n > 0);
        Scenario t = s;
        t.micro_batch = n;
        CHECK(static_cast<double>(estimate(t).needed_bytes) <= budget);
        t.micro_batch = n + 1;
        if (n < (1 << 16)) CHECK(static_cast<double>(estimate(t).needed_bytes) > budget);
        const auto len = solve_max_seq_len(s);
        REQUIRE(len > 0);
        t = s;
        t.seq_len = len;
        CHECK(static_cast<double>(estimate(t).needed_bytes) <= budget);
        t.seq_len = len + 1;
        CHECK(static_cast<double>(estimate(t).needed_bytes) > budget);
    }
    const auto all = solve_catalog(scenario({{"model", "llama-3.1-8b"}, {"method", "lora"}}), test::catalog().gpus());
    CHECK(all.size() == test::catalog().gpus().size());
}

// ---- Issue 8's properties across the core: model size, sharding and offload orderings, quantised
// weights, parallel degrees. Each compares per-GPU device_bytes (what the user reads as "fits").

namespace {

std::int64_t device(json j) { return estimate(scenario(std::move(j))).device_bytes; }

// A Llama-shaped config.json with the given depth and width (head_dim 64, kv heads = heads / 4).
json llama_config(int layers, int hidden) {
    const int heads = hidden / 64;
    return {{"model_type", "llama"}, {"architectures", {"LlamaForCausalLM"}}, {"vocab_size", 32000}, {"hidden_size", hidden}, {"intermediate_size", hidden * 8 / 3 / 64 * 64}, {"num_hidden_layers", layers}, {"num_attention_heads", heads}, {"num_key_value_heads", std::max(1, heads / 4)}, {"max_position_embeddings", 4096}, {"rms_norm_eps", 1e-5}, {"tie_word_embeddings", false}, {"torch_dtype", "bfloat16"}};
}

}  // namespace

TEST_CASE("properties: memory is non-decreasing in layers and hidden size (train and infer)") {
    const json workloads[] = {
        {{"workload", "train"}, {"method", "full"}, {"micro_batch", 2}, {"seq_len", 512}},
        {{"workload", "train"}, {"method", "lora"}, {"micro_batch", 2}, {"seq_len", 512}, {"checkpointing", "full"}},
        {{"workload", "train"}, {"method", "qlora"}, {"micro_batch", 1}, {"seq_len", 1024}},
        {{"workload", "infer"}, {"batch", 4}, {"prompt_len", 512}, {"gen_len", 128}},
        {{"workload", "infer"}, {"weights", "gguf-q4_k_m"}, {"framework", "llama.cpp"}, {"prompt_len", 512}},
    };
    for (const json& w : workloads) {
        INFO(w.dump());
        for (int hidden : {256, 1024, 2048}) {
            std::int64_t last = 0;
            for (int layers : {1, 2, 4, 8, 16, 32, 48}) {
                json j = w;
                j["model"] = llama_config(layers, hidden);
                const auto d = device(j);
                INFO("hidden " << hidden << " layers " << layers);
                CHECK(d >= last);
                last = d;
            }
        }
        for (int layers : {2, 12}) {
            std::int64_t last = 0;
            for (int hidden : {128, 256, 512, 1024, 2048, 4096}) {
                json j = w;
                j["model"] = llama_config(layers, hidden);
                const auto d = device(j);
                INFO("layers " << layers << " hidden " << hidden);
                CHECK(d >= last);
                last = d;
            }
        }
    }
}

TEST_CASE("properties: sharding and offload orderings per GPU") {
    // ZeRO stages shard more and more of the model states, so per-GPU memory falls stage by stage; FSDP's
    // FULL_SHARD (ZeRO-3) <= SHARD_GRAD_OP (ZeRO-2). Offloading moves bytes from the GPU to the host: the
    // GPU side falls and cpu_bytes grows. Checked on 7B-70B-class models, where sharding is used.
    for (const char* m : {"llama-3.1-8b", "qwen2.5-7b", "mixtral-8x7b-v0.1", "llama-2-13b"}) {
        for (int gpus : {2, 8, 64}) {
            INFO(m << " on " << gpus << " GPUs");
            const json base = {{"model", m}, {"num_gpus", gpus}, {"micro_batch", 1}, {"seq_len", 1024}, {"precision", "bf16-mixed"}, {"checkpointing", "full"}, {"gpu", "h100-80gb"}};
            auto with = [&](json extra) {
                json j = base;
                j.merge_patch(extra);
                return estimate(scenario(j));
            };
            const auto none = with({{"sharding", "none"}}).device_bytes;
            const auto z1 = with({{"sharding", "zero1"}}).device_bytes;
            const auto z2 = with({{"sharding", "zero2"}}).device_bytes;
            const auto z3 = with({{"sharding", "zero3"}}).device_bytes;
            CHECK(z1 <= none);
            CHECK(z2 <= z1);
            CHECK(z3 <= z2);
            CHECK(with({{"sharding", "fsdp-full"}}).device_bytes <= with({{"sharding", "fsdp-grad-op"}}).device_bytes);
            for (const char* sh : {"zero2", "zero3"}) {
                INFO(sh);
                const Bill off0 = with({{"sharding", sh}, {"offload", "none"}});
                const Bill off1 = with({{"sharding", sh}, {"offload", "optimizer"}});
                CHECK(off1.device_bytes <= off0.device_bytes);
                CHECK(off1.cpu_bytes >= off0.cpu_bytes);
                if (std::string(sh) == "zero3") {
                    const Bill off2 = with({{"sharding", sh}, {"offload", "optimizer+params"}});
                    CHECK(off2.device_bytes <= off1.device_bytes);
                    CHECK(off2.cpu_bytes >= off1.cpu_bytes);
                }
            }
        }
        // More GPUs never need more memory per GPU once the states are sharded.
        for (const char* sh : {"zero3", "fsdp-full"}) {
            std::int64_t last = std::numeric_limits<std::int64_t>::max();
            for (int gpus : {1, 2, 4, 8, 16, 64}) {
                INFO(m << " " << sh << " on " << gpus << " GPUs");
                const auto d = device({{"model", m}, {"num_gpus", gpus}, {"sharding", sh}, {"micro_batch", 1}, {"seq_len", 1024}});
                CHECK(d <= last);
                last = d;
            }
        }
    }
}

TEST_CASE("properties: quantised weights and KV cache never take more than 16-bit") {
    for (const char* m : kModels) {
        if (std::string(m) == "t5-large") continue;  // encoder-decoder: no inference engine model
        INFO(m);
        const json base = {{"model", m}, {"workload", "infer"}, {"batch", 2}, {"prompt_len", 256}, {"gen_len", 64}};
        auto infer = [&](json extra) {
            json j = base;
            j.merge_patch(extra);
            return estimate(scenario(j));
        };
        const auto bf16 = infer({{"weights", "bf16"}}).device_bytes;
        CHECK(bf16 <= infer({{"weights", "fp32"}}).device_bytes);
        for (const char* w : {"fp8", "int8", "nf4", "nf4-dq", "gptq-int4", "awq-int4", "gptq-int8", "awq-int8"}) {
            INFO(w);
            CHECK(infer({{"weights", w}}).device_bytes <= bf16);
        }
        CHECK(infer({{"weights", "nf4"}}).device_bytes <= infer({{"weights", "int8"}}).device_bytes);
        CHECK(infer({{"kv_dtype", "fp8"}}).device_bytes <= infer({{"kv_dtype", "auto"}}).device_bytes);
        // llama.cpp: every GGUF type below f16 is no larger than f16, and fewer bits are no larger.
        const json cpp = {{"framework", "llama.cpp"}};
        std::int64_t last = std::numeric_limits<std::int64_t>::max();
        for (const char* w : {"gguf-f16", "gguf-q8_0", "gguf-q6_k", "gguf-q5_k_m", "gguf-q4_k_m", "gguf-q3_k_m", "gguf-q2_k"}) {
            INFO(w);
            json extra = cpp;
            extra["weights"] = w;
            const auto d = infer(extra).device_bytes;
            CHECK(d <= last);
            last = d;
        }
        // Training: QLoRA's 4-bit (or 8-bit) base weights are no larger than LoRA's 16-bit ones, at the
        // same precision (the totals can differ the other way: see the checkpointing test above).
        auto train_weights = [&](const char* method, const char* quant) {
            json j = {{"model", m}, {"method", method}, {"precision", "bf16"}};
            if (quant) j["quantization"] = quant;
            return component_bytes(estimate(scenario(j)), "weights");
        };
        CHECK(train_weights("qlora", "nf4-dq") <= train_weights("qlora", "nf4"));
        CHECK(train_weights("qlora", "nf4") <= train_weights("qlora", "int8"));
        CHECK(train_weights("qlora", "int8") <= train_weights("lora", nullptr));
    }
}

TEST_CASE("properties: tensor and pipeline parallelism never raise per-GPU memory") {
    for (const char* m : {"llama-3.1-8b", "qwen2.5-7b", "llama-2-13b"}) {
        for (const char* wl : {"train", "infer"}) {
            INFO(m << " " << wl);
            std::int64_t last = std::numeric_limits<std::int64_t>::max();
            for (int tp : {1, 2, 4, 8}) {
                INFO("tp " << tp);
                const auto d = device({{"model", m}, {"workload", wl}, {"tp", tp}, {"num_gpus", tp}, {"sp", true}});
                CHECK(d <= last);
                last = d;
            }
            last = std::numeric_limits<std::int64_t>::max();
            for (int pp : {1, 2, 4}) {
                INFO("pp " << pp);
                const auto d = device({{"model", m}, {"workload", wl}, {"pp", pp}, {"num_gpus", pp}});
                CHECK(d <= last);
                last = d;
            }
        }
    }
}

TEST_CASE("properties: ZeRO-1 can exceed no sharding when little trains, and the bill says why") {
    // The documented exception to zero1 <= none: with LoRA the optimizer states ZeRO-1 shards are small,
    // while DeepSpeed's reduce bucket (reduce_bucket_size 5e8 elements) is allocated whatever trains
    // (parallel/parallel.cpp; bill/checks.cpp warns).
    const json base = {{"model", "llama-3.1-8b"}, {"num_gpus", 8}, {"method", "lora"}, {"micro_batch", 1}, {"seq_len", 1024}, {"precision", "bf16"}, {"gpu", "h100-80gb"}, {"framework", "deepspeed"}};
    json z1 = base;
    z1["sharding"] = "zero1";
    const Bill with_zero1 = estimate(scenario(z1));
    const Bill without = estimate(scenario(base));
    if (with_zero1.device_bytes > without.device_bytes) {
        bool said = false;
        for (const auto& w : with_zero1.warnings) said = said || w.find("ZeRO-1") != std::string::npos;
        CHECK(said);
    }
    bool warned = false;
    for (const auto& w : with_zero1.warnings) warned = warned || w.find("reduce bucket") != std::string::npos;
    CHECK(warned);
}

}  // namespace unit_properties
}  // namespace
