#include "formats/recipes.hpp"

#include <cmath>

#include "formats/weight_formats.hpp"

namespace vramcalc::detail {

Recipe training_recipe(Precision p, Framework f) {
    switch (p) {
        case Precision::fp32:
            return {4, 0, 4, 4, "fp32 weights, gradients and optimizer states"};
        case Precision::fp16:
        case Precision::bf16:
            // "True" half precision (torchtune, LitGPT bf16-true): torch.optim.AdamW keeps its states
            // in the parameter dtype, so 2 + 2 + 2x2 = 8 B/param (shared/reference/README.md).
            return {2, 0, 2, 2, "16-bit weights, gradients and optimizer states (no fp32 master)"};
        case Precision::fp16_mixed:
        case Precision::bf16_mixed:
            if (f == Framework::deepspeed)
                // ZeRO paper (Rajbhandari et al. 2020, Sec. 3.1): 2 (fp16 weights) + 2 (fp16 grads) + 12 (fp32
                // master, momentum, variance) = 16 B/param.
                return {2, 4, 2, 4, "16-bit weights and gradients + fp32 master weights and states (ZeRO: 16 B/param)"};
            if (f == Framework::megatron)
                // Megatron-LM keeps fp32 "main_grad" buffers: 2 + 4 + 4 + 8 = 18 B/param.
                return {2, 4, 4, 4, "16-bit weights, fp32 main grads, fp32 master weights and states (18 B/param)"};
            // HF Trainer / Lightning AMP: the model stays in fp32 and autocast computes in 16 bit
            // (shared notes/memory-model.md, section 1): 4 + 4 + 8 = 16 B/param.
            return {4, 0, 4, 4, "fp32 model with autocast (AMP): fp32 weights, gradients and states"};
    }
    return {};
}

double optimizer_bytes_per_param(Optimizer o, double state_bytes) {
    switch (o) {
        case Optimizer::adamw:
            return 2 * state_bytes;  // exp_avg, exp_avg_sq
        case Optimizer::adamw_8bit:
        case Optimizer::paged_adamw_8bit:
            // bitsandbytes 8-bit blockwise Adam: two uint8 states plus one fp32 absmax per 256-element
            // block per state (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
            return 2 * (1.0 + 4.0 / 256.0);
        case Optimizer::adafactor:
            return 0;  // factored: computed per tensor by the caller
        case Optimizer::sgd:
            return 0;
        case Optimizer::sgd_momentum:
            return state_bytes;  // momentum_buffer
        case Optimizer::lion:
            return state_bytes;  // exp_avg (Chen et al. 2023)
    }
    return 0;
}

const char* qlora_format(Quantization q) {
    switch (q) {
        case Quantization::nf4:
            return "nf4";
        case Quantization::nf4_dq:
            return "nf4-dq";
        case Quantization::gptq_int4:
            return "gptq-int4";
        case Quantization::awq_int4:
            return "awq-int4";
        default:
            return "int8";
    }
}

double qlora_linear_bytes(Quantization q, i64 group_size, i64 rows, i64 cols) {
    if (packed_checkpoint(q)) return packed_linear_bytes(q == Quantization::gptq_int4, 4, group_size, rows, cols);
    return quantized_linear_bytes(qlora_format(q), rows, cols);
}

double plain_dtype_bytes(const std::string& f) {
    const WeightFormat* w = find_weight_format(f);
    return w ? w->dense_bytes : 0.0;
}

double quantized_linear_bytes(const std::string& f, i64 rows, i64 cols) {
    const double n = static_cast<double>(rows) * static_cast<double>(cols);
    if (n <= 0) return 0;
    const WeightFormat* w = find_weight_format(f);
    switch (w ? w->layout : WeightLayout::dense) {
        case WeightLayout::tensor_scale:
            return n * 1.0 + 4.0;  // e4m3 weights + one fp32 per-tensor scale
        // fp8 checkpoints (vLLM Fp8LinearMethod / compressed-tensors) with an fp32 weight_scale per output channel.
        case WeightLayout::channel_scale:
            return n + 4.0 * static_cast<double>(rows);
        // Block-quantised fp8 (DeepSeek-V3/R1 quantization_config weight_block_size [128, 128]; vLLM
        // Fp8LinearMethod with block quant): e4m3 weight + one fp32 weight_scale_inv per 128 x 128 block.
        case WeightLayout::block_128:
            return n + 4.0 * std::ceil(static_cast<double>(rows) / 128.0) * std::ceil(static_cast<double>(cols) / 128.0);
        // LLM.int8 (bitsandbytes Int8Params): int8 weights + one fp32 scale per output row (SCB).
        case WeightLayout::row_scale:
            return n + 4.0 * static_cast<double>(rows);
        // bitsandbytes 4-bit, block size 64 with an fp32 absmax per block: 4 + 32/64 = 4.5 bits.
        case WeightLayout::block_64:
            return n * (0.5 + 4.0 / 64.0);
        // Double quantisation (QLoRA paper, Dettmers et al. 2023, Sec. 3): 8-bit absmax per 64 weights and an
        // fp32 constant per 256 blocks: 8/64 + 32/(64*256) = 0.127 bits per parameter.
        case WeightLayout::block_64_dq:
            return n * (0.5 + (8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0);
        // MXFP4 (OCP MX spec; gpt-oss's `*_blocks` uint8 [.., cols/32, 16] and `*_scales` uint8 [.., cols/32],
        // transformers integrations/mxfp4.py): two e2m1 weights per byte, one e8m0 scale per 32 inputs.
        case WeightLayout::mx_block_32:
            return n * 0.5 + static_cast<double>(rows) * std::ceil(static_cast<double>(cols) / 32.0);
        // NVFP4 (vLLM compressed_tensors/schemes/compressed_tensors_w4a4_nvfp4.py @0094cb9b create_weights:
        // weight_packed uint8 [rows, cols / 2], weight_scale e4m3 [rows, cols / 16], fp32 weight_global_scale and
        // input_global_scale; ModelOpt's NVFP4 checkpoints store the same as weight, weight_scale, weight_scale_2,
        // input_scale). The kernels' swizzled copy of the scales at load time is not counted.
        case WeightLayout::nv_block_16:
            return n * 0.5 + static_cast<double>(rows) * std::ceil(static_cast<double>(cols) / 16.0) + 8.0;
        default:
            return -1;  // unquantised, GPTQ/AWQ/W4A16 (group_size), GGUF (weight_formats.cpp) or not a format
    }
}

}  // namespace vramcalc::detail
