// A GPU as the estimator sees it: usable memory as the driver reports it, plus compute figures
// for display. Sources for each catalog entry are in presets/gpus.json.
#pragma once

#include <cstdint>
#include <string>

namespace vramcalc {

struct GpuSpec {
    std::string id;      // preset id ("h100-80gb"); "custom" for a user-defined GPU
    std::string name;    // display name
    std::string vendor;  // "nvidia" | "amd"
    std::string arch;    // "hopper", "ampere", ... (CUDA context size depends on it)
    // The capacity the estimator compares the bill against: the card's total as the driver reports it
    // (nvidia-smi memory.total), CUDA context included, since the bill's device line includes it too.
    std::int64_t memory_bytes = 0;
    // What memory_bytes was read from: "nvidia-smi" (NVML memory.total, MiB x 2^20), "rocm-smi" (VRAM Total
    // Memory, bytes; equal to HIP totalGlobalMem), or "datasheet" (the marketed capacity, read as GiB,
    // where no driver output could be found; the source says so).
    std::string memory_basis = "nvidia-smi";
    // The total as the CUDA allocator sees it: torch.cuda.get_device_properties().total_memory, the total of
    // torch.cuda.mem_get_info(). 0.35-0.86 GiB below nvidia-smi's figure in the published pairs (memory the
    // driver keeps for itself). 0 where no published torch output was found. vLLM sizes its budget from it
    // (gpu_memory_utilization x this total); everything else compares against memory_bytes.
    std::int64_t memory_torch_bytes = 0;
    bool bf16 = true;
    // Dense peaks from the vendor's datasheet (with-sparsity figures halved), TFLOPS; 0 = the card has no
    // such unit or no figure could be sourced (the catalog entry's source says which).
    double peak_fp32_tflops = 0;  // FP32 without tensor cores (CUDA cores; AMD CDNA: the FP32 matrix rate)
    double peak_tf32_tflops = 0;  // TF32 tensor cores (Ampere and later; AMD CDNA3's TF32 matrix rate)
    double peak_bf16_tflops = 0;  // dense, tensor cores (Volta/Turing: the fp16 figure)
    double peak_fp16_tflops = 0;  // dense, tensor cores, FP32 accumulate; 0 = as bf16
    double peak_fp8_tflops = 0;   // dense; 0 = no FP8 tensor cores, or no sourced figure
    double peak_fp4_tflops = 0;   // dense (NVFP4 / MXFP4); 0 = none, or no sourced figure
    double memory_bandwidth_gbps = 0;
    // Links (docs/methodology.md, "Time"): per-direction GPU-to-GPU bandwidth of the card's own fabric
    // (NVLink, AMD Infinity Fabric / xGMI) in GB/s, 0 = none (collectives go over PCIe); and the host link,
    // PCIe generation and lanes (0 = not given: Gen4 x16 is assumed and the bill warns where it is used).
    double gpu_link_gbps = 0;
    int pcie_gen = 0;
    int pcie_lanes = 16;
    // The streaming multiprocessors and the threads one SM keeps resident (NVIDIA: the architecture
    // whitepapers; the CUDA C++ Programming Guide's table of compute capabilities), 0 = not given. A kernel
    // that launches fewer threads than sm_count x max_threads_per_sm streams memory below the card's rate
    // (docs/methodology.md, "Time": PyTorch's per-channel batch-norm kernels).
    int sm_count = 0;
    int max_threads_per_sm = 0;
    // ECC on a GDDR card takes 1/16 of its memory for check bits ("inline" ECC: 6.25% on the GDDR5 K40, NVIDIA
    // Tesla V100 architecture whitepaper), so the driver reports 15/16 of the ECC-off total (L20, RTX A6000:
    // 49140 MiB off, 46068 MiB on). HBM keeps ECC beside the data and loses nothing (H100 NVL: 95830 MiB
    // either way); so, in the driver's figures, does the GDDR7 RTX PRO 6000 Blackwell.
    // Such cards are two catalog entries, one per state, each naming the other.
    bool ecc_reserves = false;  // this card's ECC reserves 1/16 of memory
    bool ecc_on = false;        // the ECC state memory_bytes was measured in (meaningful when ecc_reserves)
    std::string ecc_other_id;   // the entry for the same card in the other ECC state ("" = none)
    std::string source;
};

// A GDDR card's total with ECC on, from its total with ECC off: 15/16 of it, in whole MiB. Exact for the
// pairs in the catalog (L20, RTX A6000: 49140 MiB -> 46068 MiB); the catalog's figures themselves are read
// from driver output, this is the rule they follow (tests/unit-catalog.cpp checks each pair against it).
constexpr std::int64_t ecc_on_bytes(std::int64_t ecc_off_bytes) {
    constexpr std::int64_t mib = std::int64_t{1} << 20;
    return ecc_off_bytes / mib * 15 / 16 * mib;
}

// Per-direction bandwidth of a PCIe link, GB/s: 16 lanes at Gen3 8 GT/s (128b/130b) 15.75, Gen4 31.5, Gen5
// 63, Gen6 126 (PCI-SIG: each generation doubles the transfer rate); 0 for a generation outside 3-6.
constexpr double pcie_gbps(int gen, int lanes) {
    const double x16 = gen == 3 ? 15.75 : gen == 4 ? 31.5
                                      : gen == 5   ? 63.0
                                      : gen == 6   ? 126.0
                                                   : 0.0;
    return x16 * lanes / 16.0;
}

}  // namespace vramcalc
