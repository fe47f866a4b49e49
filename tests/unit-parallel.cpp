// Multi-GPU training (parallel.cpp): ZeRO/FSDP ordering, scaling with the GPU count, offload
// conservation, model parallelism, the ZeRO paper's and DeepSpeed's published figures, and the planner.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "parallel/parallel.hpp"
#include "validation/parallel_cases.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/planner.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/validate.hpp"

namespace {
namespace unit_parallel {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

using test::scenario;

Bill bill(json j) { return estimate(scenario(std::move(j))); }

json base(const char* model, const char* framework, int gpus) {
    return {{"model", model}, {"framework", framework}, {"num_gpus", gpus}, {"micro_batch", 1}, {"seq_len", 1024}, {"checkpointing", "full"}, {"gpu", "h100-80gb"}};
}

}  // namespace

TEST_CASE("parallel: per-GPU memory zero3 <= zero2 <= zero1 <= none") {
    for (const char* model : {"llama-3.1-8b", "qwen2.5-0.5b", "mixtral-8x7b-v0.1"})
        for (int gpus : {2, 8, 64}) {
            std::int64_t last = INT64_MAX;
            for (const char* sh : {"none", "zero1", "zero2", "zero3"}) {
                json j = base(model, "deepspeed", gpus);
                j["sharding"] = sh;
                const auto d = bill(j).peak_allocated_bytes;
                INFO(model << " x" << gpus << " " << sh);
                CHECK(d <= last);
                last = d;
            }
            json f = base(model, "hf", gpus);
            f["sharding"] = "fsdp-grad-op";
            const auto grad_op = bill(f).peak_allocated_bytes;
            f["sharding"] = "fsdp-full";
            CHECK(bill(f).peak_allocated_bytes <= grad_op);
        }
}

TEST_CASE("parallel: more GPUs never increase per-GPU memory under sharding") {
    for (const char* sh : {"zero1", "zero2", "zero3", "fsdp-full", "fsdp-grad-op"})
        for (const char* model : {"llama-3.1-8b", "qwen3-30b-a3b"}) {
            std::int64_t last = INT64_MAX;
            for (int gpus : {1, 2, 4, 8, 16, 128}) {
                json j = base(model, std::string(sh).rfind("zero", 0) == 0 ? "deepspeed" : "hf", gpus);
                j["sharding"] = sh;
                const auto d = bill(j).device_bytes;
                INFO(sh << " " << model << " x" << gpus);
                CHECK(d <= last);
                last = d;
            }
        }
}

TEST_CASE("parallel: offload moves bytes from the GPU to cpu_bytes without losing any") {
    for (const char* sh : {"zero1", "zero2", "zero3", "fsdp-full"})
        for (const char* off : {"optimizer", "optimizer+params"}) {
            json j = base("llama-3.1-8b", std::string(sh).rfind("zero", 0) == 0 ? "deepspeed" : "hf", 8);
            j["sharding"] = sh;
            const Bill kept = bill(j);
            j["offload"] = off;
            const Bill moved = bill(j);
            INFO(sh << " offload " << off);
            CHECK(moved.peak_allocated_bytes < kept.peak_allocated_bytes);
            CHECK(moved.cpu_bytes - kept.cpu_bytes >= kept.peak_allocated_bytes - moved.peak_allocated_bytes);
        }
}

TEST_CASE("parallel: ZeRO paper model states (7.5B, Nd 64: 120, 31.4, 16.6, 1.9 GB)") {
    json j = {{"model", {{"name", "7.5B"}, {"parameters", 7500000000LL}}}, {"framework", "deepspeed"}, {"precision", "fp16-mixed"}, {"num_gpus", 64}};
    const std::pair<const char*, double> expected[] = {{"none", 120}, {"zero1", 31.4}, {"zero2", 16.6}, {"zero3", 1.9}};
    for (const auto& [sh, gb] : expected) {
        j["sharding"] = sh;
        const double est = detail::model_states_per_gpu(scenario(j)).gpu() / 1e9;
        INFO(sh << ": " << est);
        CHECK(detail::equals_printed(est, json(gb)));
    }
}

TEST_CASE("parallel: DeepSpeed estimator outputs as printed in its docs") {
    const double GiB = 1073741824.0;
    // memory.rst: estimate_zero2_model_states_mem_needs_all_cold(2851e6, 8 GPUs): 5.31 / 15.93 GiB per GPU.
    CHECK(detail::equals_printed(detail::deepspeed_zero2_estimate(2851e6, 8, 1, true).gpu / GiB, json(5.31)));
    CHECK(detail::equals_printed(detail::deepspeed_zero2_estimate(2851e6, 8, 1, false).gpu / GiB, json(15.93)));
    CHECK(detail::equals_printed(detail::deepspeed_zero2_estimate(2851e6, 8, 1, false).cpu / GiB, json(127.45)));
    // zero3 cold, 32M largest layer: no offload 6.09 GiB per GPU, 1.43 GiB per CPU with zero_init.
    const auto z3 = detail::deepspeed_zero3_estimate(2851e6, 32e6, 8, 1, false, false, true);
    CHECK(detail::equals_printed(z3.gpu / GiB, json(6.09)));
    CHECK(detail::equals_printed(z3.cpu / GiB, json(1.43)));
    // Every ZeRO and DeepSpeed formula case of the reference data is reproduced.
    for (const char* file : {"formula_cases.json", "parallel_cases.json"}) {
        auto rep = validate_reference(test::load_json(file), test::catalog());
        REQUIRE(rep.ok());
        for (const auto& e : rep->entries)
            if (e.id.rfind("zero-", 0) == 0 || e.id.rfind("deepspeed-zero", 0) == 0 || e.id.rfind("rlhf-", 0) == 0) {
                INFO(file << " " << e.id << " " << e.message);
                if (e.status != "unsupported") CHECK(e.status == "matched");
            }
    }
}

TEST_CASE("parallel: tensor and pipeline parallelism split the model") {
    json j = base("llama-3.1-70b", "megatron", 8);
    j["sharding"] = "zero1";
    const Bill one = bill(j);
    j["tp"] = 8;
    const Bill tp8 = bill(j);
    // Weights on one tp rank: about 1/8 (norms stay whole).
    CHECK(tp8.component("weights") < one.component("weights") / 7);
    CHECK(tp8.component("weights") > one.component("weights") / 9);
    j["sp"] = true;
    CHECK(bill(j).peak_allocated_bytes <= tp8.peak_allocated_bytes);
    // Pipeline: the most loaded stage holds about 1/pp of the layers; more micro-batches in flight on the
    // first stage never lower its memory.
    json p = base("llama-3.1-8b", "megatron", 4);
    p["pp"] = 4;
    p["checkpointing"] = "none";
    const Bill pp1 = bill(p);
    p["grad_accum"] = 8;
    CHECK(bill(p).peak_allocated_bytes >= pp1.peak_allocated_bytes);
    CHECK(pp1.component("weights") < bill(base("llama-3.1-8b", "megatron", 1)).component("weights") / 2);
    CHECK_FALSE(pp1.layout.empty());
}

TEST_CASE("parallel: context-parallel ranks shard the model states too (dp x cp)") {
    // torchtitan's FSDP runs on the flattened dp_shard_cp mesh; Megatron's distributed optimizer on the
    // data-parallel group with context parallel. 8 GPUs: fsdp 8 x cp 1 and fsdp 2 x cp 4 hold the same shard.
    json j = base("llama-3.1-8b", "torchtitan", 8);
    j["sharding"] = "fsdp-full";
    j["seq_len"] = 8192;
    const Bill cp1 = bill(j);
    j["cp"] = 4;
    j["seq_len"] = 4 * 8192;  // the same tokens per GPU
    const Bill cp4 = bill(j);
    for (const char* line : {"weights", "optimizer", "gradients"}) {
        INFO(line);
        CHECK(cp4.component(line) == cp1.component(line));
    }
    const double P = 8030261248.0;                                                            // Llama 3.1 8B
    CHECK(static_cast<double>(cp4.component("weights")) == Approx(P * 4 / 8).epsilon(1e-6));  // fp32 params / 8
    CHECK(cp4.component("activations") == cp1.component("activations"));
    // Megatron ZeRO-1: optimizer states over dp x cp.
    json m = base("llama-3.1-8b", "megatron", 8);
    m["sharding"] = "zero1";
    m["cp"] = 2;
    json m8 = base("llama-3.1-8b", "megatron", 8);
    m8["sharding"] = "zero1";
    CHECK(bill(m).component("optimizer") == bill(m8).component("optimizer"));
}

TEST_CASE("parallel: planner finds the fewest GPUs and lists each layout") {
    Scenario s = scenario({{"model", "llama-3.1-70b"}, {"framework", "deepspeed"}, {"gpu", "a100-80gb"}, {"checkpointing", "full"}, {"micro_batch", 1}, {"seq_len", 2048}});
    const Plan p = plan_gpus(s, 256);
    REQUIRE(p.found);
    CHECK(p.best.num_gpus > 1);
    CHECK(p.best.sharding == Sharding::zero3);
    bool smaller_fits = false;
    for (const auto& c : p.candidates) {
        if (c.num_gpus < p.best.num_gpus && c.fits) smaller_fits = true;
        CHECK(c.device_bytes > 0);
    }
    CHECK_FALSE(smaller_fits);
    Scenario check = s;
    check.num_gpus = p.best.num_gpus;
    check.sharding = p.best.sharding;
    CHECK(static_cast<double>(estimate(check).device_bytes) <= 0.9 * static_cast<double>(s.gpu.memory_bytes));
    const json pj = plan_to_json(p, s);
    CHECK(pj["fewest_gpus"] == p.best.num_gpus);
    CHECK(pj["layout"]["sharding"] == "zero3");
    // A model that fits on one GPU needs one.
    Scenario small = scenario({{"model", "qwen2.5-0.5b"}, {"micro_batch", 1}, {"seq_len", 512}});
    CHECK(plan_gpus(small).best.num_gpus == 1);
}

TEST_CASE("parallel: FSDP no_sync keeps unsharded gradients of every unit that trains (LitGPT)") {
    // LoRA on Llama-2-7B over 2 GPUs, bf16-true: with accumulation, each decoder-layer unit (frozen base +
    // adapters in one flat parameter) keeps a gradient of all its weights; without it only shards exist.
    json j = {{"model", "llama-2-7b"}, {"framework", "litgpt"}, {"num_gpus", 2}, {"sharding", "fsdp-full"}, {"method", "lora"}, {"precision", "bf16"}, {"micro_batch", 1}, {"seq_len", 1024}, {"checkpointing", "full"}, {"gpu", "a100-80gb"}};
    j["grad_accum"] = 1;
    const auto one = bill(j).peak_allocated_bytes;
    j["grad_accum"] = 8;
    const Bill acc = bill(j);
    const double layer_weights = 32.0 * (4096.0 * 4096 * 4 + 3.0 * 4096 * 11008 + 2 * 4096) * 2;  // bf16 B
    CHECK(static_cast<double>(acc.peak_allocated_bytes - one) == Approx(layer_weights).epsilon(0.02));
    // Off when the framework reduces every micro-batch, or when asked.
    j["fsdp_no_sync"] = false;
    CHECK(bill(j).peak_allocated_bytes - one < 200 * 1024 * 1024);
    j.erase("fsdp_no_sync");
    j["framework"] = "torchtune";
    CHECK(scenario(j).fsdp_no_sync == false);
    // Full fine-tuning: all of this rank's parameters' gradients, unsharded, instead of 1/dp of them.
    json f = j;
    f["framework"] = "litgpt";
    f["method"] = "full";
    f["grad_accum"] = 4;
    f["num_gpus"] = 4;
    const auto nosync = bill(f).peak_allocated_bytes;
    f["fsdp_no_sync"] = false;
    const auto synced = bill(f).peak_allocated_bytes;
    const double P = 6738415616.0;  // Llama-2-7B parameters
    CHECK(static_cast<double>(nosync - synced) == Approx(2.0 * P * 0.75).epsilon(0.05));
}

TEST_CASE("parallel: FSDP gathers QLoRA layers in their 4-bit form") {
    json j = {{"model", "llama-3.1-70b"}, {"framework", "torchtune"}, {"num_gpus", 8}, {"sharding", "fsdp-full"}, {"micro_batch", 1}, {"seq_len", 1024}, {"checkpointing", "full"}, {"gpu", "h100-80gb"}};
    j["method"] = "lora";
    const auto lora = bill(j).component("gathered_params");
    j["method"] = "qlora";
    const auto qlora = bill(j).component("gathered_params");
    // The root unit (embeddings + output, bf16) is the same; two layers shrink from 2 B to ~0.56 B/param.
    CHECK(qlora < lora);
    CHECK(static_cast<double>(lora - qlora) > 0.6 * 2 * 2 * 855.6e6);
}

}  // namespace unit_parallel
}  // namespace
