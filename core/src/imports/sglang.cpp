// `python -m sglang.launch_server ...` (SGLang's ServerArgs, python/sglang/srt/server_args.py). There is
// no SGLang engine in the bill: SGLang, like vLLM, preallocates a static share of the GPU for weights and
// the KV pool (mem_fraction_static) and serves from it, so it is modelled with the vllm framework's keys
// and the report says so.
#include "serving.hpp"

namespace vramcalc::imports {
namespace {

void tp(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) im.set("tp", *v, e);
}
void pp(Importer& im, const Entry& e) {
    if (auto v = im.integer(e)) im.set("pp", *v, e);
}
void model(Importer& im, const Entry& e) { im.model(e, e.value); }

const Rule kSglang[] = {
    {"--model-path", model},
    {"--model", model},
    {"--tp-size", tp},
    {"--tp", tp},
    {"--tensor-parallel-size", tp},
    {"--pp-size", pp},
    {"--pipeline-parallel-size", pp},
    {"--dp-size", read_data_parallel},
    {"--dp", read_data_parallel},
    {"--data-parallel-size", read_data_parallel},
    {"--mem-fraction-static", [](Importer& im, const Entry& e) {
         if (auto v = im.number(e))
             im.set("gpu_memory_utilization", *v, e, "SGLang's static share (weights + KV pool) read as vLLM's gpu_memory_utilization");
     }},
    {"--context-length", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("max_model_len", *v, e); }},
    {"--kv-cache-dtype", read_kv_dtype},
    {"--quantization", read_quantization},
    {"--dtype", read_dtype},
    {"--max-running-requests", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("max_num_seqs", *v, e); }},
    {"--chunked-prefill-size", [](Importer& im, const Entry& e) {
         if (auto v = im.integer(e); v && *v > 0) im.set("max_num_batched_tokens", *v, e, "the prefill chunk sets the largest forward batch");
     }},
    {"--disable-cuda-graph", [](Importer& im, const Entry& e) { boolean_key(im, e, "enforce_eager"); }},
    {"--cuda-graph-max-bs", nullptr, kNotModelled},
    {"--max-prefill-tokens", nullptr, kNotModelled},
    {"--max-total-tokens", nullptr, kNotModelled},
    {"--enable-dp-attention", nullptr, kNotModelled},
    {"--device", nullptr, "the bill models CUDA and ROCm GPUs; another device is read as the chosen GPU"},
    {"--model-impl", nullptr, kNoMemory},
    {"--attention-backend", nullptr, kNotModelled},
    {"--trust-remote-code", nullptr, kNoMemory},
    {"--disable-radix-cache", nullptr, "reuses KV between requests: the pool's size does not change"},
    {"--disable-overlap-schedule", nullptr, kNoMemory},
    {"--grammar-backend", nullptr, kNoMemory},
    {"--enable-memory-saver", nullptr, kNotModelled},
    {"--enable-mixed-chunk", nullptr, kNoMemory},
    {"--load-format", nullptr, kNoMemory},
    {"--random-seed", nullptr, kNoMemory},
    {"--tool-call-parser", nullptr, kNoMemory},
    {"--reasoning-parser", nullptr, kNoMemory},
    {"--served-model-name", nullptr, kNoMemory},
    {"--dist-init-addr", nullptr, kNoMemory},
    {"--nnodes", nullptr, kNoMemory},
    {"--node-rank", nullptr, kNoMemory},
};

}  // namespace

void import_sglang(Importer& im, std::span<const Entry> flags) {
    im.set_default("workload", "infer", "an SGLang server serves");
    im.set_default("framework", "vllm", "no SGLang engine in the bill: vLLM's, the nearest (a static pool share)");
    im.apply(flags, {std::span<const Rule>(kSglang), server_common_rules()});
    finish_gpu_count(im, flags, {"--dp-size", "--dp", "--data-parallel-size"});
}

}  // namespace vramcalc::imports
