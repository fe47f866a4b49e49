#include "time/speed.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/format.hpp"
#include "parallel/layout.hpp"
#include "time/flops.hpp"
#include "time/kernels.hpp"
#include "time/peaks.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {
namespace {

// The compute term of a training step. The default MFU is a published share of the dense bf16 peak
// (default_mfu). It is split into the matmuls at that peak and the rest of the step (pointwise ops, norms,
// the optimizer, gaps between kernels): rest = executed FLOPs x (1 / (bf16 peak x MFU) - 1 / bf16 peak).
// The matmuls then run at the peak of the units they use (matmul_rates: FP32 units for fp32 runs, TF32 for
// their convolutions, FP8 for float8 linears). The rest is memory-bound (norms, activations, residual adds,
// rotary: each reads and writes its tensors once; kernels.hpp), so it scales with the memory bandwidth of
// the GPU the MFU was measured on over this GPU's (mfu_source_bytes_per_s); for the GPU of the published
// run this is exactly executed / (bf16 peak x MFU). The split assumes the bf16 matmuls of the published
// runs ran at peak, so it gives the non-matmul part its largest share. An MFU the scenario sets is the
// user's own run's share of the peaks the run uses: compute = matmul time at those peaks / MFU.
double compute_seconds(const Scenario& s, const StepFlops& f, double mfu) {
    const MatmulRates r = matmul_rates(s);
    if (r.reference <= 0 || r.matmul <= 0 || r.linear <= 0 || r.conv <= 0 || r.attention <= 0 || mfu <= 0) return 0;
    const double other = std::max(0.0, f.executed() - f.linears - f.convs - f.attention);
    const double matmuls = f.linears / r.linear + f.convs / r.conv + f.attention / r.attention + other / r.matmul;
    if (s.mfu > 0) return matmuls / mfu;
    // The rest holds the published runs' bf16 matmuls' shortfall from peak. A matmul on slower units (FP32,
    // TF32) falls short of their peak by the same share (kernel_costs().matmul_share of the datasheet, the
    // maximum achievable matmul FLOPS), so its shortfall is charged at its own rate, less the bf16 one the
    // rest has. Faster units (float8 linears) get no saving: torchao's float8 linears add amax and cast
    // kernels the rest does not hold, and the published float8 runs are already estimated too fast.
    const double share = kernel_costs().matmul_share;
    auto shortfall = [&](double flops, double rate) {
        return rate < r.reference ? flops * (1 / share - 1) * (1 / rate - 1 / r.reference) : 0.0;
    };
    const double slower = shortfall(f.linears, r.linear) + shortfall(f.convs, r.conv) + shortfall(f.attention, r.attention) +
                          shortfall(other, r.matmul);
    // Half the rest is taken as memory-bound and scales with bandwidth, within the architecture the MFU was
    // measured on (Hopper, Ampere; others borrow Hopper's figure and keep it whole). The half is a fit on the
    // project's H200 step times (tests/data/throughput_runs.json, S18: bf16 LLM rows); the other half is the
    // matmuls' shortfall from peak and the gaps between kernels, which bandwidth does not change. The
    // memory-bound half moves the step's activations: 2-byte ones in the published bf16 runs, 4-byte ones in
    // an fp32 run (its norms, activations and residual adds read and write fp32 tensors), so it doubles there.
    const double bw = peak_bytes_per_s(s.gpu);
    const bool source_arch = s.gpu.arch == "hopper" || s.gpu.arch == "ampere";
    const double bytes = s.precision == Precision::fp32 ? 2.0 : 1.0;
    const double memory_half = 0.5 * bytes * (bw > 0 && source_arch ? mfu_source_bytes_per_s(s.gpu) / bw : 1.0);
    return matmuls + slower + (0.5 + memory_half) * f.executed() * (1.0 / (r.reference * mfu) - 1.0 / r.reference);
}

// Returns whether the step's traffic crossed the GPU's PCIe link (collectives without a GPU fabric, offload).
bool training_speed(const Scenario& s, const Bill& b, Speed& sp) {
    bool host_link_used = false;
    const StepFlops f = training_flops(s);
    const double gpus = static_cast<double>(std::max<std::int64_t>(1, s.num_gpus));
    sp.flops_per_step = f.executed();
    sp.model_flops_per_step = f.model();
    sp.tokens_per_step = f.tokens;
    sp.compute_s = compute_seconds(s, f, sp.mfu) / gpus / compile_speedup(s);
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
        if (s.num_gpus <= 8 && s.gpu.gpu_link_gbps <= 0) host_link_used = true;
    }
    // Optimizer offload: the gradients go to the host and the updated 16-bit weights come back every step.
    if (s.offload != Offload::none)
        sp.offload_s = static_cast<double>(b.trainable_parameters) * (2.0 + 2.0) / ranks / host_bytes_per_s(s.gpu);
    // Paged optimizer states left in host RAM (runtime.cpp, spill_paged_states): unified memory brings them
    // to the GPU for the step and evicts them again, once each way per optimizer step.
    if (b.paged_to_host_bytes > 0)
        sp.offload_s += 2.0 * static_cast<double>(b.paged_to_host_bytes) / host_bytes_per_s(s.gpu);
    if (sp.offload_s > 0) host_link_used = true;
    // Eager PyTorch training under HF Trainer (hf, deepspeed) issues every kernel from Python: a step takes
    // at least 1.3 ms per layer per forward-equivalent pass (forward 1, backward 2, full recomputation 1)
    // per micro-batch. Fit: Qwen-1-1.8B LoRA with gradient checkpointing at 256 and 512 tokens, 1.0 s per
    // 8-micro-batch iteration on an A100 (QwenLM/Qwen README, "Profiling of Memory and Speed": 4 rows,
    // 1.0 / (8 x 24 layers x 4 passes)); checked on its 7B and 14B rows.
    if (s.framework == Framework::hf || s.framework == Framework::deepspeed) {
        const double layers = static_cast<double>(s.model.layers + (s.model.arch == Arch::encoder_decoder ? s.model.encoder_layers : 0));
        sp.launch_s = accum * layers * (3.0 + (recomputes_layers(s.checkpointing) ? 1.0 : 0.0)) * 0.0013;
    }
    // Frameworks' known overheads on the same eager issue path (kernels.cpp): DoRA's weight norm per adapted
    // linear, transformers' MoE expert loop.
    const DoraTime dora = dora_seconds(s);
    sp.launch_s += dora.issue_s + moe_loop_seconds(s);
    sp.compute_s += dora.gpu_s / gpus + eager_gelu_seconds(s);
    // A layer stack kernel by kernel (stack_time.cpp) instead of a borrowed MFU: its convolutions, norms and
    // activations, and the CPU time eager PyTorch takes to issue them.
    if (s.model.stack && s.mfu <= 0) {
        const StackTime st = stack_micro_batch_time(s);
        sp.compute_s = accum * st.gpu_s;
        sp.launch_s = accum * st.cpu_s;
    }
    // The optimizer step runs after backward, on this GPU's share of the trainable parameters.
    // An offloaded optimizer steps on the host (its time is not modelled beyond the transfers).
    const double shard = (L.shard_optimizer ? ranks : 1.0) * static_cast<double>(L.tp * L.pp);
    if (s.offload == Offload::none)
        sp.optimizer_s = optimizer_step_seconds(s, static_cast<double>(b.trainable_parameters) / shard, trainable_tensors(s) / shard);
    const double roof = std::max({sp.compute_s, sp.memory_s, sp.launch_s});
    sp.step_s = roof + sp.optimizer_s + sp.communication_s + sp.offload_s;
    sp.bound = sp.offload_s > roof ? "offload" : sp.communication_s > roof                       ? "communication"
                                             : sp.launch_s > std::max(sp.compute_s, sp.memory_s) ? "launch"
                                             : sp.compute_s >= sp.memory_s                       ? "compute"
                                                                                                 : "memory";
    if (sp.step_s > 0) {
        sp.tokens_per_s = f.tokens / sp.step_s;
        sp.tokens_per_s_per_gpu = sp.tokens_per_s / gpus;
    }
    return host_link_used;
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

// The memory bandwidth of the GPUs default_mfu's figures were measured on: torchtitan's Dec 2024 H100
// benchmarks ran on Grand Teton's H100 96GB HBM2e, 2.4 TB/s (benchmarks/llama3_h100_202412_torchtitan.md;
// the catalog's h100-96gb), its A100 table on A100 80GB SXM, 2.039 TB/s (NVIDIA datasheet; a100-80gb).
double mfu_source_bytes_per_s(const GpuSpec& g) { return g.arch == "ampere" ? 2039e9 : 2400e9; }

double default_mfu(const GpuSpec& g) {
    if (g.arch == "ampere") return 0.57;
    return 0.335;
}

void estimate_speed(const Scenario& s, Bill& b) {
    Speed sp;
    const bool user = s.mfu > 0;
    sp.mfu = user ? s.mfu : default_mfu(s.gpu);
    const bool published = s.gpu.arch == "hopper" || s.gpu.arch == "ampere";
    const std::string why = user        ? std::string("set by the scenario")
                            : published ? "torchtitan's published MFU for " + s.gpu.arch
                                        : "no published MFU for " + s.gpu.arch + "; Hopper's used";
    sp.basis = "roofline: compute at " + whole(sp.mfu * 100) + " % MFU of " + printf_string("%.4g", s.gpu.peak_bf16_tflops) +
               " dense bf16 TFLOPS (" + why + "), memory at " + whole(s.gpu.memory_bandwidth_gbps) + " GB/s peak";
    if (s.workload == Workload::train && compile_speedup(s) != 1.0)
        sp.basis += "; torch.compile " + printf_string("%.2f", compile_speedup(s)) + "x faster than eager (torchtitan's ablation)";
    if (s.model.stack) sp.unit = s.model.stack->input.size() == 3 ? "images" : "samples";
    if (s.workload == Workload::train) {
        const MatmulRates r = matmul_rates(s);
        const char* rest = s.mfu > 0 || s.model.stack       ? ""  // a stack is priced kernel by kernel (stack_time.cpp)
                           : s.precision == Precision::fp32 ? ", the rest of the step as in a bf16 run, in fp32 tensors"
                                                            : ", the rest of the step as in a bf16 run";
        if (!r.text.empty()) sp.basis += "; " + r.text + rest;
        if (!r.missing.empty()) b.warnings.push_back(r.missing);
        if (training_speed(s, b, sp) && pcie_assumed(s.gpu))
            b.warnings.push_back("no PCIe generation for " + s.gpu.name + " (gpu.pcie_gen): its host link is taken as PCIe Gen4 x" +
                                 std::to_string(s.gpu.pcie_lanes) + ", " + printf_string("%.1f", host_bytes_per_s(s.gpu) / 1e9) +
                                 " GB/s per direction, for the step's " + (sp.offload_s > 0 ? "offload traffic" : "collectives"));
    } else {
        inference_speed(s, b, sp);
    }
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
    nlohmann::json j = {{"mfu", s.mfu}, {"bound", s.bound}, {"basis", s.basis}, {"unit", s.unit}};
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
    put("optimizer_s", s.optimizer_s);
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
