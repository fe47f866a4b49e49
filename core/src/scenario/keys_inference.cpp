// The key table's inference rows (workload "infer"): weights and KV cache, batch and lengths, and each
// engine's own settings. The rest of the table is keys.cpp.
#include "key_binding.hpp"

namespace vramcalc::detail {

// Inference keys (workload "infer"), engine keys last.
std::vector<KeyRow> inference_rows() {
    return {
        {{.name = "weights", .type = T::enumeration, .workload = W::infer, .default_note = "the config.json's quantization_config format, else bf16", .help = "Stored weight format: bytes per weight including scales/zeros of quantised formats. \"checkpoint\": the format "
                                                                                                                                                              "of the model's own quantization_config (fp8, fp8-block, mxfp4, nvfp4, w4a16, ...), its exclusion list kept 16-bit."},
         {&read_weights, &write_member<&Scenario::weights>, &same_weights, &weights_values}},
        {{.name = "checkpoint_bytes", .type = T::integer, .workload = W::infer, .min = 0, .max = static_cast<double>(std::int64_t{1} << 50), .default_note = "counted from the config and weights", .help = "The checkpoint's weight bytes as its safetensors or GGUF headers state them (vramcalc weights FILE, or the page's "
                                                                                                                                                                                                            "checkpoint reader): replaces the count from config.json x format, exact for pre-quantised checkpoints."},
         member<&Scenario::checkpoint_bytes>()},
        {{.name = "kv_dtype", .type = T::enumeration, .workload = W::infer, .help = "KV-cache element type: auto = the compute dtype; fp8 halves the cache; q8_0/q4_0 are llama.cpp's block formats."},
         member<&Scenario::kv_dtype>()},
        {{.name = "batch", .type = T::integer, .workload = W::infer, .min = 1, .max = kCount, .help = "Concurrent sequences; the KV cache grows linearly with it."},
         member<&Scenario::batch>()},
        {{.name = "prompt_len", .type = T::integer, .workload = W::infer, .min = 0, .max = kTokens, .help = "Prompt tokens per sequence (prefill); sets the KV cache and the prefill activations."},
         member<&Scenario::prompt_len>()},
        {{.name = "gen_len", .type = T::integer, .workload = W::infer, .min = 0, .max = kTokens, .help = "Generated tokens per sequence; the KV cache covers prompt + generated tokens."},
         member<&Scenario::gen_len>()},
        {{.name = "gpu_memory_utilization", .type = T::number, .workload = W::infer, .min = 0.01, .max = 1.0, .help = "vLLM reserves this share of the GPU and fills what the weights and activations leave with KV-cache blocks."},
         member<&Scenario::gpu_memory_utilization>()},
        {{.name = "group_size", .type = T::integer, .workload = W::infer, .weights = "gptq- awq- w4a16", .min = -1, .max = 1 << 20, .help = "GPTQ/AWQ: one scale (and zero) per group of input channels; -1 = one group per output channel."},
         special<&Scenario::group_size>(&read_group_size)},
        {{.name = "max_model_len", .type = T::integer, .workload = W::infer, .frameworks = "vllm torchtune", .min = 0, .max = kTokens, .default_note = "vLLM: prompt_len + gen_len; torchtune: the model's maximum", .help = "vLLM: the longest sequence it accepts; torchtune: the KV-cache length (0 = the model's maximum)."},
         member<&Scenario::max_model_len>()},
        {{.name = "max_num_seqs", .type = T::integer, .workload = W::infer, .frameworks = "vllm", .min = 1, .max = kCount, .help = "vLLM: the most sequences scheduled at once; sizes the sampler's profiled peak."},
         member<&Scenario::max_num_seqs>()},
        {{.name = "max_num_batched_tokens", .type = T::integer, .workload = W::infer, .frameworks = "vllm", .min = 1, .max = kTokens, .help = "vLLM: tokens in its profiled forward batch (the activation peak)."},
         member<&Scenario::max_num_batched_tokens>()},
        {{.name = "block_size", .type = T::integer, .workload = W::infer, .frameworks = "vllm", .min = 1, .max = 1 << 16, .help = "vLLM: tokens per KV-cache block."},
         member<&Scenario::block_size>()},
        {{.name = "enforce_eager", .type = T::boolean, .workload = W::infer, .frameworks = "vllm", .help = "vLLM: no CUDA graphs (saves their memory, costs decode speed)."},
         member<&Scenario::enforce_eager>()},
        {{.name = "vllm_sampler", .type = T::enumeration, .workload = W::infer, .frameworks = "vllm", .help = "vLLM's top-k/top-p sampler in its startup profile: triton (v0.17 and later) or sort (v0.16 and earlier, "
                                                                                                              "a full sort of the vocabulary: about 2.4x the sampler's memory)."},
         member<&Scenario::vllm_sampler>()},
        {{.name = "vllm_mm_encoder_dp", .type = T::boolean, .workload = W::infer, .frameworks = "vllm", .help = "vLLM --mm-encoder-tp-mode data: every tensor-parallel rank holds the whole vision tower and encodes its own "
                                                                                                                "images (the default, weights, shards the tower like the language model)."},
         member<&Scenario::vllm_mm_encoder_dp>()},
        {{.name = "vllm_language_model_only", .type = T::boolean, .workload = W::infer, .frameworks = "vllm", .help = "vLLM --language-model-only: a multimodal checkpoint served as text only; its vision tower is neither built nor "
                                                                                                                      "loaded.",
          .shown_at_default = false},
         member<&Scenario::vllm_language_model_only>()},
        {{.name = "vllm_rocm_aiter", .type = T::boolean, .workload = W::infer, .frameworks = "vllm", .help = "vLLM on an AMD GPU: VLLM_ROCM_USE_AITER=1. AITER's fused MoE reshuffles bf16 experts into unpadded copies."},
         member<&Scenario::vllm_rocm_aiter>()},
        {{.name = "vllm_rocm_load_measure", .type = T::enumeration, .workload = W::infer, .frameworks = "vllm", .help = "vLLM on an AMD GPU: what its weights figure (and so its KV budget) counts: allocated (PR #39801, 2026-04, on) "
                                                                                                                        "or total-free (v0.7.3 to the releases before it: the allocator's cached blocks count as weights)."},
         member<&Scenario::vllm_rocm_load_measure>()},
        {{.name = "hf_cache", .type = T::enumeration, .workload = W::infer, .frameworks = "hf", .help = "transformers' KV-cache object: dynamic (DynamicCache, transformers 4.36 and later) or tuple (the per-layer "
                                                                                                        "tuples of earlier releases and of remote code such as Qwen-1: the previous step's cache lives until the "
                                                                                                        "forward returns, so a decode step holds the cache twice).",
          .shown_at_default = false},
         member<&Scenario::hf_cache>()},
        {{.name = "n_ctx", .type = T::integer, .workload = W::infer, .frameworks = "llama.cpp", .min = 1, .max = kTokens, .help = "llama.cpp: the KV cache is allocated for this many tokens up front."},
         member<&Scenario::n_ctx>()},
        {{.name = "n_gpu_layers", .type = T::integer, .workload = W::infer, .frameworks = "llama.cpp", .min = -1, .max = 100000, .default_note = "all", .help = "llama.cpp: layers placed on the GPU (-1 = all); the rest run from host memory."},
         member<&Scenario::n_gpu_layers>()},
        {{.name = "n_ubatch", .type = T::integer, .workload = W::infer, .frameworks = "llama.cpp", .min = 1, .max = kTokens, .help = "llama.cpp: the physical batch, which sizes its compute buffer."},
         member<&Scenario::n_ubatch>()},
    };
}

}  // namespace vramcalc::detail
