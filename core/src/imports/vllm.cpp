// `vllm serve MODEL ...` and `python -m vllm.entrypoints.openai.api_server --model MODEL ...`: engine
// arguments (vLLM's EngineArgs, vllm/engine/arg_utils.py) onto the vllm framework's scenario keys.
#include "serving.hpp"

#include <algorithm>

namespace vramcalc::imports {
namespace {

const Rule kVllm[] = {
    {"--model", [](Importer& im, const Entry& e) { im.model(e, e.value); }},
    {"--tensor-parallel-size", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("tp", *v, e); }},
    {"-tp", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("tp", *v, e); }},
    {"--pipeline-parallel-size", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("pp", *v, e); }},
    {"-pp", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("pp", *v, e); }},
    {"--data-parallel-size", read_data_parallel},
    {"-dp", read_data_parallel},
    {"--max-model-len", [](Importer& im, const Entry& e) { if (auto v = token_count(im, e)) im.set("max_model_len", *v, e); }},
    {"--gpu-memory-utilization", [](Importer& im, const Entry& e) { if (auto v = im.number(e)) im.set("gpu_memory_utilization", *v, e); }},
    {"--kv-cache-dtype", read_kv_dtype},
    {"--quantization", read_quantization},
    {"-q", read_quantization},
    {"--dtype", read_dtype},
    {"--max-num-seqs", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("max_num_seqs", *v, e); }},
    {"--max-num-batched-tokens", [](Importer& im, const Entry& e) { if (auto v = token_count(im, e)) im.set("max_num_batched_tokens", *v, e); }},
    {"--enforce-eager", [](Importer& im, const Entry& e) { boolean_key(im, e, "enforce_eager"); }},
    {"--enable-expert-parallel", [](Importer&, const Entry&) {}},  // ep = tp x dp once both are known (below)
    {"-ep", [](Importer&, const Entry&) {}},
    {"--block-size", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("block_size", *v, e); }},
    {"--mm-encoder-tp-mode", [](Importer& im, const Entry& e) {
         const std::string v = lower(e.value);
         if (v == "data" || v == "weights") im.set("vllm_mm_encoder_dp", v == "data", e);
         else im.ignore(e, "a vision-encoder mode the bill does not model (allowed: weights, data)");
     }},
    {"--language-model-only", [](Importer& im, const Entry& e) { boolean_key(im, e, "vllm_language_model_only"); }},
    {"--cpu-offload-gb", nullptr, "read, not modelled: the bill keeps every weight on the GPU (vLLM then streams this many GB from host memory)"},
    {"--swap-space", nullptr, "host memory for preempted sequences: not GPU memory"},
    {"--enable-prefix-caching", nullptr, "reuses KV blocks between requests: the pool's size does not change"},
    {"--no-enable-prefix-caching", nullptr, kNoMemory},
    {"--enable-chunked-prefill", nullptr, "sets how prefill is scheduled: the profiled batch is max-num-batched-tokens either way"},
    {"--enable-lora", nullptr, kNotModelled},
    {"--max-lora-rank", nullptr, kNotModelled},
    {"--lora-modules", nullptr, kNotModelled},
    {"--speculative-config", nullptr, kNotModelled},
    {"--load-format", nullptr, kNoMemory},
    {"--trust-remote-code", nullptr, kNoMemory},
    {"--tokenizer", nullptr, kNoMemory},
    {"--served-model-name", nullptr, kNoMemory},
    {"--revision", nullptr, kNoMemory},
    {"--download-dir", nullptr, kNoMemory},
    {"--seed", nullptr, kNoMemory},
    {"--generation-config", nullptr, kNoMemory},
    {"--chat-template", nullptr, kNoMemory},
    {"--tool-call-parser", nullptr, kNoMemory},
    {"--enable-auto-tool-choice", nullptr, kNoMemory},
    {"--reasoning-parser", nullptr, kNoMemory},
    {"--disable-log-requests", nullptr, kNoMemory},
    {"--disable-log-stats", nullptr, kNoMemory},
};

}  // namespace

void import_vllm(Importer& im, std::span<const Entry> flags, const Entry* positional_model) {
    im.set_default("workload", "infer", "a vLLM server serves");
    im.set_default("framework", "vllm", "the engine");
    if (positional_model) im.model(*positional_model, positional_model->value);
    im.apply(flags, {std::span<const Rule>(kVllm), server_common_rules()});
    finish_gpu_count(im, flags, {"--data-parallel-size", "-dp"});
    // --enable-expert-parallel is a switch: the MoE layers are sharded over the tensor x data-parallel ranks
    // (vllm/config/parallel.py @00193b82, ParallelConfig.enable_expert_parallel), so ep = tp x dp.
    for (const auto& f : flags) {
        if (f.key != "--enable-expert-parallel" && f.key != "-ep") continue;
        const auto on = im.boolean(f);
        if (!on || !*on) continue;
        const std::int64_t gpus = imported_degree(im, "num_gpus"), pp = imported_degree(im, "pp");
        im.set("ep", std::max<std::int64_t>(1, gpus / std::max<std::int64_t>(1, pp)), f,
               "--enable-expert-parallel: the experts spread over the tp x dp ranks (vllm/config/parallel.py)");
    }
}

}  // namespace vramcalc::imports
