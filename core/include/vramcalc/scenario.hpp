// Scenario: one question a user asks ("this model, this workload, these settings, on these GPUs").
// Field names and values follow shared/spec/scenario.md (the public JSON interface); the JSON
// mapping lives in scenario_json.cpp only. Defaults are what a user of `framework` gets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vramcalc/gpu.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

enum class Workload { train, infer };
enum class Framework { hf, torchtune, litgpt, deepspeed, megatron, vllm, llamacpp };
enum class Method { full, lora, qlora, freeze };
enum class Precision { fp32, fp16_mixed, bf16_mixed, fp16, bf16 };
enum class Optimizer { adamw, adamw_8bit, paged_adamw_8bit, adafactor, sgd, sgd_momentum, lion };
enum class Quantization { none, nf4, nf4_dq, int8 };
enum class Checkpointing { none, full, selective, offload };
enum class Attention { eager, sdpa, flash };
enum class Loss { standard, chunked, fused };
enum class Sharding { none, zero1, zero2, zero3, fsdp_full, fsdp_grad_op };
enum class Offload { none, optimizer, optimizer_params };
enum class KvDtype { automatic, fp16, bf16, fp8, q8_0, q4_0 };

struct LoraSetup {
    std::int64_t rank = 8;
    double alpha = 16;
    bool all_linear = false;                             // "targets": "all-linear"
    std::vector<std::string> targets = {"q_proj", "v_proj"};  // PEFT's default for Llama-style models
    double dropout = 0.05;
    bool train_embeddings = false;
};

// RLHF (`rlhf` object): the models besides the trained policy, and the rollout. See docs/methodology.md,
// section "RLHF", for the JSON and the defaults of each algorithm.
enum class RlhfAlgorithm { none, ppo, dpo, grpo };
enum class RolloutEngine { vllm, hf };

struct RlhfRole {
    bool present = false;
    bool same_model = true;            // the policy's model; otherwise `model`
    ModelSpec model;
    std::string model_ref;
    Method method = Method::full;      // trained roles (critic): full or lora
    Precision precision = Precision::bf16_mixed;
    Sharding sharding = Sharding::none;
    Offload offload = Offload::none;
};

struct RlhfSetup {
    RlhfAlgorithm algorithm = RlhfAlgorithm::none;
    RlhfRole critic;                   // ppo: trained value model
    RlhfRole reference;                // frozen; dpo without it = precomputed reference log-probs
    RlhfRole reward;                   // ppo: frozen reward model
    bool rollout = false;              // ppo/grpo generate on the training GPUs' job
    RolloutEngine rollout_engine = RolloutEngine::vllm;
    bool rollout_colocated = true;     // on the training GPUs (false: on GPUs of its own)
    double rollout_gpu_memory_utilization = 0.5;
    bool rollout_released = true;      // the engine frees its memory outside the rollout phase (sleep mode)
    std::int64_t rollout_tp = 1;
    std::int64_t rollout_batch = 0;    // prompts generated per GPU at once (0: micro_batch)
    std::int64_t prompt_len = 512;
    std::int64_t gen_len = 512;
    std::int64_t group_size = 1;       // grpo: completions per prompt (G)
};

struct Scenario {
    // The model, resolved (preset, inline config.json, or a parameter-count-only model).
    ModelSpec model;
    std::string model_ref;  // the preset id, or "inline" for an inline config

    Workload workload = Workload::train;
    Framework framework = Framework::hf;
    GpuSpec gpu;            // resolved preset or custom GPU
    std::int64_t num_gpus = 1;
    double target_utilization = 0.9;  // share of GPU memory the max-batch solver may use

    // Training
    Method method = Method::full;
    Precision precision = Precision::bf16_mixed;
    Optimizer optimizer = Optimizer::adamw;
    LoraSetup lora;
    Quantization quantization = Quantization::none;
    std::int64_t trainable_layers = 2;  // method "freeze": the last N layers are trained
    std::int64_t micro_batch = 1;
    std::int64_t seq_len = 2048;
    std::int64_t grad_accum = 1;
    // torchtune `optimizer_in_bwd`: the optimizer steps each parameter from a gradient hook as soon as
    // its gradient is ready, then frees it, so no full set of gradients ever exists (needs grad_accum 1).
    bool optimizer_in_backward = false;
    // torch.compile of the layers and the loss (torchtune `compile: True`): see activations.hpp.
    bool compile = false;
    // FSDP with gradient accumulation: the loop skips the gradient reduce-scatter on accumulating
    // micro-batches (FSDP no_sync(), Lightning Fabric's no_backward_sync), so every unit holding a trainable
    // parameter keeps its whole unsharded gradient between micro-batches. Default: on for litgpt (its
    // finetune loops wrap backward in fabric.no_backward_sync), off elsewhere (torchtune and DeepSpeed
    // reduce every micro-batch).
    bool fsdp_no_sync = false;
    Checkpointing checkpointing = Checkpointing::none;
    Attention attention = Attention::sdpa;
    Loss loss = Loss::standard;
    Sharding sharding = Sharding::none;
    Offload offload = Offload::none;
    std::int64_t tp = 1, pp = 1, cp = 1, ep = 1;
    bool sp = false;
    RlhfSetup rlhf;

    // Inference
    std::string weights = "bf16";  // fp32, bf16, fp16, fp8, int8, nf4, nf4-dq, gptq-int4, awq-int4, gptq-int8, gguf-*
    KvDtype kv_dtype = KvDtype::automatic;
    std::int64_t batch = 1;
    std::int64_t prompt_len = 1024;
    std::int64_t gen_len = 256;
    double gpu_memory_utilization = 0.9;
    std::int64_t group_size = 128;           // GPTQ/AWQ quantisation group (-1: one group per output channel)
    std::int64_t max_model_len = 0;          // vLLM --max-model-len / torchtune cache length; 0: engine default
    std::int64_t max_num_seqs = 256;         // vLLM scheduler limit on concurrent sequences
    std::int64_t max_num_batched_tokens = 8192;  // vLLM tokens per forward (the profiled activation peak)
    std::int64_t block_size = 16;            // vLLM KV-cache block (tokens)
    bool enforce_eager = false;              // vLLM: no CUDA graphs
    std::int64_t n_ctx = 4096;               // llama.cpp context (KV cells shared by all sequences)
    std::int64_t n_gpu_layers = -1;          // llama.cpp layers on the GPU; -1: all layers and the output
    std::int64_t n_ubatch = 512;             // llama.cpp physical batch (sizes the compute buffer)
};

// Names used in JSON, for enums (one table per enum in scenario_json.cpp).
const char* to_string(Workload v);
const char* to_string(Framework v);
const char* to_string(Method v);
const char* to_string(Precision v);
const char* to_string(Optimizer v);
const char* to_string(Quantization v);
const char* to_string(Checkpointing v);
const char* to_string(Attention v);
const char* to_string(Loss v);
const char* to_string(Sharding v);
const char* to_string(Offload v);
const char* to_string(KvDtype v);
const char* to_string(RlhfAlgorithm v);

}  // namespace vramcalc
