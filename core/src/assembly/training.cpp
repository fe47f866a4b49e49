#include "assembly/training.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "bill/lines.hpp"
#include "common/checked.hpp"
#include "common/format.hpp"
#include "formats/recipes.hpp"
#include "model/framework_layout.hpp"
#include "model/lora_targets.hpp"
#include "parallel/parallel.hpp"
#include "runtime/sdpa.hpp"
#include "training/activations.hpp"
#include "training/loss.hpp"
#include "training/model_states.hpp"
#include "training/stack_training.hpp"
#include "training/step_replay.hpp"
#include "training/training_step.hpp"

namespace vramcalc::detail {
namespace {

// How the framework runs a layer's forward and backward (what autograd saves, in which dtype).
ActivationSetup activation_setup(const Scenario& s, double adapter_bytes) {
    const Recipe r = training_recipe(s.precision, s.framework);
    const bool lora = s.method == Method::lora || s.method == Method::qlora;
    const bool adapter = s.method == Method::llama_adapter || s.method == Method::adapter_v2;
    const bool quantized_base = s.method == Method::qlora || (adapter && s.quantization != Quantization::none);
    ActivationSetup a;
    a.compute = s.precision == Precision::fp32 ? 4 : 2;
    // The residual stream's dtype: the model's own (fp32 under AMP); under QLoRA, fp32 where PEFT's
    // prepare_model_for_kbit_training upcast the embeddings (hf), else the compute dtype.
    // A GPTQ base keeps its 16-bit tensors (no upcast, model_states.cpp qlora_weights).
    const bool upcast = s.framework == Framework::hf && s.quantization != Quantization::gptq_int4;
    a.residual = quantized_base ? (upcast ? 4 : a.compute) : std::max(r.weight, a.compute);
    a.autocast = (s.precision == Precision::bf16_mixed || s.precision == Precision::fp16_mixed) && a.residual == 4;
    a.hf_modeling = s.framework == Framework::hf || s.framework == Framework::deepspeed || s.framework == Framework::unsloth;
    a.trainer_autocast = s.framework == Framework::hf && (s.precision == Precision::bf16 || s.precision == Precision::fp16);
    // LitGPT computes the scores explicitly (no SDPA) when the model soft-caps them (Gemma-2: litgpt/model.py
    // CausalSelfAttention.scaled_dot_product_attention), whatever the attention setting.
    a.attention = s.framework == Framework::litgpt && s.model.traits.attn_softcap ? Attention::eager : s.attention;
    a.repeat_kv = a.attention != Attention::flash;
    a.sdpa_math = a.attention == Attention::sdpa && training_sdpa_math(s, s.gpu);
    a.train_linears = !lora && !adapter;
    // AutoGPTQ's linear is plain autograd over a dequantised weight, which keeps that weight instead of
    // the input (gptq_weight_copies below); AutoAWQ's WQLinearMMFunction keeps the input like bitsandbytes.
    a.unsloth_norms = s.framework == Framework::unsloth;
    a.unsloth_kernels = a.unsloth_norms && lora && s.lora.dropout == 0 && !s.lora.use_dora;
    a.frozen_linears_save_input = quantized_base && s.framework != Framework::torchtune &&
                                  s.quantization != Quantization::gptq_int4 && !a.unsloth_kernels;
    a.compiled = s.compile;
    a.fused_qkv = s.framework == Framework::litgpt;
    a.train_norms = !lora && s.method != Method::llama_adapter;  // adapter-v2 trains the norms
    a.lora = lora;
    a.lora_setup = s.lora;
    a.adapter_bytes = adapter_bytes;
    return a;
}

// Autocast casts each fp32 linear weight to the compute dtype when the linear runs, and the matmul's
// backward keeps that copy (grad_input = grad_output @ W), so from a layer's forward to its backward the
// 16-bit copies of its linear weights live alongside its activations (torch autocast `cached_cast`,
// aten/src/ATen/autocast_mode.cpp; the copies of trainable leaf weights are also held in the autocast
// cache until the forward's autocast region exits). Bytes per layer.
double autocast_weight_copies(const ModelSpec& m, double compute) {
    double stack_linear = 0;
    for (const auto& g : m.params)
        if (g.is_linear && g.category != ParamCategory::lm_head)
            stack_linear += static_cast<double>(g.rows * g.cols) * static_cast<double>(g.count);
    const double stacks = static_cast<double>(m.layers + (m.arch == Arch::encoder_decoder ? m.encoder_layers : 0));
    return compute * stack_linear / std::max(1.0, stacks);
}

// AutoGPTQ's QuantLinear (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py, the class transformers'
// GPTQConfig(disable_exllama=True) loads for desc_act=False, as Qwen's finetune.py asks) runs inputs of
// kernel_switch_threshold = 128 rows or more through plain PyTorch: it unpacks qweight to int8, subtracts
// the zeros, multiplies by the fp16 scales and calls torch.matmul(x.half(), weight). Autograd records that
// matmul, and since x needs a gradient (LoRA, enable_input_require_grads) the mm keeps its other operand:
// every frozen linear holds its dequantised fp16 weight from forward to backward. Bytes per layer.
double gptq_weight_copies(const ModelSpec& m) { return autocast_weight_copies(m, 2.0); }

// QLoRA's dequantisation buffers: a 4/8-bit linear is dequantised to the compute dtype for every matmul,
// forward and backward (bitsandbytes MatMul4Bit, recipes.hpp bnb_dequant_copies; torchao LinearNF4:
// weight.to(input.dtype)); the largest one is the transient that counts. `head`: LitGPT's 4-bit lm_head,
// dequantised in the loss phase.
struct Dequant {
    double layer = 0, head = 0;
};
// GPTQ (qlinear_cuda_old above): the int8 unpacked weight, the int8 `weight - zeros` and the fp16 product
// coexist, 1 + 1 + 2 bytes per weight. AWQ (AutoAWQ awq/modules/linear/gemm.py, WQLinearMMFunction):
// backward dequantises to fp16 (dequantize_weights_cuda) and `repeat`s the transpose micro_batch times.
Dequant qlora_dequant(const Scenario& s, const ModelSpec& m, double compute) {
    const bool packed = packed_checkpoint(s.quantization);
    const double copies = packed ? 1.0 : bnb_dequant_copies(s.framework, s.precision == Precision::fp16);
    double largest = 0, head = 0;
    for (const auto& g : m.params) {
        if (!g.is_linear) continue;
        if (g.category != ParamCategory::lm_head) largest = std::max(largest, static_cast<double>(g.rows * g.cols));
        else if (s.framework == Framework::litgpt && !packed) head = static_cast<double>(g.rows * g.cols);
    }
    if (s.quantization == Quantization::gptq_int4) return {(1.0 + 1.0 + 2.0) * largest, 0};
    if (s.quantization == Quantization::awq_int4) return {2.0 * (1.0 + static_cast<double>(s.micro_batch)) * largest, 0};
    return {copies * compute * largest, copies * compute * head};
}

// DoRA's per-layer extras beyond its saved outputs (activations.cpp), as PEFT runs it (huggingface/peft
// src/peft/tuners/lora/dora.py @d20332ed, DoraLinearLayer.forward and get_weight_norm). For each adapted
// linear (out x in) it takes the row norms of W + scaling x B A on full-size tensors in the dtype of the
// adapter's input (PEFT casts x to the adapter weights' dtype): x_eye = eye(in), lora_A(x_eye) (in x r),
// lora_weight = lora_B(lora_A(x_eye)).T, W cast to that dtype (a copy unless W already has it; a
// dequantised 16-bit copy first for a 4/8-bit base), scaling x lora_weight and the sum. The largest adapted
// linear's set is the transient; under checkpointing it recurs in backward. With dropout the base output is
// recomputed as F.linear(x, W_cast), which keeps W_cast for backward: a copy of every adapted weight per
// layer (none when W already has the adapter dtype).
struct DoraExtras {
    double transient = 0, kept_per_layer = 0;
};
DoraExtras dora_extras(const Scenario& s, const ModelSpec& m, const ActivationSetup& a, bool quantized_base) {
    if (!a.lora || !s.lora.use_dora) return {};
    const double ab = a.adapter_input_bytes();
    const bool copy = quantized_base || a.residual != ab;
    const double r = static_cast<double>(s.lora.rank), L = static_cast<double>(std::max<i64>(1, m.layers));
    DoraExtras d;
    for (const auto& g : m.params) {
        if (!g.is_linear || !lora_targets(s.lora, g)) continue;
        const double in = static_cast<double>(g.cols), w = static_cast<double>(g.rows) * in;
        const double t = in * in * ab + in * r * ab + 3.0 * w * ab + (copy ? w * ab : 0.0) + (quantized_base ? w * a.compute : 0.0);
        d.transient = std::max(d.transient, t);
        if (s.lora.dropout > 0 && copy) d.kept_per_layer += w * ab * static_cast<double>(g.count) / L;
    }
    return d;
}

// What LitGPT's adapters add to a layer's saved tensors, per token (litgpt/adapter.py
// CausalSelfAttention.scaled_dot_product_attention; adapter_v2.py AdapterV2Linear.forward). In a layer from
// adapter_start_layer on, the prompt's keys and values go through a second SDPA with q, whose output `ay`
// (compute dtype, h per token) the gate multiply `gating_factor * ay` keeps, with the SDPA's fp32
// logsumexp per head. Adapter-v2's `adapter_scale * (linear(x) + adapter_bias)` keeps each linear's output
// for the scale's gradient: out_features per token per linear. Layers below adapter_start_layer have no
// prompt; under adapter-v2 they still train, so the prompt term is averaged over the layers.
double adapter_saved_per_token(const Scenario& s, const ModelSpec& m, const ActivationSetup& a) {
    const double L = static_cast<double>(std::max<i64>(1, m.layers));
    const double adapted = static_cast<double>(std::max<i64>(0, m.layers - s.adapter_start_layer));
    const double prompt = a.compute * static_cast<double>(m.hidden) + 4.0 * static_cast<double>(m.heads);
    if (s.method == Method::llama_adapter) return prompt;  // only adapted layers save anything (trained_layers)
    double outs = 0;
    for (const auto& g : m.params)
        if (g.is_linear && g.category != ParamCategory::lm_head && g.layer_stack == 0)
            outs += static_cast<double>(g.rows) * static_cast<double>(g.count);
    return prompt * adapted / L + a.compute * outs / L;
}

// torchao float8 training (torchao/float8/float8_linear.py @36027d82, matmul_with_hp_or_float8_args): forward
// keeps the 16-bit input and weight for backward (L45) and casts both to float8 for the matmul (L56-76);
// backward casts grad_output twice (row- and column-major, L113, L167), the weight (L131) and the input
// (L185), 1 B per element, beside the 16-bit gradients it produces. rowwise_with_gw_hp computes the weight
// gradient in high precision (no column-major casts); rowwise adds an fp32 scale per row or column. The
// largest linear's backward casts are the transient.
// mxfp8 (torchao/prototype/mx_formats/mx_linear.py @06f5ff43, mx_mm): the same shape of work: forward saves the
// 16-bit input and weight (save_for_backward(input_hp, weight_hp)); backward casts grad_output along dim 0 and
// dim 1, the weight along dim 1 and the input along dim 1, 1 B per element plus one e8m0 scale byte per block
// of 32 (block_size 32, MX OCP spec).
constexpr double kMxBlock = 32;
double float8_cast_bytes(const Scenario& s, const ModelSpec& m, double T) {
    if (s.float8 == Float8::none || s.method != Method::full) return 0;
    const bool hp_grad_weight = s.float8 == Float8::rowwise_with_gw_hp;
    double largest = 0;
    for (const auto& g : m.params) {
        if (!g.is_linear || g.category == ParamCategory::lm_head) continue;  // torchtitan leaves `output` in bf16
        const double in = static_cast<double>(g.cols), out = static_cast<double>(g.rows);
        double b = (hp_grad_weight ? 1 : 2) * T * out + (hp_grad_weight ? 0 : T * in) + out * in;
        if (s.float8 == Float8::mxfp8) b *= 1.0 + 1.0 / kMxBlock;              // e8m0 block scales
        else if (s.float8 != Float8::tensorwise) b += 4 * (2 * T + out + in);  // per-row scales
        largest = std::max(largest, b);
    }
    return largest;
}

// Unsloth's rotary cos/sin cache (LlamaExtendedRotaryEmbedding, unsloth/models/llama.py @e3162dc5
// L1244-1335): cos and sin for min(4 x 8192, max_position_embeddings) positions in fp32, rebuilt in the
// compute dtype for ceil(T / 8192) x 8192 positions when a longer sequence arrives; one module shared by all
// layers (L1894-1898).
double unsloth_rope_cache(const ModelSpec& m, double seq) {
    if (!m.traits.rope || m.head_dim <= 0) return 0;
    const double first = std::min(32768.0, m.max_positions > 0 ? static_cast<double>(m.max_positions) : 32768.0);
    const double grown = seq > first ? std::ceil(seq / 8192.0) * 8192.0 * 2.0 : 0.0;
    return 2.0 * static_cast<double>(m.head_dim) * std::max(first * 4.0, grown);
}

// The activations line's text, from the per-rank inputs (after tp / cp have split them).
std::string activation_detail(const Scenario& s, const StepInputs& in) {
    std::string split;
    if (s.cp > 1) split += ", cp " + std::to_string(s.cp) + " splits the sequence";
    if (s.tp > 1) split += ", tp " + std::to_string(s.tp) + (s.sp ? " (sp)" : "");
    return gib(in.layer_act) + " per layer (" + std::to_string(s.micro_batch) + " x " + std::to_string(s.seq_len) +
           " tokens" + split + ", " + to_string(s.attention) + " attention, checkpointing " + to_string(s.checkpointing) + ")";
}

// The per-step sizes of activations, logits and transients (simulate_step's inputs besides the states).
void activation_inputs(const Scenario& s, const ModelSpec& m, const ActivationSetup& a, StepInputs& in,
                       std::string& loss_detail) {
    const bool lora = a.lora;
    const double bsz = static_cast<double>(s.micro_batch), seq = static_cast<double>(s.seq_len), T = bsz * seq;
    const std::vector<SavedTensor> saved = layer_saved_tensors(m, a);
    const bool selective = s.checkpointing == Checkpointing::selective;
    in.layer_act = layer_bytes(saved, bsz, seq, selective);
    if (a.autocast) in.layer_act += autocast_weight_copies(m, a.compute);
    const bool adapter = s.method == Method::llama_adapter || s.method == Method::adapter_v2;
    const bool quantized_base = s.method == Method::qlora || (adapter && s.quantization != Quantization::none);
    if (adapter) in.layer_act += adapter_saved_per_token(s, m, a) * T;
    if (quantized_base && s.quantization == Quantization::gptq_int4) in.layer_act += gptq_weight_copies(m);
    in.layer_input = layer_input_bytes_per_token(m, a) * T;
    in.layer_op_kept = layer_op_checkpoint_bytes_per_token(m, a) * T;
    in.layer_transient = layer_backward_transient_per_token(m, a) * T + float8_cast_bytes(s, m, T);
    const Dequant dq = quantized_base ? qlora_dequant(s, m, a.compute) : Dequant{};
    in.layer_transient += dq.layer;
    const DoraExtras dora = dora_extras(s, m, a, quantized_base);
    in.layer_act += dora.kept_per_layer;
    in.layer_transient = std::max(in.layer_transient, dora.transient);
    // Selective recomputation (Korthikanti et al. 2022, Sec. 5; Megatron's checkpointed core attention) runs a
    // layer's attention core again at the start of that layer's backward: its scores, softmax and dropout
    // tensors exist again, one layer at a time, beside the layer's backward transients, as full
    // checkpointing's recomputed layer does (training_step.cpp). Split by tp and cp like the rest of it.
    if (selective) in.layer_transient += attention_core_bytes(saved, bsz, seq);
    // Encoder-decoder models run the encoder stack too (counted as the same layer kind). Method freeze trains
    // the last decoder layers only: the encoder keeps nothing (its input needs no gradient) and has no
    // gradients (model_states.cpp sizes grad_per_layer over the trained layers).
    if (m.arch == Arch::encoder_decoder) {
        in.layers += m.encoder_layers;
        if (s.method != Method::freeze) in.trained_layers += m.encoder_layers;
    }
    // The final norm's saved tensors and the lm_head input (when trained).
    const double h = static_cast<double>(m.hidden);
    in.extra_act = (4 * h + (a.train_norms ? a.residual * h : 0)) * T;
    if (a.unsloth_norms) in.extra_act = (a.residual * h + 4) * T + unsloth_rope_cache(m, seq);
    // Adapter-v2's lm_head is an AdapterV2Linear too: the 16-bit logits before the scale stay saved.
    if (s.method == Method::adapter_v2)
        for (const auto& g : m.params)
            if (g.category == ParamCategory::lm_head) in.extra_act += a.compute * static_cast<double>(g.rows) * T;
    const bool head_trained = !lora && s.method == Method::full;
    if (head_trained) in.extra_act += (a.autocast ? a.compute : a.residual) * h * T;
    const LossMemory lm = loss_memory(s, m, a.compute, T, head_trained);
    in.logits_saved = lm.saved;
    in.logits_forward_peak = lm.forward_peak + dq.head;
    in.logits_backward_peak = lm.backward_peak + dq.head;
    // keep_outputs: a hand-written loop holds `out` and its logits (compute dtype: lm_head's output, which
    // transformers' ForCausalLMLoss upcasts into a copy: src/transformers/loss/loss_utils.py @004999d9,
    // `logits = logits.float()`) to the end of the step. Losses that never build the full logits keep none.
    if (s.keep_outputs && m.arch != Arch::encoder && (s.loss == Loss::standard || s.loss == Loss::liger_ce))
        in.outputs_kept = a.compute * static_cast<double>(m.vocab) * T;
    loss_detail = lm.detail + (in.outputs_kept > 0 ? " + the outputs' logits, kept to the end of the step (keep_outputs)" : "");
}

}  // namespace

void training(const Scenario& s, Bill& b) {
    // LitGPT builds its own module layout from the checkpoint (model/framework_layout.cpp).
    const bool own_layout = s.framework == Framework::litgpt && !s.model.count_only && !s.model.stack;
    const ModelSpec litgpt = own_layout ? litgpt_layout(s.model) : ModelSpec{};
    const ModelSpec& m = own_layout ? litgpt : s.model;
    TrainedStates st = model_states(s, m, count_parameters(m), b);

    // bitsandbytes paged optimizers keep their states in CUDA unified memory (cudaMallocManaged), which
    // torch's allocator counters do not see; nvidia-smi does.
    const bool paged = paged_states(s.optimizer);
    StepInputs in;
    in.static_bytes = static_cast<double>(component_sum(b)) + (paged ? 0 : st.opt);
    in.grad_total = st.grad_total;
    in.grad_per_layer = st.grad_per_layer;
    in.grad_head = st.grad_head;
    in.optimizer_temp = st.opt_temp;
    in.layers = m.count_only ? 0 : m.layers;
    in.trained_layers = s.method == Method::freeze ? std::min(s.trainable_layers, m.layers) : in.layers;
    // LLaMA-Adapter: the layers below adapter_start_layer hold no trainable tensor and see no input that
    // needs a gradient, so autograd records nothing there (like freeze's lower layers).
    if (s.method == Method::llama_adapter)
        in.trained_layers = std::clamp<std::int64_t>(in.layers - s.adapter_start_layer, 0, in.layers);
    in.checkpointing = s.checkpointing;
    // Gradients outlive the step with accumulation, or when zero_grad zeroes them instead of freeing them.
    in.grads_persist = s.grad_accum > 1 || !s.zero_grad_set_to_none;
    in.optimizer_in_backward = s.optimizer_in_backward;

    const ActivationSetup a = activation_setup(s, st.adapter_bytes);
    std::string act_detail, loss_detail;
    if (m.count_only) b.warnings.push_back("activations need the model's shapes: give a config.json, not only a parameter count");
    else if (m.stack) act_detail = stack_activation_inputs(s, m, a, in, loss_detail, b.warnings);
    else activation_inputs(s, m, a, in, loss_detail);

    // Several GPUs, sharding, offload: the most loaded rank's share (parallel.cpp).
    apply_parallel_training(s, a, b, in, st.opt, st.opt_temp);
    if (!m.count_only && !m.stack) act_detail = activation_detail(s, in);
    const StepPeak peak = simulate_step(in);
    // Absurd sizes (a saturated bill, beyond any GPU by far) keep the fitted reserve: the replay counts whole bytes.
    constexpr double kReplayLimit = 1125899906842624.0;  // 1 PiB
    const auto tensors = peak.bytes + st.opt < kReplayLimit ? step_tensors(s, m, a, paged ? 0.0 : st.opt) : std::nullopt;
    if (tensors) {
        const ReplayPeak r = replay_step(in, *tensors);
        b.replay_reserve_bytes = saturated_bytes(std::max(0.0, r.reserved - r.allocated));
        b.replay_pinned_bytes = saturated_bytes(std::max(0.0, r.needed - r.allocated));
    }
    b.peak_phase = peak.phase;
    b.timeline = peak.timeline;
    b.cpu_bytes += saturated_bytes(peak.cpu_bytes);
    add_line(b, "gradients", peak.gradients, "gradients present at the peak (" + count_short(st.trainable) + " trainable params" + (s.zero_grad_set_to_none ? "" : "; zero_grad keeps them between steps") + ")");
    add_line(b, "optimizer", st.opt, std::string(to_string(s.optimizer)) + " states for " + count_short(st.trainable) + " params" + (paged ? " (paged: CUDA unified memory, outside torch's counters)" : ""));
    add_line(b, "activations", peak.activations, act_detail);
    add_line(b, "logits", peak.logits, loss_detail);
    add_line(b, "temporaries", peak.temporaries, "optimizer step / recomputed layer / backward transients at the peak");
    b.torch_uncounted_bytes = paged ? saturated_bytes(st.opt) : 0;
}

}  // namespace vramcalc::detail
