#include "time/speed.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/format.hpp"
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
                               {"a800-80gb", 200}, {"h100-80gb", 450}, {"h100-96gb", 450}, {"h800", 200}, {"h20", 450}, {"h200", 450},
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


void training_speed(const Scenario& s, const Bill& b, Speed& sp) {
    const StepFlops f = training_flops(s);
    const double gpus = static_cast<double>(std::max<std::int64_t>(1, s.num_gpus));
    sp.flops_per_step = f.executed();
    sp.model_flops_per_step = f.model();
    sp.tokens_per_step = f.tokens;
    const double rate = peak_flops_per_s(s.gpu) * sp.mfu;
    sp.compute_s = rate > 0 ? f.executed() / gpus / rate / compile_speedup(s) : 0;
    // Memory traffic of one GPU per step: the weights read in forward, backward and any recomputation of
    // each micro-batch; saved activations written in forward and read in backward; the optimizer step
    // reading and writing its states, master copy and weights and reading the gradients.
    const double passes = 2.0 + (recomputes_layers(s.checkpointing) ? 1.0 : 0.0);
    const double accum = static_cast<double>(s.grad_accum);
    const double weights = static_cast<double>(b.component("weights") + b.component("lora"));
    const double states = static_cast<double>(b.component("optimizer") + b.component("master_weights"));
    const double traffic = weights * passes * accum + 2.0 * static_cast<double>(b.component("activations")) * accum +
                           2.0 * (states + weights) + static_cast<double>(b.component("gradients"));
    sp.memory_s = peak_bytes_per_s(s.gpu) > 0 ? traffic / peak_bytes_per_s(s.gpu) : 0;
    // Data-parallel collectives (ring algorithms move 2(n-1)/n of the data for an all-reduce, (n-1)/n for an
    // all-gather or a reduce-scatter; NCCL's performance notes): gradients all-reduced (DDP, ZeRO-1/2
    // reduce-scatter + all-gather of the updated shards), or FSDP/ZeRO-3's parameter all-gathers in forward
    // and backward plus the gradient reduce-scatter. Hidden behind compute up to the compute time.
    const Layout L = layout_of(s);
    const double ranks = static_cast<double>(L.shard());  // gradients are reduced over dp x cp (Layout::shard)
    if (L.shard() > 1) {
        const double grads = static_cast<double>(b.trainable_parameters) * 2.0;  // 16-bit gradients
        const double params16 = static_cast<double>(b.parameters) * 2.0 / static_cast<double>(L.tp * L.pp);
        double volume = 2.0 * (ranks - 1) / ranks * grads;
        if (L.shard_weights) volume = (ranks - 1) / ranks * (2.0 * params16 + grads);
        const double comm = volume / link_bytes_per_s(s.gpu, s.num_gpus);
        sp.communication_s = std::max(0.0, comm - sp.compute_s);
    }
    // Optimizer offload: the gradients go to the host and the updated 16-bit weights come back every step.
    if (s.offload != Offload::none)
        sp.offload_s = static_cast<double>(b.trainable_parameters) * (2.0 + 2.0) / ranks / host_bytes_per_s(s.gpu);
    // Paged optimizer states left in host RAM (runtime.cpp, spill_paged_states): unified memory brings them
    // to the GPU for the step and evicts them again, once each way per optimizer step.
    if (b.paged_to_host_bytes > 0)
        sp.offload_s += 2.0 * static_cast<double>(b.paged_to_host_bytes) / host_bytes_per_s(s.gpu);
    // Eager PyTorch training under HF Trainer (hf, deepspeed) issues every kernel from Python: a step takes
    // at least 1.3 ms per layer per forward-equivalent pass (forward 1, backward 2, full recomputation 1)
    // per micro-batch. Fit: Qwen-1-1.8B LoRA with gradient checkpointing at 256 and 512 tokens, 1.0 s per
    // 8-micro-batch iteration on an A100 (QwenLM/Qwen README, "Profiling of Memory and Speed": 4 rows,
    // 1.0 / (8 x 24 layers x 4 passes)); checked on its 7B and 14B rows.
    if (s.framework == Framework::hf || s.framework == Framework::deepspeed) {
        const double layers = static_cast<double>(s.model.layers + (s.model.arch == Arch::encoder_decoder ? s.model.encoder_layers : 0));
        sp.launch_s = accum * layers * (3.0 + (recomputes_layers(s.checkpointing) ? 1.0 : 0.0)) * 0.0013;
    }
    const double roof = std::max({sp.compute_s, sp.memory_s, sp.launch_s});
    sp.step_s = roof + sp.communication_s + sp.offload_s;
    sp.bound = sp.offload_s > roof ? "offload" : sp.communication_s > roof ? "communication"
               : sp.launch_s > std::max(sp.compute_s, sp.memory_s) ? "launch"
               : sp.compute_s >= sp.memory_s ? "compute" : "memory";
    if (sp.step_s > 0) {
        sp.tokens_per_s = f.tokens / sp.step_s;
        sp.tokens_per_s_per_gpu = sp.tokens_per_s / gpus;
    }
}

}  // namespace

double peak_bytes_per_s(const GpuSpec& g) { return g.memory_bandwidth_gbps * 1e9; }
double peak_flops_per_s(const GpuSpec& g) { return g.peak_bf16_tflops > 0 ? g.peak_bf16_tflops * 1e12 : 0; }

// Model-FLOPs utilisation reached by well-tuned eager PyTorch training, per architecture:
//  - Hopper: torchtitan benchmarks/llama3_h100_202412_torchtitan.md, Llama 3.1 8B with FSDP, no compile:
//    5762 tokens/s/GPU on 8 H100 and 5605 on 128, at torchtitan's 5.80e10 FLOPs per token (6 x 7.5e9
//    non-embedding parameters + 12 x 32 layers x 4096 x 8192 attention) of 989 TFLOPS: 33.8 % and 32.9 %;
//    0.335. (docs/performance.md's "33 % to 39 %" spans eager and compiled runs, so it is not the default.)
//  - Ampere: torchtitan, Llama 3 8B with FSDP on 64 A100, 56.3 % and 58.2 % (docs/performance.md, 2024,
//    torchtitan's default of no compile then); 0.57.
//  - Other architectures: no published figure found; Hopper's is used (the basis says so).
// torch.compile (torchtitan `--training.compile`, torchtune `compile: True`) fuses the pointwise chains
// between the matmuls (norms, rotary, SwiGLU, residual adds) into fewer kernels that read and write each
// tensor once: training runs 1.16x faster than eager at the same settings. Fit: the same torchtitan
// table, "FSDP" vs "FSDP + compile": 5762 -> 6667 tokens/s/GPU on 8 GPUs (x1.157) and 5605 -> 6514 on 128
// (x1.162). Checked on torchtune's README "Optimization flags" table (Llama 3.2 3B, one A100): "+ Compile"
// over "+ Packed Dataset", 7075 -> 8998 (x1.27, so the fit is conservative there). It applies only to the
// default MFU of a transformer: an MFU the scenario sets is the one the user's run reaches, compiled or not,
// and a layer stack has no fit. Scenarios without `compile` run at 1.
double compile_speedup(const Scenario& s) { return s.compile && s.mfu <= 0 && !s.model.stack ? 1.16 : 1.0; }

double default_mfu(const GpuSpec& g) {
    if (g.arch == "ampere") return 0.57;
    return 0.335;
}

void estimate_speed(const Scenario& s, Bill& b) {
    Speed sp;
    const bool user = s.mfu > 0;
    sp.mfu = user ? s.mfu : default_mfu(s.gpu);
    const bool published = s.gpu.arch == "hopper" || s.gpu.arch == "ampere";
    const std::string why = user ? std::string("set by the scenario")
                          : published ? "torchtitan's published MFU for " + s.gpu.arch
                                      : "no published MFU for " + s.gpu.arch + "; Hopper's used";
    sp.basis = "roofline: compute at " + whole(sp.mfu * 100) + " % MFU of " + printf_string("%.4g", s.gpu.peak_bf16_tflops) +
               " dense bf16 TFLOPS (" + why + "), memory at " + whole(s.gpu.memory_bandwidth_gbps) + " GB/s peak";
    if (s.workload == Workload::train && compile_speedup(s) != 1.0)
        sp.basis += "; torch.compile " + printf_string("%.2f", compile_speedup(s)) + "x faster than eager (torchtitan's ablation)";
    if (s.model.stack) sp.basis = "a layer stack: one token = one sample; " + sp.basis;
    if (s.workload == Workload::train) training_speed(s, b, sp);
    else inference_speed(s, b, sp);
    // Time for the dataset: training reads dataset_tokens once per epoch at the job's tokens/s; inference
    // generates dataset_tokens at the batch's aggregate decode rate (prefill not counted).
    if (s.dataset_tokens > 0) {
        sp.dataset_tokens = s.dataset_tokens * (s.workload == Workload::train ? s.epochs : 1.0);
        if (sp.tokens_per_s > 0) sp.time_for_dataset_s = sp.dataset_tokens / sp.tokens_per_s;
    }
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
    put("launch_s", s.launch_s);
    put("prefill_s", s.prefill_s);
    put("decode_s_per_token", s.decode_s_per_token);
    put("tokens_per_s_per_sequence", s.tokens_per_s_per_sequence);
    put("generate_tokens_per_s", s.generate_tokens_per_s);
    put("tokens_per_s_at_max_concurrency", s.tokens_per_s_at_max_concurrency);
    put("dataset_tokens", s.dataset_tokens);
    put("time_for_dataset_s", s.time_for_dataset_s);
    return j;
}

}  // namespace vramcalc
