#include "time/speed.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/format.hpp"
#include "inference/kv_cache.hpp"
#include "parallel/layout.hpp"
#include "time/flops.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {
namespace {

// Per-direction bandwidth (bytes/s) of the link a collective between this job's GPUs runs over.
//  - NVLink, from NVIDIA's datasheets (total bidirectional / 2): V100 SXM2 300 GB/s, A100 SXM 600 GB/s,
//    A800 400 GB/s, H100 SXM / H200 / GH200 / H20 900 GB/s, H800 400 GB/s, B200 1.8 TB/s; AMD MI300X
//    Infinity Fabric 7 x 128 GB/s (AMD MI300X data sheet).
//  - PCIe otherwise: Gen4 x16 16 GT/s x 16 lanes = 31.5 GB/s per direction, Gen5 twice that (PCI-SIG).
//  - Across nodes (more than 8 GPUs): 400 Gb/s per GPU, the RDMA network of torchtitan's benchmarks
//    (torchtitan docs/performance.md, Grand Teton hosts).
double link_bytes_per_s(const GpuSpec& g, std::int64_t gpus) {
    if (gpus > 8) return 50e9;
    struct L { const char* id; double gbs; };
    static const L nvlink[] = {{"v100-16gb", 150}, {"v100-32gb", 150}, {"a100-40gb", 300}, {"a100-80gb", 300},
                               {"a800-80gb", 200}, {"h100-80gb", 450}, {"h800", 200}, {"h20", 450}, {"h200", 450},
                               {"gh200", 450}, {"b200", 900}, {"mi300x", 448}};
    for (const auto& l : nvlink)
        if (g.id == l.id) return l.gbs * 1e9;
    const bool gen5 = g.id == "h100-pcie" || g.id == "rtx-5090";
    return (gen5 ? 63.0 : 31.5) * 1e9;
}

// CPU offload traffic runs over the host link: PCIe Gen4 x16 (Gen5 for the GPUs above that have it).
double host_bytes_per_s(const GpuSpec& g) {
    const bool gen5 = g.arch == "hopper" || g.arch == "blackwell";
    return (gen5 ? 63.0 : 31.5) * 1e9;
}

double bytes_per_s(const GpuSpec& g) { return g.memory_bandwidth_gbps * 1e9; }
double flops_per_s(const GpuSpec& g, double mfu) {
    const double peak = g.peak_bf16_tflops > 0 ? g.peak_bf16_tflops : 0;
    return peak * 1e12 * mfu;
}

void training_speed(const Scenario& s, const Bill& b, Speed& sp) {
    const StepFlops f = training_flops(s);
    const double gpus = static_cast<double>(std::max<std::int64_t>(1, s.num_gpus));
    sp.flops_per_step = f.executed();
    sp.model_flops_per_step = f.model();
    sp.tokens_per_step = f.tokens;
    const double rate = flops_per_s(s.gpu, sp.mfu);
    sp.compute_s = rate > 0 ? f.executed() / gpus / rate : 0;
    // Memory traffic of one GPU per step: the weights read in forward, backward and any recomputation of
    // each micro-batch; saved activations written in forward and read in backward; the optimizer step
    // reading and writing its states, master copy and weights and reading the gradients.
    const double passes = 2.0 + (s.checkpointing == Checkpointing::full ? 1.0 : 0.0);
    const double accum = static_cast<double>(s.grad_accum);
    const double weights = static_cast<double>(b.component("weights") + b.component("lora"));
    const double states = static_cast<double>(b.component("optimizer") + b.component("master_weights"));
    const double traffic = weights * passes * accum + 2.0 * static_cast<double>(b.component("activations")) * accum +
                           2.0 * (states + weights) + static_cast<double>(b.component("gradients"));
    sp.memory_s = bytes_per_s(s.gpu) > 0 ? traffic / bytes_per_s(s.gpu) : 0;
    // Data-parallel collectives (ring algorithms move 2(n-1)/n of the data for an all-reduce, (n-1)/n for an
    // all-gather or a reduce-scatter; NCCL's performance notes): gradients all-reduced (DDP, ZeRO-1/2
    // reduce-scatter + all-gather of the updated shards), or FSDP/ZeRO-3's parameter all-gathers in forward
    // and backward plus the gradient reduce-scatter. Hidden behind compute up to the compute time.
    const Layout L = layout_of(s);
    const double dp = static_cast<double>(L.dp);
    if (L.dp > 1) {
        const double grads = static_cast<double>(b.trainable_parameters) * 2.0;  // 16-bit gradients
        const double params16 = static_cast<double>(b.parameters) * 2.0 / static_cast<double>(L.tp * L.pp);
        double volume = 2.0 * (dp - 1) / dp * grads;
        if (L.shard_weights) volume = (dp - 1) / dp * (2.0 * params16 + grads);
        const double comm = volume / link_bytes_per_s(s.gpu, s.num_gpus);
        sp.communication_s = std::max(0.0, comm - sp.compute_s);
    }
    // Optimizer offload: the gradients go to the host and the updated 16-bit weights come back every step.
    if (s.offload != Offload::none)
        sp.offload_s = static_cast<double>(b.trainable_parameters) * (2.0 + 2.0) / dp / host_bytes_per_s(s.gpu);
    const double roof = std::max(sp.compute_s, sp.memory_s);
    sp.step_s = roof + sp.communication_s + sp.offload_s;
    sp.bound = sp.offload_s > roof ? "offload" : sp.communication_s > roof ? "communication"
               : sp.compute_s >= sp.memory_s ? "compute" : "memory";
    if (sp.step_s > 0) {
        sp.tokens_per_s = f.tokens / sp.step_s;
        sp.tokens_per_s_per_gpu = sp.tokens_per_s / gpus;
    }
}

// How a decode step is paced beyond the roofline (fits to QwenLM/Qwen2.5's speed benchmark, bf16 rows
// with inputs up to 6144 tokens, tests/data/throughput_runs.json; the other sources are held out):
//  - PyTorch eager engines (transformers generate, LitGPT, torchtune): the CPU issues every kernel of every
//    layer, so a step takes at least 0.88 ms per layer (median over the 27 CPU-bound transformers rows:
//    0.84-0.91 ms per layer from 0.5B to 14B), whatever the GPU.
//  - vLLM (CUDA graphs): 1 / 0.72 of the roofline plus 3.0 ms per step (least squares over its 15 rows:
//    72 % of peak bandwidth reached, the scheduler and sampler's fixed cost).
//  - llama.cpp (CUDA graphs too): no measurement here; vLLM's pacing is used.
struct Pacing {
    double per_layer_s = 0, bandwidth_share = 1, per_step_s = 0;
};
Pacing decode_pacing(Framework f) {
    if (f == Framework::vllm || f == Framework::llamacpp) return {0, 0.72, 0.0030};
    return {0.00088, 1, 0};
}

double batch_forward_flops(const Scenario& s) {
    return static_cast<double>(s.batch) * s.model.stack->flops_per_sample();
}

void inference_speed(const Scenario& s, const Bill& b, Speed& sp) {
    const ModelSpec& m = s.model;
    const double rate = flops_per_s(s.gpu, sp.mfu), bw = bytes_per_s(s.gpu);
    if (rate <= 0 || bw <= 0 || m.count_only) return;
    if (m.stack) {  // one forward of the batch (model/layer_stack.cpp FLOPs per sample), compute-bound
        sp.prefill_s = batch_forward_flops(s) / rate;
        sp.bound = "compute";
        return;
    }
    const double tp = static_cast<double>(std::max<std::int64_t>(1, s.tp));
    const double batch = static_cast<double>(s.batch), prompt = static_cast<double>(s.prompt_len);
    const double gen = static_cast<double>(s.gen_len);
    // Prefill: compute-bound, every prompt token through the model (the causal mean context is prompt / 2).
    sp.prefill_s = batch * prompt * token_flops(s, m, prompt / 2).forward() / tp / rate;
    // Decode: each step reads the GPU's weights once and every sequence's KV cache, and computes one token
    // per sequence; the larger of the two times (a roofline at peak bandwidth and the assumed MFU).
    const double weights = static_cast<double>(b.component("weights"));
    const Pacing pace = decode_pacing(s.framework);
    const double layers = static_cast<double>(m.layers + (m.arch == Arch::encoder_decoder ? m.encoder_layers : 0));
    auto step = [&](double sequences) {
        const double context = prompt + gen / 2;
        const double kv = kv_bytes_for_tokens(s, context) * sequences;
        const double compute = sequences * token_flops(s, m, context).forward() / tp / rate;
        const double gpu = std::max((weights + kv) / (bw * pace.bandwidth_share), compute);
        return std::max(gpu, layers * pace.per_layer_s) + pace.per_step_s;
    };
    sp.decode_s_per_token = step(batch);
    sp.tokens_per_s_per_sequence = sp.decode_s_per_token > 0 ? 1.0 / sp.decode_s_per_token : 0;
    const double total = sp.prefill_s + gen * sp.decode_s_per_token;
    sp.generate_tokens_per_s = total > 0 ? gen / total : 0;
    sp.tokens_per_s = sp.tokens_per_s_per_sequence * batch;
    const double most = static_cast<double>(b.max_concurrent_sequences.value_or(0));
    if (most > 0) sp.tokens_per_s_at_max_concurrency = most / step(most);
    sp.bound = (weights + kv_bytes_for_tokens(s, prompt + gen / 2) * batch) / bw >=
                       batch * token_flops(s, m, prompt + gen / 2).forward() / tp / rate
                   ? "memory" : "compute";
}

}  // namespace

// Model-FLOPs utilisation reached by well-tuned PyTorch training, per architecture:
//  - Hopper: torchtitan, Llama 3.1 8B with FSDP on 8 or 128 H100, 33 % to 39 % (docs/performance.md); 0.36.
//  - Ampere: torchtitan, Llama 3 8B with FSDP on 64 A100, 56.3 % and 58.2 % (docs/performance.md, 2024); 0.57.
//  - Other architectures: no published figure found; Hopper's is used (the basis says so).
double default_mfu(const GpuSpec& g) {
    if (g.arch == "ampere") return 0.57;
    return 0.36;
}

void estimate_speed(const Scenario& s, Bill& b) {
    Speed sp;
    sp.mfu = default_mfu(s.gpu);
    const bool published = s.gpu.arch == "hopper" || s.gpu.arch == "ampere";
    sp.basis = "roofline: compute at " + whole(sp.mfu * 100) + " % MFU of " + printf_string("%.4g", s.gpu.peak_bf16_tflops) +
               " dense bf16 TFLOPS (" + (published ? "torchtitan's published MFU for " + s.gpu.arch
                                                    : std::string("no published MFU for ") + s.gpu.arch + "; Hopper's used") +
               "), memory at " + whole(s.gpu.memory_bandwidth_gbps) + " GB/s peak";
    if (s.model.stack) sp.basis = "a layer stack: one token = one sample; " + sp.basis;
    if (s.workload == Workload::train) training_speed(s, b, sp);
    else inference_speed(s, b, sp);
    b.speed = sp;
}

}  // namespace vramcalc::detail

namespace vramcalc {

nlohmann::json speed_to_json(const Speed& s) {
    nlohmann::json j = {{"mfu", s.mfu}, {"bound", s.bound}, {"basis", s.basis}};
    auto put = [&](const char* k, double v) {
        if (v > 0) j[k] = v;
    };
    put("flops_per_step", s.flops_per_step);
    put("model_flops_per_step", s.model_flops_per_step);
    put("step_s", s.step_s);
    put("tokens_per_step", s.tokens_per_step);
    put("tokens_per_s", s.tokens_per_s);
    put("tokens_per_s_per_gpu", s.tokens_per_s_per_gpu);
    put("compute_s", s.compute_s);
    put("memory_s", s.memory_s);
    put("communication_s", s.communication_s);
    put("offload_s", s.offload_s);
    put("prefill_s", s.prefill_s);
    put("decode_s_per_token", s.decode_s_per_token);
    put("tokens_per_s_per_sequence", s.tokens_per_s_per_sequence);
    put("generate_tokens_per_s", s.generate_tokens_per_s);
    put("tokens_per_s_at_max_concurrency", s.tokens_per_s_at_max_concurrency);
    return j;
}

}  // namespace vramcalc
