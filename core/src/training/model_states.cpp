// Model states of a training step (docs/methodology.md section 2): the weights in the recipe's dtype, the
// fp32 master copy, LoRA adapters and the optimizer states, for full fine-tuning, freeze-tuning, LoRA and
// QLoRA. Gradients are sized here and placed in the step by training_step.cpp.
#include "training/model_states.hpp"

#include <algorithm>
#include <string>

#include "bill/lines.hpp"
#include "common/checked.hpp"
#include "common/format.hpp"
#include "model/lora_targets.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {
namespace {

// A tensor repeated in every layer of the decoder stack (what method "freeze" can train).
bool decoder_layer_tensor(const ModelSpec& m, const ParamGroup& g) {
    return g.layer_stack == 0 && g.count >= m.layers && g.category != ParamCategory::embeddings && g.category != ParamCategory::lm_head;
}

// The layers whose gradients backward produces one after another: the decoder stack, and for an
// encoder-decoder model (T5, mT5) the encoder stack too, which training.cpp runs through the same step
// timeline. Per-layer gradients are the stacks' gradients over this count, so that summed over the layers
// they are the stacks' gradients, never more.
double stack_layers(const ModelSpec& m) {
    const i64 encoder = m.arch == Arch::encoder_decoder ? m.encoder_layers : 0;
    return static_cast<double>(std::max<i64>(1, m.layers + encoder));
}

// Parameters of the last N layers (method "freeze", LLaMA-Factory's freeze_trainable_layers): the
// per-layer tensors of the decoder stack, averaged over layers (MoE/dense mixes differ by layer).
double freeze_trainable(const ModelSpec& m, std::int64_t n) {
    double per_layer_total = 0;
    for (const auto& g : m.params)
        if (decoder_layer_tensor(m, g))
            per_layer_total += static_cast<double>(g.numel_each()) * static_cast<double>(g.count);
    return per_layer_total * static_cast<double>(std::min(n, m.layers)) / static_cast<double>(m.layers);
}

// Adafactor (transformers.optimization.Adafactor defaults, beta1=None): a 2-D weight keeps a row and
// a column second-moment vector in fp32, anything else a full fp32 second moment.
double adafactor_bytes(i64 rows, i64 cols, i64 count) {
    const double n = static_cast<double>(count);
    if (cols > 1) return 4.0 * static_cast<double>(rows + cols) * n;
    return 4.0 * static_cast<double>(rows) * n;
}

// AdamW's step transient (adamw_impl): foreach builds sqrt(exp_avg_sq) for the whole parameter group
// (torch/optim/adamw.py, _multi_tensor_adamw): `all` bytes; a for-loop builds it for one parameter at a time
// (transformers/optimization.py AdamW.step: denom = exp_avg_sq.sqrt().add_(eps)): the largest, `largest` bytes;
// the fused kernel (_fused_adamw) none. Other optimizers: none here (8-bit and Adafactor work in place or by block).
double adamw_transient(const Scenario& s, double all, double largest) {
    if (s.optimizer != Optimizer::adamw) return 0;
    switch (s.adamw_impl) {
        case AdamwImpl::foreach:
            return all;
        case AdamwImpl::for_loop:
            return std::min(all, largest);
        case AdamwImpl::fused:
            return 0;
    }
    return all;
}

void full_or_freeze(const Scenario& s, const ModelSpec& m, const ParamBreakdown& p, const Recipe& r, Bill& b, TrainedStates& st) {
    const double total = static_cast<double>(p.total);
    const double L = stack_layers(m);
    const double head_params = static_cast<double>(p.embeddings + p.lm_head) + static_cast<double>(m.hidden);
    st.trainable = s.method == Method::full ? total : freeze_trainable(m, s.trainable_layers);
    // A layer stack freezes with "trainable": false on its layers (layer_stack.cpp counts what remains).
    if (m.stack) st.trainable = static_cast<double>(m.stack->trainable_parameters);
    b.trainable_parameters = saturated_bytes(st.trainable);
    add_line(b, "weights", total * r.weight, count_short(total) + " params x " + bytes_per(r.weight) + " (" + r.note + ")");
    add_line(b, "master_weights", st.trainable * r.master, count_short(st.trainable) + " trainable x 4 B fp32 master copy");
    if (s.optimizer == Optimizer::adafactor) {
        if (m.count_only) st.opt = 4.0 * st.trainable;
        else
            for (const auto& g : m.params) st.opt += adafactor_bytes(g.rows, g.cols, g.count);
        if (s.method == Method::freeze || m.stack) st.opt *= total > 0 ? st.trainable / total : 0;
    } else {
        st.opt = st.trainable * optimizer_bytes_per_param(s.optimizer, r.state);
    }
    st.grad_total = st.trainable * r.grad;
    if (s.method == Method::full) {
        st.grad_head = std::min(head_params, total) * r.grad;
        st.grad_per_layer = (st.grad_total - st.grad_head) / L;
    } else {
        st.grad_per_layer = st.grad_total / static_cast<double>(std::min(s.trainable_layers, m.layers));
    }
    // The largest trained tensor (a shapeless model: the whole, as foreach).
    double largest = m.params.empty() ? st.trainable : 0.0;
    for (const auto& g : m.params)
        if (s.method == Method::full || decoder_layer_tensor(m, g)) largest = std::max(largest, static_cast<double>(g.numel_each()));
    st.opt_temp = adamw_transient(s, st.trainable * r.state, largest * r.state);
}

// QLoRA's frozen base: quantised linears plus the rest in 16 or 32 bit.
void qlora_weights(const Scenario& s, const ModelSpec& m, const ParamBreakdown& p, Bill& b) {
    const std::string fmt = qlora_format(s.quantization);
    // bitsandbytes replaces the decoder's nn.Linear layers; lm_head stays unquantized
    // (transformers get_keys_to_not_convert). PEFT's prepare_model_for_kbit_training casts the
    // remaining 16-bit parameters (embeddings, norms, lm_head) to fp32.
    // LitGPT quantises through Lightning's BitsandbytesPrecision, whose init context swaps every
    // torch.nn.Linear built inside it for the 4-bit class, lm_head included
    // (lightning/fabric/plugins/precision/bitsandbytes.py, init_context without ignore_modules).
    // GPTQ / AWQ checkpoints are stored quantised: their decoder linears are packed int4 (AutoGPTQ /
    // AutoAWQ, weight_formats.cpp); embeddings, norms and lm_head stay 16-bit. PEFT skips the fp32 cast
    // for a GPTQ model (peft/utils/other.py prepare_model_for_kbit_training: `if not is_gptq_quantized`)
    // but not for AWQ. Unsloth loads the rest in the compute dtype and does not upcast it (FastLlamaModel:
    // torch_dtype=dtype; Cut Cross-Entropy asserts a 16-bit classifier, cce_backward.py L260-263).
    const double other_bytes = s.framework == Framework::hf && s.quantization != Quantization::gptq_int4 ? 4.0 : 2.0;
    const bool head_quantized = s.framework == Framework::litgpt && !packed_checkpoint(s.quantization);
    double q = 0, other = 0;
    for (const auto& g : m.params) {
        const double each_bias = g.bias ? static_cast<double>(g.rows) * other_bytes : 0.0;
        if (g.is_linear && (g.category != ParamCategory::lm_head || head_quantized)) {
            q += (qlora_linear_bytes(s.quantization, s.group_size, g.rows, g.cols) + each_bias) * static_cast<double>(g.count);
        } else {
            other += static_cast<double>(g.numel_each()) * static_cast<double>(g.count) * other_bytes;
        }
    }
    add_line(b, "weights", q + other, count_short(static_cast<double>(p.linear)) + " params in " + fmt + " linear layers + the rest at " + bytes_per(other_bytes));
}

void lora_or_qlora(const Scenario& s, const ModelSpec& m, const ParamBreakdown& p, const Recipe& r, Bill& b, TrainedStates& st) {
    const double total = static_cast<double>(p.total);
    const double L = stack_layers(m);
    // LoRA / QLoRA: frozen base + adapters. PEFT creates adapters in fp32 (autocast_adapter_dtype=True,
    // the default since PEFT 0.12), and Unsloth casts them to fp32 (unsloth/models/_utils.py @e3162dc5
    // L516-528); torchtune and LitGPT build them in the model dtype.
    const bool half_true = s.precision == Precision::bf16 || s.precision == Precision::fp16;
    st.adapter_bytes = (s.framework == Framework::hf || s.framework == Framework::unsloth || !half_true) ? 4.0 : 2.0;
    double adapters = 0, adafactor = 0;
    const double rank = static_cast<double>(s.lora.rank);
    for (const auto& g : m.params) {
        if (!lora_targets(s.lora, g)) continue;
        adapters += rank * static_cast<double>(g.rows + g.cols) * static_cast<double>(g.count);  // A: r x in, B: out x r
        adafactor += adafactor_bytes(s.lora.rank, g.cols, g.count) + adafactor_bytes(g.rows, s.lora.rank, g.count);
        // DoRA: lora_magnitude_vector, one weight per output row (DoraLinearLayer.weight = the row norms of
        // W + scaling x B A), created and kept like the adapters.
        if (s.lora.use_dora) {
            adapters += static_cast<double>(g.rows) * static_cast<double>(g.count);
            adafactor += adafactor_bytes(g.rows, 1, g.count);
        }
    }
    if (m.count_only) b.warnings.push_back("LoRA needs the model's shapes: give a config.json, not only a parameter count");
    if (adapters == 0 && !m.count_only) {
        LoraSetup every_linear;
        every_linear.all_linear = true;
        const std::string names = lora_target_names(every_linear, m);
        b.warnings.push_back("no module matches the LoRA targets: use \"all-linear\" or names this model has (" +
                             names + ")");
    }
    const double embed_trainable = s.lora.train_embeddings ? static_cast<double>(p.embeddings + p.lm_head) : 0.0;
    st.trainable = adapters + embed_trainable;
    b.trainable_parameters = saturated_bytes(st.trainable);
    if (s.method == Method::qlora) qlora_weights(s, m, p, b);
    else add_line(b, "weights", total * r.weight, count_short(total) + " frozen params x " + bytes_per(r.weight));
    add_line(b, "lora", adapters * st.adapter_bytes + embed_trainable * r.weight,
             count_short(adapters) + " adapter params (rank " + std::to_string(s.lora.rank) + (s.lora.use_dora ? ", DoRA magnitudes" : "") +
                 ") x " + bytes_per(st.adapter_bytes));
    st.grad_total = adapters * st.adapter_bytes + embed_trainable * r.grad;
    st.grad_head = embed_trainable * r.grad;
    st.grad_per_layer = adapters * st.adapter_bytes / L;
    // Trainable embeddings / lm_head (PEFT modules_to_save) are deep copies of the original modules, so
    // they keep the model's dtype, and torch AdamW keeps their states in that dtype (recipe state bytes).
    st.opt = s.optimizer == Optimizer::adafactor
                 ? adafactor
                 : adapters * optimizer_bytes_per_param(s.optimizer, st.adapter_bytes) +
                       embed_trainable * optimizer_bytes_per_param(s.optimizer, r.state);
    double largest = 0;  // the largest adapter matrix (A: r x in, B: out x r) or trained embedding copy
    for (const auto& g : m.params) {
        if (lora_targets(s.lora, g)) largest = std::max(largest, rank * static_cast<double>(std::max(g.rows, g.cols)) * st.adapter_bytes);
        if (s.lora.train_embeddings && (g.category == ParamCategory::embeddings || g.category == ParamCategory::lm_head))
            largest = std::max(largest, static_cast<double>(g.numel_each()) * r.state);
    }
    st.opt_temp = adamw_transient(s, adapters * st.adapter_bytes + embed_trainable * r.state, largest);
}

}  // namespace

// LLaMA-Adapter / Adapter-v2 as LitGPT builds them (litgpt/adapter.py, adapter_v2.py; the resource table's
// commit 8641822: lit_gpt/adapter.py, adapter_v2.py). Every layer from adapter_start_layer on gets an
// nn.Embedding(adapter_prompt_length, n_embd) prompt and a zero-init gating_factor of shape (1, n_head, 1, 1);
// mark_only_adapter_as_trainable freezes the rest. Adapter-v2 replaces every nn.Linear (lm_head included) by
// AdapterV2Linear with a trainable adapter_bias and adapter_scale of out_features each, and
// mark_only_adapter_v2_as_trainable also trains the norms (norm_1, norm_2, ln_f). The new tensors are
// created in the model's dtype (bf16-true: 2 B), so are their gradients and AdamW states.
// Checked against the trainable counts the resource table prints (adapter_trainable_params in unit-adapter.cpp).
double adapter_trainable_params(const Scenario& s, const ModelSpec& m) {
    const double adapted = static_cast<double>(std::max<i64>(0, m.layers - s.adapter_start_layer));
    double n = adapted * static_cast<double>(s.adapter_prompt_length * m.hidden + m.heads);
    if (s.method != Method::adapter_v2) return n;
    for (const auto& g : m.params) {
        if (g.is_linear) n += 2.0 * static_cast<double>(g.rows) * static_cast<double>(g.count);
        else if (g.category == ParamCategory::norms) n += static_cast<double>(g.numel_each()) * static_cast<double>(g.count);
    }
    return n;
}

namespace {

void adapter_states(const Scenario& s, const ModelSpec& m, const ParamBreakdown& p, const Recipe& r, Bill& b, TrainedStates& st) {
    const double total = static_cast<double>(p.total);
    const double L = stack_layers(m);
    const bool half_true = s.precision == Precision::bf16 || s.precision == Precision::fp16;
    st.adapter_bytes = half_true ? 2.0 : 4.0;
    if (m.count_only) b.warnings.push_back(std::string(to_string(s.method)) + " needs the model's shapes: give a config.json");
    st.trainable = adapter_trainable_params(s, m);
    b.trainable_parameters = saturated_bytes(st.trainable);
    if (s.quantization != Quantization::none) qlora_weights(s, m, p, b);
    else add_line(b, "weights", total * r.weight, count_short(total) + " frozen params x " + bytes_per(r.weight));
    add_line(b, "lora", st.trainable * st.adapter_bytes,
             count_short(st.trainable) + " " + to_string(s.method) + " params (prompt " + std::to_string(s.adapter_prompt_length) +
                 " tokens from layer " + std::to_string(s.adapter_start_layer) + ") x " + bytes_per(st.adapter_bytes));
    st.grad_total = st.trainable * st.adapter_bytes;
    st.grad_per_layer = st.grad_total / L;
    st.opt = st.trainable * optimizer_bytes_per_param(s.optimizer, st.adapter_bytes);
    // The largest adapter tensor: a layer's prompt (adapter_prompt_length x n_embd) or an Adapter-v2 bias.
    double largest = static_cast<double>(s.adapter_prompt_length * m.hidden);
    if (s.method == Method::adapter_v2)
        for (const auto& g : m.params)
            if (g.is_linear) largest = std::max(largest, static_cast<double>(g.rows));
    st.opt_temp = adamw_transient(s, st.trainable * st.adapter_bytes, largest * st.adapter_bytes);
}

}  // namespace

TrainedStates model_states(const Scenario& s, const ModelSpec& m, const ParamBreakdown& p, Bill& b) {
    TrainedStates st;
    const Recipe r = training_recipe(s.precision, s.framework);
    if (s.method == Method::lora || s.method == Method::qlora) lora_or_qlora(s, m, p, r, b, st);
    else if (s.method == Method::llama_adapter || s.method == Method::adapter_v2) adapter_states(s, m, p, r, b, st);
    else full_or_freeze(s, m, p, r, b, st);
    // A layer stack is one unit of the step timeline (stack_training.cpp): all its gradients appear when
    // its backward starts, beside all its saved activations (an upper bound by the gradients of the layers
    // whose backward has not run yet).
    if (m.stack) {
        st.grad_head = st.grad_total;
        st.grad_per_layer = 0;
    }
    return st;
}

}  // namespace vramcalc::detail
