// The speed of generation: prefill, then one decode step per generated token (docs/methodology.md, "Time").
#include <algorithm>
#include <cmath>

#include "formats/weight_formats.hpp"
#include "inference/kv_cache.hpp"
#include "inference/placement.hpp"
#include "model/framework_layout.hpp"
#include "time/flops.hpp"
#include "time/speed.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {
namespace {

// How a decode step is paced beyond the roofline. Every figure is a named fit; the rows each was fitted
// on and the rows it was checked on are in docs/methodology.md, "Generation speed".
struct Pacing {
    double per_layer_s = 0;             // CPU time to issue one layer's kernels (eager PyTorch)
    double bandwidth_share = 1;         // the share of peak memory bandwidth a decode step reaches
    double per_step_s = 0;              // fixed cost per step (scheduler, sampler)
    double per_quantized_linear_s = 0;  // extra CPU time of one bitsandbytes linear call
    double per_all_reduce_s = 0;        // one tensor-parallel all-reduce between eager processes
};

// bitsandbytes formats run through bnb's Python matmul_4bit / matmul (LLM.int8) on every call.
bool bitsandbytes(const std::string& w) { return w == "nf4" || w == "nf4-dq"; }

Pacing decode_pacing(const Scenario& s) {
    // vLLM (CUDA graphs): 1 / 0.72 of the roofline plus 3.0 ms per step (least squares over the 15 vLLM
    // bf16 rows of QwenLM/Qwen2.5's speed benchmark, inputs up to 6144 tokens). llama.cpp (CUDA graphs
    // too): no measurement here; vLLM's pacing is used.
    if (s.framework == Framework::vllm || s.framework == Framework::llamacpp) return {0, 0.72, 0.0030, 0, 0};
    Pacing p;
    // PyTorch eager engines (transformers generate, LitGPT, torchtune): the CPU issues every kernel of every
    // layer, so a step takes at least 0.88 ms per layer (median over the 27 CPU-bound transformers bf16 rows
    // of QwenLM/Qwen2.5's speed benchmark: 0.84-0.91 ms per layer from 0.5B to 14B), whatever the GPU.
    p.per_layer_s = 0.00088;
    // When the GPU is the bound, eager kernels reach 62 % of peak bandwidth: Qwen2.5-72B-Instruct bf16 on
    // 2 A100 80GB with device_map="auto" (QwenLM/Qwen2.5 speed benchmark, 1-token input: 8.73 tokens/s,
    // 145 GB read per token at 2039 GB/s). Checked on Qwen-1's 72B bf16 row (QwenLM/Qwen README) and on
    // LitGPT's sequential generation (tutorials/inference.md, Llama-2-70b bf16 on 4-8 A100 40GB).
    p.bandwidth_share = 0.62;
    // bitsandbytes 4-bit: each Linear4bit call runs bnb.matmul_4bit's Python path (quant-state handling,
    // then gemv_4bit at one token) and, with double quantisation, dequantize_blockwise of the absmax
    // first. Median extra per call over LitGPT's resource tables (tutorials/resource-tables.md, bnb
    // 0.41.1, A100 40GB, 7 nf4 and 7 nf4-dq rows): nf4 0.13 ms, nf4-dq 0.17 ms. Checked on LitGPT's
    // sequential 70B nf4-dq rows (tutorials/inference.md) and tutorials/quantize.md.
    if (s.weights == "nf4") p.per_quantized_linear_s = 0.00013;
    if (s.weights == "nf4-dq") p.per_quantized_linear_s = 0.00017;
    // LitGPT generate/tp.py: one process per GPU, two all-reduces per layer (after attention's and the
    // MLP's output projection); each rank's eager kernel stream waits for the slowest rank at each. Fit:
    // 0.25 ms per all-reduce from its bf16 rows (tutorials/inference.md, Llama-2-70b on 4 and 8 A100 40GB:
    // 9.33 and 8.61 tokens/s); checked on its nf4-dq tensor-parallel rows.
    p.per_all_reduce_s = 0.00025;
    return p;
}

// bitsandbytes linear calls in one decode step: every quantised linear of every layer, a routed expert only
// for the tokens that pick it. LitGPT runs q, k and v as one fused `attn` linear (its layout lists them
// as slices for LoRA), so its k and v slices add no call.
double quantized_linear_calls(const Scenario& s) {
    if (!bitsandbytes(s.weights)) return 0;
    const ModelSpec layout = s.framework == Framework::litgpt ? litgpt_layout(s.model) : s.model;
    double calls = 0;
    for (const auto& g : layout.params) {
        if (!g.is_linear || g.category == ParamCategory::lm_head || g.category == ParamCategory::router) continue;
        if (s.framework == Framework::litgpt && (g.role == Role::k || g.role == Role::v)) continue;
        const double share = g.routed_expert && layout.moe.experts > 0
                                 ? static_cast<double>(layout.moe.top_k) / static_cast<double>(layout.moe.experts)
                                 : 1.0;
        calls += static_cast<double>(g.count) * share;
    }
    return calls;
}

}  // namespace

void inference_speed(const Scenario& s, const Bill& b, Speed& sp) {
    const ModelSpec& m = s.model;
    const double rate = peak_flops_per_s(s.gpu) * sp.mfu, bw = peak_bytes_per_s(s.gpu);
    if (rate <= 0 || bw <= 0 || m.count_only) return;
    if (m.stack) {  // one forward of the batch (model/layer_stack.cpp FLOPs per sample), compute-bound
        sp.prefill_s = static_cast<double>(s.batch) * m.stack->flops_per_sample() / rate;
        sp.bound = "compute";
        return;
    }
    const Split split = split_of(s);
    const double tp = static_cast<double>(split.tp), pp = static_cast<double>(split.pp);
    const double batch = static_cast<double>(s.batch), prompt = static_cast<double>(s.prompt_len);
    const double gen = static_cast<double>(s.gen_len);
    // Prefill: compute-bound, every prompt token through the model (the causal mean context is prompt / 2);
    // a layer split runs its stages one after another, tensor parallelism shares each layer.
    sp.prefill_s = batch * prompt * token_flops(s, m, prompt / 2).forward() / tp / rate;
    // Decode: each step reads the weights once and every sequence's KV cache, and computes one token per
    // sequence; the larger of the two times, paced by the engine. A layer split (LitGPT's sequential
    // generation, transformers' device_map="auto") runs its GPUs one after another: the step reads every
    // stage's weights and cache in turn.
    const double weights = split.pp > 1 ? weight_bytes(m, s.weights, s.group_size).total()
                                        : static_cast<double>(b.component("weights"));
    const Pacing pace = decode_pacing(s);
    const double layers = static_cast<double>(m.layers + (m.arch == Arch::encoder_decoder ? m.encoder_layers : 0));
    const double cpu = layers * pace.per_layer_s + quantized_linear_calls(s) * pace.per_quantized_linear_s +
                       (split.tp > 1 ? 2.0 * static_cast<double>(m.layers) * pace.per_all_reduce_s : 0.0);
    const double context = prompt + gen / 2;
    auto step = [&](double sequences) {
        const double kv = kv_bytes_for_tokens(s, context) * pp * sequences;
        const double compute = sequences * token_flops(s, m, context).forward() / tp / rate;
        const double gpu = std::max((weights + kv) / (bw * pace.bandwidth_share), compute);
        return std::max(gpu, cpu) + pace.per_step_s;
    };
    sp.decode_s_per_token = step(batch);
    sp.tokens_per_s_per_sequence = sp.decode_s_per_token > 0 ? 1.0 / sp.decode_s_per_token : 0;
    const double total = sp.prefill_s + gen * sp.decode_s_per_token;
    sp.generate_tokens_per_s = total > 0 ? gen / total : 0;
    sp.tokens_per_s = sp.tokens_per_s_per_sequence * batch;
    const double most = static_cast<double>(b.max_concurrent_sequences.value_or(0));
    if (most > 0) sp.tokens_per_s_at_max_concurrency = most / step(most);
    // The bound: kernel launches where the CPU's issue time paces the step, else the roofline's larger side.
    const double kv = kv_bytes_for_tokens(s, context) * pp * batch;
    const double mem = (weights + kv) / (bw * pace.bandwidth_share), flops = batch * token_flops(s, m, context).forward() / tp / rate;
    sp.bound = cpu > std::max(mem, flops) ? "launch" : mem >= flops ? "memory"
                                                                    : "compute";
}

}  // namespace vramcalc::detail
