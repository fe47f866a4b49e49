// Scenario: one question a user asks ("this model, this workload, these settings, on these GPUs").
// Field names and values follow shared/spec/scenario.md (the public JSON interface); the JSON
// mapping lives in core/src/scenario/ only, its keys in scenario_keys.hpp.
//
// Defaults (box2d's b2DefaultWorldDef): default_scenario(framework, workload) owns every default, i.e.
// what a user of `framework` gets without setting a key; the JSON reader falls back to it for every
// absent key. The in-class initialisers below are default_scenario(hf, train) (a test checks it), so
// a value-initialised Scenario is the hf training default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vramcalc/gpu.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

enum class Workload { train,
                      infer };
enum class Framework { hf,
                       torchtune,
                       litgpt,
                       deepspeed,
                       megatron,
                       vllm,
                       llamacpp,
                       unsloth,
                       torchtitan };
enum class Method { full,
                    lora,
                    qlora,
                    freeze,
                    llama_adapter,
                    adapter_v2 };
enum class Precision { fp32,
                       fp16_mixed,
                       bf16_mixed,
                       fp16,
                       bf16 };
enum class Optimizer { adamw,
                       adamw_8bit,
                       paged_adamw_8bit,
                       adafactor,
                       sgd,
                       sgd_momentum,
                       lion };
enum class Quantization { none,
                          nf4,
                          nf4_dq,
                          int8,
                          gptq_int4,
                          awq_int4 };
// selective: Megatron's selective recomputation (the attention core is recomputed). selective_op: torchtitan's
// per-op selective checkpointing (the outputs of attention and of every other matmul are kept, the rest of the
// layer is recomputed).
enum class Checkpointing { none,
                           full,
                           selective,
                           offload,
                           selective_op };
// Whether backward runs every layer's forward again: full checkpointing, `offload`, which is full
// checkpointing with the kept layer inputs in host memory (torchtune's activation offloading, used with its
// activation checkpointing), and torchtitan's per-op checkpointing, which runs what it did not keep again.
inline bool recomputes_layers(Checkpointing c) {
    return c == Checkpointing::full || c == Checkpointing::offload || c == Checkpointing::selective_op;
}
enum class Attention { eager,
                       sdpa,
                       flash };
// torchao float8 training (torchao/float8, Float8LinearRecipeName): each nn.Linear casts its input and weight to
// float8 for the matmul with per-tensor (tensorwise) or per-row (rowwise) scales; rowwise_with_gw_hp keeps the
// weight gradient's matmul in high precision; mxfp8 is torchao's MX recipe (torchao/prototype/mx_formats: one
// e8m0 scale per 32 elements, Blackwell's block-scaled matmuls).
enum class Float8 { none,
                    tensorwise,
                    rowwise,
                    rowwise_with_gw_hp,
                    mxfp8 };
// fused: Liger-Kernel's fused linear cross-entropy. cce: Apple's Cut Cross-Entropy (the `cut_cross_entropy`
// package Unsloth calls): the loss is computed from the hidden states and the output weight block by block,
// and no logits tensor exists. liger_ce: Liger-Kernel's cross-entropy on the full logits, which writes the
// gradient into them in place.
enum class Loss { standard,
                  chunked,
                  fused,
                  cce,
                  liger_ce,
                  chunked_nll };
enum class Sharding { none,
                      zero1,
                      zero2,
                      zero3,
                      fsdp_full,
                      fsdp_grad_op };
enum class Offload { none,
                     optimizer,
                     optimizer_params };
enum class KvDtype { automatic,
                     fp16,
                     bf16,
                     fp8,
                     q8_0,
                     q4_0 };

struct LoraSetup {
    std::int64_t rank = 8;
    double alpha = 8;
    bool all_linear = false;  // "targets": "all-linear"
    // Module names ("q_proj"); empty (and all_linear false) = the model's default targets, PEFT's
    // per-model-type mapping (q_proj/v_proj for Llama-style models), resolved by the estimator.
    std::vector<std::string> targets;
    double dropout = 0.0;
    bool train_embeddings = false;
    // DoRA (PEFT's LoraConfig use_dora): a trainable magnitude per output feature of each adapted linear,
    // which rescales the base and adapter outputs (peft/tuners/lora/dora.py, DoraLinearLayer).
    bool use_dora = false;

    bool default_targets() const { return !all_linear && targets.empty(); }
    bool operator==(const LoraSetup&) const = default;
};

// RLHF (`rlhf` object): the models besides the trained policy, and the rollout. See docs/methodology.md,
// section "RLHF", for the JSON and the defaults of each algorithm.
enum class RlhfAlgorithm { none,
                           ppo,
                           dpo,
                           grpo };
enum class RolloutEngine { vllm,
                           hf };
// vLLM's top-k / top-p sampler in its profile run: `triton` (v0.17 and later, PR #33538: masks the logits in
// place) or `sort` (v0.16 and earlier: a full sort of the vocabulary).
enum class VllmSampler { triton,
                         sort };
// What vLLM's "Model loading took X GiB" measures on ROCm (vllm/platforms/rocm.py get_current_memory_usage):
// `total_free`, the device's total - free memory (PR #12624, 2025-02, until PR #39801, 2026-04-27), which
// also counts blocks the caching allocator keeps; `allocated`, torch's allocated bytes after empty_cache(),
// as on CUDA (PR #39801 on).
enum class RocmLoadMeasure { allocated,
                             total_free };
// The KV-cache object of transformers' generate: `dynamic` (DynamicCache, transformers 4.36 and later: each layer's
// concatenated tensor replaces the old one in place) or `tuple` (the legacy tuple of (key, value) per layer that
// models returned before 4.36, and remote code such as Qwen-1 still does: the previous step's tuple stays
// referenced by generate's model_kwargs until the forward returns).
enum class HfCache { dynamic,
                     tuple };
// The dtype from_pretrained loads an hf model in (its `dtype` / `torch_dtype` argument): `automatic` ("auto",
// the checkpoint's own, config.json's torch_dtype: transformers 5's default), or one named dtype (float32 was
// transformers 4's default, and is TRL's ModelConfig default from TRL 0.27, PR #4778).
enum class LoadDtype { automatic,
                       float32,
                       bfloat16,
                       float16 };
// How AdamW runs its step, which decides its transient: `foreach` (torch.optim.AdamW's default from PyTorch 2.0,
// the HF Trainer's `adamw_torch`: sqrt(exp_avg_sq) for the whole parameter group), `for_loop` (one parameter at a
// time: transformers' own AdamW, the Trainer's default `adamw_hf` until transformers PR #25109: the largest
// parameter's sqrt(exp_avg_sq)) or `fused` (torch's fused kernel, `adamw_torch_fused`: no transient).
enum class AdamwImpl { foreach,
                       for_loop,
                       fused };

struct RlhfRole {
    bool present = false;
    bool same_model = true;  // the policy's model; otherwise `model`
    ModelSpec model;
    std::string model_ref;         // preset id, or "inline"
    std::string model_config;      // "inline": the config.json object as compact JSON text
    Method method = Method::full;  // trained roles (critic): full or lora
    Precision precision = Precision::bf16_mixed;
    Sharding sharding = Sharding::none;
    Offload offload = Offload::none;
};

struct RlhfSetup {
    RlhfAlgorithm algorithm = RlhfAlgorithm::none;
    RlhfRole critic;       // ppo: trained value model
    RlhfRole reference;    // frozen; dpo without it = precomputed reference log-probs
    RlhfRole reward;       // ppo: frozen reward model
    bool rollout = false;  // ppo/grpo generate on the training GPUs' job
    RolloutEngine rollout_engine = RolloutEngine::vllm;
    bool rollout_colocated = true;  // on the training GPUs (false: on GPUs of its own)
    double rollout_gpu_memory_utilization = 0.5;
    bool rollout_released = true;  // the engine frees its memory outside the rollout phase (sleep mode)
    std::int64_t rollout_tp = 1;
    std::int64_t rollout_batch = 0;  // prompts generated per GPU at once (0: micro_batch)
    std::int64_t prompt_len = 512;
    std::int64_t gen_len = 512;
    std::int64_t group_size = 1;  // grpo: completions per prompt (G)
};

struct Scenario {
    // The model, resolved (preset, inline config.json, or a parameter-count-only model).
    ModelSpec model;
    // How the model was given: a preset id, "inline" (a config.json object, kept in model_config as
    // compact JSON text so that it writes back as the object) or "parameters" (model.name and
    // model.declared_parameters only).
    std::string model_ref;
    std::string model_config;

    Workload workload = Workload::train;
    Framework framework = Framework::hf;
    // The resolved preset or a custom GPU (id "custom"). The default names the H100 80GB preset by id only;
    // the reader (or default_scenario's catalog overload in scenario_json.hpp) resolves it.
    GpuSpec gpu = [] {
        GpuSpec g;
        g.id = "h100-80gb";
        return g;
    }();
    std::int64_t num_gpus = 1;
    double target_utilization = 0.9;  // share of GPU memory the max-batch solver may use
    double mfu = 0;                   // model-FLOPs utilisation for the time estimate; 0: the published default
    double dataset_tokens = 0;        // tokens to train on (per epoch) or to generate; 0: no time-to-dataset figure
    double epochs = 1;                // training: passes over dataset_tokens

    // Training
    // The transformers release the run's defaults follow (framework hf): 5, today's, or 4 for the runs
    // published before it. Its defaults are default_scenario's (defaults.cpp), and 5 loads a checkpoint
    // in its own dtype (as_loaded, assembly/peak.cpp).
    std::int64_t transformers = 5;
    // The dtype the model loads in (hf): 5's "auto", 4's float32. A LoRA's frozen base keeps it under *-mixed
    // precision (as_loaded, assembly/peak.cpp); without `precision`, a 16-bit load trains in 16 bits.
    LoadDtype load_dtype = LoadDtype::automatic;
    Method method = Method::full;
    Precision precision = Precision::bf16;  // hf 5: the checkpoint's dtype (bf16) under the Trainer's autocast
    Optimizer optimizer = Optimizer::adamw;
    AdamwImpl adamw_impl = AdamwImpl::fused;  // how AdamW steps (its transient); hf 5: adamw_torch_fused
    LoraSetup lora;
    Quantization quantization = Quantization::none;
    std::int64_t trainable_layers = 2;  // method "freeze": the last N layers are trained
    // LLaMA-Adapter / Adapter-v2 (LitGPT litgpt/adapter.py Config): learned prompt tokens per adapted layer
    // and the first layer that has them.
    std::int64_t adapter_prompt_length = 10;
    std::int64_t adapter_start_layer = 2;
    std::int64_t micro_batch = 1;
    std::int64_t seq_len = 2048;
    std::int64_t grad_accum = 1;
    // torchtune `optimizer_in_bwd`: the optimizer steps each parameter from a gradient hook as soon as
    // its gradient is ready, then frees it, so no full set of gradients ever exists (needs grad_accum 1).
    bool optimizer_in_backward = false;
    // zero_grad(set_to_none): true frees the gradients after each step (PyTorch 2.0 default, pytorch PR #92731;
    // the HF Trainer passes it on any release since transformers PR #22136); false keeps them allocated, zeroed,
    // through the next forward (PyTorch 1.x default).
    bool zero_grad_set_to_none = true;
    // A hand-written loop (`out = model(**batch); out.loss.backward(); optimizer.step()`) keeps the model's
    // outputs, the logits among them, until `out` goes out of scope after the optimizer step; the HF Trainer's
    // training_step keeps only the loss (compute_loss returns it and drops the outputs before backward).
    bool keep_outputs = false;
    // torch.compile of the layers and the loss (torchtune `compile: True`): see activations.hpp.
    bool compile = false;
    bool compile_loss = true;  // with compile: the loss is compiled too (torchtune compile_loss); torchtitan 2024 left it eager
    // FSDP with gradient accumulation: the loop skips the gradient reduce-scatter on accumulating
    // micro-batches (FSDP no_sync(), Lightning Fabric's no_backward_sync), so every unit holding a trainable
    // parameter keeps its whole unsharded gradient between micro-batches. Default: on for litgpt (its
    // finetune loops wrap backward in fabric.no_backward_sync), off elsewhere (torchtune and DeepSpeed
    // reduce every micro-batch).
    bool fsdp_no_sync = false;
    Checkpointing checkpointing = Checkpointing::none;
    Attention attention = Attention::sdpa;
    Loss loss = Loss::standard;
    Float8 float8 = Float8::none;    // torchao float8 training of the linears
    bool float8_all_gather = false;  // FSDP all-gathers the float8 weights (tensorwise only)
    Sharding sharding = Sharding::none;
    Offload offload = Offload::none;
    std::int64_t tp = 1, pp = 1, cp = 1, ep = 1;
    bool sp = false;
    RlhfSetup rlhf;

    // Inference
    std::string weights = "bf16";       // fp32, bf16, fp16, fp8, int8, nf4, nf4-dq, gptq-int4, awq-int4, gptq-int8, gguf-*
    std::int64_t checkpoint_bytes = 0;  // stored bytes of the weight tensors read from the checkpoint's headers (0: count from the config)
    KvDtype kv_dtype = KvDtype::automatic;
    std::int64_t batch = 1;
    std::int64_t prompt_len = 1024;
    std::int64_t gen_len = 256;
    double gpu_memory_utilization = 0.9;
    std::int64_t group_size = 128;                                        // GPTQ/AWQ quantisation group (-1: one group per output channel)
    std::int64_t max_model_len = 0;                                       // vLLM --max-model-len / torchtune cache length; 0: engine default
    std::int64_t max_num_seqs = 256;                                      // vLLM scheduler limit on concurrent sequences
    std::int64_t max_num_batched_tokens = 8192;                           // vLLM tokens per forward (the profiled activation peak)
    std::int64_t block_size = 16;                                         // vLLM KV-cache block (tokens)
    bool enforce_eager = false;                                           // vLLM: no CUDA graphs
    VllmSampler vllm_sampler = VllmSampler::triton;                       // vLLM's sampler in the profile run (its release)
    bool vllm_mm_encoder_dp = false;                                      // vLLM --mm-encoder-tp-mode data: the vision tower whole on every TP rank
    bool vllm_language_model_only = false;                                // vLLM --language-model-only: no vision tower is built or loaded
    bool vllm_rocm_aiter = false;                                         // vLLM on ROCm: VLLM_ROCM_USE_AITER=1 (AITER MoE reshuffles bf16 experts)
    RocmLoadMeasure vllm_rocm_load_measure = RocmLoadMeasure::allocated;  // vLLM on ROCm: its release's loading figure
    HfCache hf_cache = HfCache::dynamic;                                  // transformers: DynamicCache, or the legacy per-layer tuples
    std::int64_t n_ctx = 4096;                                            // llama.cpp context (KV cells shared by all sequences)
    std::int64_t n_gpu_layers = -1;                                       // llama.cpp layers on the GPU; -1: all layers and the output
    std::int64_t n_ubatch = 512;                                          // llama.cpp physical batch (sizes the compute buffer)
};

// Every default: what a user of `f` gets for workload `w` without setting a key (sources in the
// definition, core/src/scenario/defaults.cpp). No model; `gpu` carries only the default preset's id
// (the overload in scenario_json.hpp resolves it through a catalog).
Scenario default_scenario(Framework f, Workload w);
// The same for a transformers release (Scenario::transformers): 4 gives the Trainer's defaults before
// transformers 5 (an fp32 model under AMP, foreach AdamW).
Scenario default_scenario(Framework f, Workload w, std::int64_t transformers);

// Defaults that follow other settings, as the reader applies them:
// the base format of `method` (nf4 for qlora, nf4-dq under unsloth, none otherwise) ...
Quantization default_quantization(Method m, Framework f = Framework::hf);
// ... the precision of framework `f` for `model`: under transformers 5 the hf default is the checkpoint's
// dtype (bf16 where config.json names a 16-bit one); a float32 checkpoint, one whose config names no dtype
// (older checkpoints are fp32, torch's default) and a layer stack (torchvision's weights are fp32) train as
// an fp32 model under the Trainer's autocast (bf16-mixed).
Precision default_precision(Framework f, std::int64_t transformers, LoadDtype load, const ModelSpec& model);
// Bytes per weight of a model loaded in `load`: "auto" is the checkpoint's dtype (0 when its config names none).
double loaded_weight_bytes(LoadDtype load, const ModelSpec& model);
// ... and the RLHF setup of `a` for a policy trained as `policy` (which roles exist, the rollout,
// and each role's precision, sharding and offload).
RlhfSetup default_rlhf(RlhfAlgorithm a, const Scenario& policy);

// Names used in JSON, for enums (one table per enum in core/src/scenario/enums.cpp).
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
const char* to_string(RolloutEngine v);
const char* to_string(VllmSampler v);
const char* to_string(RocmLoadMeasure v);
const char* to_string(HfCache v);
const char* to_string(AdamwImpl v);
const char* to_string(LoadDtype v);
const char* to_string(Float8 v);

}  // namespace vramcalc
