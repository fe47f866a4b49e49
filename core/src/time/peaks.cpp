#include "time/peaks.hpp"

#include "common/format.hpp"

namespace vramcalc::detail {
namespace {

std::string tflops(double flops_per_s) { return printf_string("%.4g", flops_per_s / 1e12); }

}  // namespace

// PyTorch's defaults decide which units an fp32 step runs on (torch/backends/cuda/__init__.py and
// torch/backends/cudnn/__init__.py; the CUDA semantics note "TensorFloat-32 (TF32) on Ampere (and later)
// devices"): `torch.backends.cuda.matmul.allow_tf32` is False since PyTorch 1.12, so fp32 matmuls run on
// the FP32 units (CUDA cores); `torch.backends.cudnn.allow_tf32` is True, so fp32 convolutions run on TF32
// tensor cores where the GPU has them (Ampere and later; the catalog gives peak_tf32_tflops only there).
// HF Trainer's `tf32` argument defaults to None, which leaves PyTorch's defaults. fp16 runs at the fp16
// tensor-core rate, bf16 at bf16's; torchao's float8 recipes convert the linear layers (nn.Linear, not the
// output layer: torchtitan's float8 converter skips it) to fp8 matmuls, the attention core stays bf16.
// The attention core of an fp32 run through SDPA has no flash kernel (fp16/bf16 only) and runs PyTorch's
// memory-efficient kernel, whose fp32 GEMMs on compute capability 8.0 and later are CUTLASS's 3xTF32
// (aten/src/ATen/native/transformers/cuda/mem_eff_attention/gemm_kernel_utils.h, DefaultGemmType<ArchTag,
// float>: OpClassTensorOp with OpMultiplyAddFastF32, three TF32 MMAs per product): a third of the TF32 peak.
// Eager attention's fp32 bmm follows the matmul flag (FP32 units).
MatmulRates matmul_rates(const Scenario& s) {
    const GpuSpec& g = s.gpu;
    MatmulRates r;
    r.reference = g.peak_bf16_tflops * 1e12;
    const double fp32 = g.peak_fp32_tflops * 1e12, tf32 = g.peak_tf32_tflops * 1e12;
    const double fp16 = (g.peak_fp16_tflops > 0 ? g.peak_fp16_tflops : g.peak_bf16_tflops) * 1e12;
    r.matmul = r.linear = r.conv = r.attention = r.reference;
    const bool train = s.workload == Workload::train;
    if (train && s.precision == Precision::fp32) {
        if (fp32 > 0) {
            r.matmul = r.linear = r.attention = fp32;
            r.conv = tf32 > 0 ? tf32 : fp32;
            if (tf32 > 0 && g.vendor != "amd" && s.attention != Attention::eager) r.attention = tf32 / 3;
            r.text = "fp32 matmuls at " + tflops(fp32) + " dense FP32 TFLOPS (PyTorch: no TF32 for matmuls)";
            if (s.model.stack) r.text += ", convolutions at " + tflops(r.conv) + (tf32 > 0 ? " TF32 (cuDNN's default)" : " FP32 (no TF32)");
            else if (r.attention != fp32) r.text += ", the attention core at " + tflops(r.attention) + " (SDPA's memory-efficient kernel: 3xTF32)";
        } else if (r.reference > 0) {
            r.missing = "the catalog gives no FP32 peak for " + g.name + ": fp32 matmuls are priced at its bf16 peak, far too fast";
        }
    } else if (train && (s.precision == Precision::fp16 || s.precision == Precision::fp16_mixed) && fp16 != r.reference) {
        r.matmul = r.linear = r.conv = r.attention = fp16;
        r.text = "fp16 matmuls at " + tflops(fp16) + " dense FP16 TFLOPS";
    }
    if (train && s.float8 != Float8::none) {
        if (g.peak_fp8_tflops > 0) {
            r.linear = g.peak_fp8_tflops * 1e12;
            r.text += (r.text.empty() ? "" : "; ") + std::string("float8 linears at ") + tflops(r.linear) + " dense FP8 TFLOPS";
        } else if (r.reference > 0) {
            r.missing = "the catalog gives no FP8 peak for " + g.name + ": float8 linears are priced at its bf16 peak";
        }
    }
    return r;
}

bool pcie_assumed(const GpuSpec& g) { return g.pcie_gen <= 0; }

// The host link from the catalog (presets/gpus.json: pcie_gen, pcie_lanes; bandwidth per generation in
// pcie_gbps, vramcalc/gpu.hpp); a GPU that does not give it is assumed to sit on PCIe Gen4 x16.
double host_bytes_per_s(const GpuSpec& g) { return pcie_gbps(pcie_assumed(g) ? 4 : g.pcie_gen, g.pcie_lanes) * 1e9; }

// Collectives between the job's GPUs: over the GPU's own fabric where the catalog gives one (gpu_link_gbps:
// NVLink, AMD Infinity Fabric; per direction, half the datasheets' bidirectional figures), else over PCIe;
// across nodes (more than 8 GPUs) 400 Gb/s per GPU, the RDMA network of torchtitan's benchmarks
// (torchtitan docs/performance.md, Grand Teton hosts).
double link_bytes_per_s(const GpuSpec& g, std::int64_t gpus) {
    if (gpus > 8) return 50e9;
    if (g.gpu_link_gbps > 0) return g.gpu_link_gbps * 1e9;
    return host_bytes_per_s(g);
}

}  // namespace vramcalc::detail
