// Internal: activation memory, counted op by op as PyTorch autograd saves tensors for backward.
//
// A layer is described as the sequence of ops it runs (HF transformers implementations); each op
// contributes the tensors its backward needs, with their dtype. Rules of autograd used throughout
// (PyTorch derivatives.yaml and its code generator, which saves an input only when the gradient that
// needs it is required):
//  - a matmul/linear saves its input only if its weight is trained (frozen LoRA base layers don't);
//  - SiLU/GeLU save their input; an elementwise product saves both factors; softmax saves its output;
//  - dropout saves a 1-byte mask; layer_norm saves its input (+ per-row mean/rstd);
//  - SDPA flash/efficient kernels save q, k, v, the output and an fp32 log-sum-exp per row and head.
#pragma once

#include <string>
#include <vector>

#include "vramcalc/model.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

struct SavedTensor {
    std::string op;               // e.g. "mlp.act_fn (SiLU input)"
    double per_token = 0;         // bytes per token (scales with micro_batch x seq_len)
    double per_token_key = 0;     // bytes per token per key position (x seq_len again: eager scores)
    bool attention_core = false;  // dropped by selective recomputation
    // Megatron tensor parallelism leaves it whole on every rank unless sequence parallelism splits it: the
    // norms and their outputs that feed the column-parallel linears, those linears' (and their LoRA
    // adapters') inputs, and the residual dropout masks (Korthikanti et al. 2022, Sec. 4.2.2: the "10 sbh"
    // of the 34 sbh stay replicated).
    bool tp_replicated = false;
};

struct ActivationSetup {
    double compute = 2;     // bytes of matmul outputs (bf16/fp16: 2, fp32: 4)
    double residual = 2;    // bytes of the residual stream (4 when an fp32 model runs under autocast)
    bool autocast = false;  // each linear casts its (fp32) input to the compute dtype
    Attention attention = Attention::sdpa;
    // attention sdpa runs PyTorch's math path (runtime/sdpa.hpp sdpa_backend: bf16 before Ampere, head dimensions
    // the fused kernels cannot align), which keeps fp32 copies of q, k, v and the fp32 probabilities.
    bool sdpa_math = false;
    bool repeat_kv = true;      // HF expands K/V to all heads before eager/SDPA attention
    bool train_linears = true;  // full fine-tuning: linear weights get gradients
    // bitsandbytes 4-bit/8-bit linears (QLoRA through PEFT or Lightning's BitsandbytesPrecision) run as
    // their own autograd Function that keeps its input whenever that input needs a gradient, even though
    // the quantized weight never does (bitsandbytes/autograd/_functions.py, MatMul4Bit.forward:
    // `if any(ctx.needs_input_grad[:2]): ctx.tensors = (A, B)`). torchao's NF4 linear (torchtune) keeps
    // only the weight (torchao/dtypes/nf4tensor.py, LinearNF4.forward).
    bool frozen_linears_save_input = false;
    // torch.compile (torchtune `compile: True` compiles each layer): AOTAutograd's min-cut partitioner
    // (torch/_functorch/partitioners.py, min_cut_rematerialization_partition) saves the outputs of
    // matmuls and of fallback kernels such as SDPA and recomputes pointwise chains in backward. So a norm
    // keeps only its input and per-row rstd, a gated MLP only the gate and up outputs; inputs that are
    // pointwise results (normalised tensors, act(gate) * up) are rebuilt, not kept.
    bool compiled = false;
    // LitGPT's CausalSelfAttention projects q, k and v with one fused `attn` linear whatever the model
    // (litgpt/model.py), like HF's fused families (c_attn, qkv_proj, query_key_value, W_pack).
    bool fused_qkv = false;
    bool train_norms = true;
    // Unsloth's Triton kernels (unsloth/kernels @e3162dc5): Fast_RMS_Layernorm keeps its input and a per-row
    // fp32 rstd (rms_layernorm.py L152-169); with LoRA at dropout 0, no bias and no DoRA (llama.py L2391-2411)
    // fast_lora.py's LoRA_QKV keeps the normed input X (L249), LoRA_W the attention output it already shares
    // with the attention kernel (L371), LoRA_MLP X and the gate and up outputs e, g (L86-87; act(e) * g is
    // recomputed in backward); no rank-r intermediate is kept.
    bool unsloth_norms = false;
    bool unsloth_kernels = false;
    // LoRA on matching linears: adapter input and rank-r intermediate.
    bool lora = false;
    LoraSetup lora_setup;
    double adapter_bytes = 4;
    // The Trainer's bf16/fp16 flag runs the step under torch.autocast whatever the weights' dtype (Accelerate's
    // autocast context for mixed_precision "bf16"/"fp16": accelerate/utils/modeling.py get_mixed_precision_context_manager,
    // entered by Trainer.autocast_smart_context_manager, transformers/trainer.py @v5.0.0). On a 16-bit model
    // that changes little except what reaches an fp32 adapter (below).
    bool trainer_autocast = false;
    // The layers are transformers' modeling code (hf, DeepSpeed and Unsloth run it); torchtune, LitGPT, Megatron
    // and torchtitan build their own modules.
    bool hf_modeling = true;
    // The dtype of what reaches an adapter: PEFT casts the input to the adapter weights' dtype
    // (peft/tuners/tuners_utils.py BaseTunerLayer._cast_input_dtype, called by lora/layer.py Linear.forward @v0.17),
    // but under autocast lora_A's matmul casts that copy back to the compute dtype and saves the cast: so the
    // adapter keeps a compute-dtype input (the fp32 copy is a transient that no op keeps).
    double adapter_input_bytes() const { return autocast || trainer_autocast ? compute : adapter_bytes; }
};

// One transformer layer's saved tensors (decoder layer, or encoder layer for BERT).
std::vector<SavedTensor> layer_saved_tensors(const ModelSpec& m, const ActivationSetup& a);

// Bytes of one layer for micro-batch b and sequence s.
double layer_bytes(const std::vector<SavedTensor>& t, double b, double s, bool selective);

// Bytes of one layer's attention core for micro-batch b and sequence s: what selective recomputation drops
// from the saved set in forward and materialises again while that layer runs backward.
double attention_core_bytes(const std::vector<SavedTensor>& t, double b, double s);

// Bytes per token of a layer's input (what full checkpointing keeps per layer).
double layer_input_bytes_per_token(const ModelSpec& m, const ActivationSetup& a);

// What torchtitan's per-op selective checkpointing keeps of a layer, per token (checkpointing "selective-op").
// Its policy (torchtitan/parallelisms/parallelize_llama.py @9dec370ad, _apply_ac_to_transformer_block,
// `_custom_policy`) saves the outputs of the ops in `_save_list` (aten.mm, the SDPA flash / efficient kernels,
// reduce_scatter), except every second mm counted within the layer, and recomputes the rest; the checkpoint
// keeps the layer's input. A Llama layer calls wq, wk, wv, wo, w1, w3, w2 in that order, so wq, wv, w1 and w2
// are kept, with the attention output and its fp32 log-sum-exp.
double layer_op_checkpoint_bytes_per_token(const ModelSpec& m, const ActivationSetup& a);
// The share of a layer's forward matmul FLOPs that per-op checkpointing runs again (the linears it did not keep).
double op_checkpoint_recompute_share(const ModelSpec& m);

// The largest transient of one layer's backward (gradients of its biggest activations), per token.
double layer_backward_transient_per_token(const ModelSpec& m, const ActivationSetup& a);

}  // namespace vramcalc::detail
