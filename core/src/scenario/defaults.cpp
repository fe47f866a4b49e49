// Every default of a scenario, in one place (box2d's b2DefaultWorldDef). Sources: docs/methodology.md.
#include "vramcalc/scenario.hpp"

namespace vramcalc {

// What a user of each framework gets without setting a key:
//  hf (transformers 5, the in-class initialisers of Scenario and LoraSetup; GPU: the H100 80GB preset):
//      the model in its checkpoint's dtype (from_pretrained's dtype="auto" default, transformers PR #34919,
//      in v5.0.0: bf16 for today's checkpoints) under the Trainer's bf16 autocast; the Trainer's
//      optim="adamw_torch_fused" (the default from transformers PR #37358 on torch >= 2.8, training_args.py);
//      full logits + fp32 loss, no checkpointing; PEFT LoraConfig r=8, lora_alpha=8, lora_dropout=0.0,
//      the model type's default targets (q_proj/v_proj for Llama), adapters in fp32 (autocast_adapter_dtype).
//      Gradient checkpointing is non-reentrant from transformers PR #43203 (2026-01); its memory is
//      modelled the same either way.
//  hf, transformers 4 (the published runs; releases before 4.54 / torch 2.8): from_pretrained loaded an
//      fp32 model (torch's default dtype) that the Trainer ran under AMP, optim="adamw_torch" (foreach;
//      transformers PR #25109, adamw_hf before it) and reentrant checkpointing (PR #28538).
//  torchtune: bf16 recipes (no fp32 master), activation checkpointing on in the shipped single-device
//      configs, chunked cross-entropy (CEWithChunkedOutputLoss, 8 chunks); LoRA rank 8, alpha 16, dropout 0.
//  litgpt: bf16-mixed where supported (litgpt/utils.py get_default_supported_precision), chunked
//      cross-entropy (128 positions), no checkpointing on one device; LoRA r=8, alpha=16, dropout 0.05;
//      FSDP skips the gradient reduce-scatter while accumulating (its finetune loops wrap backward in
//      fabric.no_backward_sync), so fsdp_no_sync is on.
//  deepspeed / megatron: 16-bit model with fp32 master weights, full logits, no recomputation.
//  deepspeed, megatron, vllm, llama.cpp: LoRA alpha 16, dropout 0.05 (the values vramcalc has always used
//      for frameworks without a LoRA recipe of their own).
//  Inference (every framework): bf16 weights, batch 1, 1024 prompt + 256 generated tokens; vLLM's
//      engine defaults (gpu_memory_utilization 0.9, max_num_seqs 256, max_num_batched_tokens 8192,
//      block_size 16, CUDA graphs), llama.cpp's (n_ctx 4096, all layers on the GPU, n_ubatch 512).
Scenario default_scenario(Framework f, Workload w) { return default_scenario(f, w, Scenario{}.transformers); }

Scenario default_scenario(Framework f, Workload w, std::int64_t transformers) {
    Scenario s;  // the in-class initialisers: hf under today's transformers
    s.framework = f;
    s.workload = w;
    s.transformers = transformers;
    if (f != Framework::hf) {  // the other frameworks' own recipes (an fp32 master under AMP, torch's foreach AdamW)
        s.precision = Precision::bf16_mixed;
        s.adamw_impl = AdamwImpl::foreach;
    }
    switch (f) {
        case Framework::hf:
            if (transformers < 5) {
                s.precision = Precision::bf16_mixed;
                s.adamw_impl = AdamwImpl::foreach;
                s.load_dtype = LoadDtype::float32;
            }
            break;
        case Framework::torchtune:
            s.precision = Precision::bf16;
            s.checkpointing = Checkpointing::full;
            s.loss = Loss::chunked;
            s.lora.alpha = 16;
            s.lora.dropout = 0.0;
            break;
        case Framework::litgpt:
            s.loss = Loss::chunked;
            s.fsdp_no_sync = true;
            s.lora.alpha = 16;
            s.lora.dropout = 0.05;
            break;
        case Framework::unsloth:
            // Unsloth's notebooks and FastLanguageModel defaults (unsloth @e3162dc5): load_in_4bit QLoRA,
            // get_peft_model(r=16, lora_alpha=16, lora_dropout=0, the 7 projections,
            // use_gradient_checkpointing="unsloth": every layer input offloaded to host memory), adamw_8bit,
            // flash-attn when installed (llama.py L405-449), and Cut Cross-Entropy for the loss (llama.py
            // L1000-1040). docs/methodology.md, "Unsloth".
            if (w == Workload::train) s.method = Method::qlora;
            s.quantization = default_quantization(s.method, f);
            s.optimizer = Optimizer::adamw_8bit;
            s.checkpointing = Checkpointing::offload;
            s.attention = Attention::flash;
            s.loss = Loss::cce;
            s.lora.rank = 16;
            s.lora.alpha = 16;
            s.lora.dropout = 0.0;
            s.lora.all_linear = true;
            break;
        case Framework::torchtitan:
            // torchtitan's Llama tomls (train_configs/llama3_8b.toml): FSDP2 over every rank with bf16 parameters
            // and fp32 reduction (MixedPrecisionPolicy), per-op selective activation checkpointing
            // (selective_ac_option = 'op'), full cross-entropy on the model's bf16 output, cast to fp32 inside
            // its loss function.
            s.sharding = Sharding::fsdp_full;
            s.checkpointing = Checkpointing::selective_op;
            break;
        case Framework::deepspeed:
        case Framework::megatron:
        case Framework::vllm:
        case Framework::llamacpp:
            s.lora.alpha = 16;
            s.lora.dropout = 0.05;
            break;
    }
    return s;
}

// from_pretrained(dtype="auto") keeps the checkpoint's dtype (transformers PR #34919): bf16 stays bf16, an
// fp32 checkpoint stays fp32 and the Trainer's bf16 autocasts it.
Precision default_precision(Framework f, std::int64_t transformers, LoadDtype load, const ModelSpec& model) {
    const Precision p = default_scenario(f, Workload::train, transformers).precision;
    if (f != Framework::hf) return p;
    if (model.stack) return Precision::bf16_mixed;  // torchvision's weights are fp32
    if (load == LoadDtype::automatic && p != Precision::bf16) return p;
    if (loaded_weight_bytes(load, model) != 2) return Precision::bf16_mixed;
    return load == LoadDtype::float16 ? Precision::fp16 : Precision::bf16;
}

double loaded_weight_bytes(LoadDtype load, const ModelSpec& model) {
    switch (load) {
        case LoadDtype::automatic:
            return static_cast<double>(model.checkpoint_dtype_bytes);
        case LoadDtype::float32:
            return 4;
        case LoadDtype::bfloat16:
        case LoadDtype::float16:
            return 2;
    }
    return 0;
}

// QLoRA's base defaults to bitsandbytes NF4 (BitsAndBytesConfig bnb_4bit_quant_type="nf4" in the QLoRA
// paper's recipe); Unsloth asks for double quantisation too (FastLlamaModel.from_pretrained,
// unsloth/models/llama.py @e3162dc5 L1670-1676: bnb_4bit_use_double_quant=True). Other methods keep a
// 16-bit base.
Quantization default_quantization(Method m, Framework f) {
    if (m != Method::qlora) return Quantization::none;
    return f == Framework::unsloth ? Quantization::nf4_dq : Quantization::nf4;
}

// PPO as verl runs it (actor, critic, reference, reward; vLLM colocated with gpu_memory_utilization 0.5,
// freed between phases); DPO as TRL's DPOTrainer (policy + reference, no rollout); GRPO as TRL's
// GRPOTrainer (policy + reference, 8 generations, colocated vLLM at 0.3). A trained role (the critic)
// follows the policy's precision, sharding and offload; frozen roles are bf16, sharded like the policy,
// not offloaded.
RlhfSetup default_rlhf(RlhfAlgorithm a, const Scenario& policy) {
    RlhfSetup x;
    x.algorithm = a;
    if (a == RlhfAlgorithm::none) return x;
    x.critic.present = a == RlhfAlgorithm::ppo;
    x.reward.present = a == RlhfAlgorithm::ppo;
    x.reference.present = true;
    x.rollout = a != RlhfAlgorithm::dpo;
    x.group_size = a == RlhfAlgorithm::grpo ? 8 : 1;
    x.rollout_gpu_memory_utilization = a == RlhfAlgorithm::grpo ? 0.3 : 0.5;
    x.rollout_released = a == RlhfAlgorithm::ppo;
    for (RlhfRole* r : {&x.critic, &x.reference, &x.reward}) {
        const bool trained = r == &x.critic;
        r->method = Method::full;
        r->precision = trained ? policy.precision : Precision::bf16;
        r->sharding = policy.sharding;
        r->offload = trained ? policy.offload : Offload::none;
    }
    return x;
}

}  // namespace vramcalc
