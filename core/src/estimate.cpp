// Scenario -> Bill. This file assembles the bill; the byte figures per format and recipe live in
// recipes.cpp. Scope today: model states (weights, master weights, gradients, optimizer), LoRA/QLoRA,
// inference weights and KV cache, CUDA context. Activations, logits and the step timeline follow
// (training issue), as do sharding and model parallelism (distributed issue).
#include "vramcalc/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <map>

#include "activations.hpp"
#include "checked.hpp"
#include "recipes.hpp"
#include "parallel.hpp"
#include "rlhf.hpp"
#include "inference.hpp"
#include "training_step.hpp"

namespace vramcalc {
namespace {

using detail::Recipe;

// torchtune's CEWithChunkedOutputLoss splits the logits into num_output_chunks = 8 (its default, which the
// recipes keep).
constexpr double kTorchtuneLossChunks = 8;

std::int64_t to_bytes(double b) {
    return detail::saturated_bytes(b);  // checked.hpp: saturates, never wraps
}

std::string fmt_count(double n) {
    char buf[64];
    if (n >= 1e9) std::snprintf(buf, sizeof buf, "%.2fB", n / 1e9);
    else if (n >= 1e6) std::snprintf(buf, sizeof buf, "%.1fM", n / 1e6);
    else std::snprintf(buf, sizeof buf, "%.0f", n);
    return buf;
}

std::string fmt_bytes_per(double b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g B", b);
    return buf;
}

struct BillWriter {
    Bill& b;
    void add(const char* id, double bytes, std::string detail) {
        if (bytes <= 0) return;
        b.components.push_back({id, to_bytes(bytes), std::move(detail)});
    }
};

// PEFT matches target_modules against module names by suffix; our inventory names are the HF
// leaf names. "all-linear" means every nn.Linear except the output layer (PEFT's rule).
bool lora_targets(const LoraSetup& l, const ParamGroup& g) {
    if (!g.is_linear) return false;
    if (l.all_linear) return g.category != ParamCategory::lm_head;
    const auto& t = lora_target_names(l);  // empty targets: the model's default
    return std::find(t.begin(), t.end(), g.name) != t.end();
}

// Parameters of the last N layers (method "freeze", LLaMA-Factory's freeze_trainable_layers): the
// per-layer tensors of the decoder stack, averaged over layers (MoE/dense mixes differ by layer).
double freeze_trainable(const ModelSpec& m, std::int64_t n) {
    double per_layer_total = 0;
    for (const auto& g : m.params)
        if (g.layer_stack == 0 && g.count >= m.layers && g.category != ParamCategory::embeddings &&
            g.category != ParamCategory::lm_head)
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

// CUDA context + kernels + library handles: not seen by torch's counters, seen by nvidia-smi.
//  - Volta/Turing stacks (CUDA < 11.7 loads every kernel eagerly): 1343 MiB measured after torch CUDA
//    initialisation on a V100 (HF transformers docs, model_memory_anatomy.md).
//  - Newer GPUs run with lazy module loading (PyTorch >= 1.13 default, pytorch PR #86509): that PR measured
//    287,047,680 B for the context with lazy loading (636 MiB eager).
struct CudaContext {
    double bytes;
    const char* detail;
};
CudaContext cuda_context(const GpuSpec& g) {
    if (g.arch == "volta" || g.arch == "turing" || g.arch == "pascal")
        return {1343.0 * 1048576.0, "CUDA context, eager kernel loading: 1343 MiB (HF training-anatomy, V100)"};
    return {287047680.0, "CUDA context with lazy kernel loading: 274 MiB (pytorch PR #86509)"};
}

// PyTorch's caching allocator reserves more than it hands out (512 B rounding, 2 MiB and 20 MiB
// segments, fragmentation). Least-squares fit of max_memory_reserved on max_memory_allocated over 9
// single-GPU training runs logged in huggingface/peft#1469: reserved = 1.004 x allocated + 0.38 GiB.
double reserved_from_allocated(double allocated) { return allocated > 0 ? 1.004 * allocated + 0.38 * 1073741824.0 : 0; }

// Bytes of the loss over the vocabulary for T tokens (section "Logits and loss" of docs/methodology.md).
struct LossMemory {
    double saved = 0, forward_peak = 0, backward_peak = 0;
    std::string detail;
};

LossMemory loss_memory(const Scenario& s, const ModelSpec& m, double c, double T, bool head_trained) {
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    LossMemory l;
    if (m.arch == Arch::encoder) return l;  // BERT-style models here are counted without a task head
    const double upcast = c == 4 ? 0 : 4;  // .float() on fp32 logits is a no-op
    if (s.compile && s.loss != Loss::fused) {
        // Compiled cross-entropy (torchtune training.compile_loss): inductor fuses the upcast, log-softmax
        // and NLL into one kernel whose backward needs only its input and a per-row fp32 log-sum-exp, so no
        // fp32 log-softmax is kept. standard: the model's output.float() logits (fp32) are that input;
        // chunked: the 16-bit logit chunks are, and one chunk's gradient exists at a time in backward.
        const bool chunked = s.loss == Loss::chunked;
        const double chunks = chunked ? kTorchtuneLossChunks : 1.0;
        const double in_bytes = chunked || upcast == 0 ? c : upcast;  // the 16-bit chunks, or the fp32 logits
        l.saved = in_bytes * V * T + 4 * T;
        l.forward_peak = chunked ? 0 : c * V * T;
        l.backward_peak = in_bytes * V * T / chunks;
        l.detail = std::string(chunked ? "chunked" : "full") + " logits, compiled cross-entropy (no fp32 log-softmax kept)";
        return l;
    }
    switch (s.loss) {
        case Loss::standard:
            // transformers: logits for every position in the compute dtype, upcast to fp32 for the loss;
            // cross_entropy saves its fp32 log-softmax. Backward: the fp32 gradient, cast back to c.
            l.saved = 4 * V * T;
            l.forward_peak = (c + upcast) * V * T;
            l.backward_peak = (upcast + c) * V * T;
            l.detail = "full logits (" + std::to_string(static_cast<int>(c)) + " B) + fp32 upcast + fp32 log-softmax";
            if (m.model_type == "qwen") {
                // Qwen (1.x) remote code, QWenLMHeadModel.forward: shift_logits = lm_logits[..., :-1, :].contiguous()
                // copies the 16-bit logits before the loss, and the slice's backward builds a zero-filled
                // full-size gradient before copying into it.
                l.forward_peak += c * V * T;
                l.backward_peak += c * V * T;
                l.detail += " + shifted copy (Qwen remote code)";
            }
            break;
        case Loss::chunked: {
            // torchtune CEWithChunkedOutputLoss (8 chunks) / LitGPT chunked_cross_entropy (128 positions):
            // each chunk is upcast and its log-softmax saved; only one chunk's upcast exists at a time.
            const double chunks = s.framework == Framework::litgpt
                                      ? std::max(1.0, std::ceil(static_cast<double>(s.seq_len) / 128.0))
                                      : kTorchtuneLossChunks;
            l.saved = 4 * V * T;
            l.forward_peak = c * V * T + upcast * V * T / chunks;
            l.backward_peak = c * V * T + upcast * V * T / chunks;
            l.detail = "chunked cross-entropy: logits + fp32 log-softmax, one chunk upcast at a time";
            break;
        }
        case Loss::fused: {
            // Liger fused linear cross-entropy: logits exist one chunk of tokens at a time; chunk =
            // next_power_of_2(ceil(T / ceil(V / h))). The input gradient (T x h) is computed in forward.
            const double chunk = std::pow(2.0, std::ceil(std::log2(std::max(1.0, std::ceil(T / std::ceil(V / h))))));
            l.saved = c * h * T + (head_trained ? 4 * V * h : 0);
            l.forward_peak = (c + 4) * V * std::min(chunk, T);
            l.backward_peak = 0;
            l.detail = "fused linear cross-entropy: no full logits";
            break;
        }
    }
    return l;
}

// LitGPT's GPT always builds lm_head as its own nn.Linear, and its Hugging Face converter fills it from
// the tied embedding when the checkpoint has no lm_head.weight, so a tied model holds two copies
// (litgpt/model.py GPT.__init__; scripts/convert_hf_checkpoint.py).
ModelSpec litgpt_untied(const ModelSpec& src) {
    ModelSpec m = src;
    m.tied_embeddings = false;
    ParamGroup g;
    g.name = "lm_head";
    g.category = ParamCategory::lm_head;
    g.rows = m.vocab;
    g.cols = m.hidden;
    g.is_linear = true;
    m.params.push_back(g);
    return m;
}

void training(const Scenario& s, Bill& b, BillWriter& w) {
    const bool untie = s.framework == Framework::litgpt && s.model.tied_embeddings && !s.model.count_only &&
                       s.model.arch == Arch::decoder;
    const ModelSpec untied = untie ? litgpt_untied(s.model) : ModelSpec{};
    const ModelSpec& m = untie ? untied : s.model;
    const ParamBreakdown p = count_parameters(m);
    const Recipe r = detail::training_recipe(s.precision, s.framework);
    const double total = static_cast<double>(p.total);
    const double L = static_cast<double>(std::max<i64>(1, m.layers));
    const bool lora = s.method == Method::lora || s.method == Method::qlora;
    const double head_params = static_cast<double>(p.embeddings + p.lm_head) + static_cast<double>(m.hidden);

    // ---- Model states (static through the step) ----
    double trainable = 0, grad_total = 0, grad_per_layer = 0, grad_head = 0, opt = 0, opt_temp = 0;
    double adapter_bytes = 4;
    bool paged = s.optimizer == Optimizer::paged_adamw_8bit;
    if (!lora) {
        trainable = s.method == Method::full ? total : freeze_trainable(m, s.trainable_layers);
        b.trainable_parameters = to_bytes(trainable);
        w.add("weights", total * r.weight, fmt_count(total) + " params x " + fmt_bytes_per(r.weight) + " (" + r.note + ")");
        w.add("master_weights", trainable * r.master, fmt_count(trainable) + " trainable x 4 B fp32 master copy");
        if (s.optimizer == Optimizer::adafactor) {
            if (m.count_only) opt = 4.0 * trainable;
            else
                for (const auto& g : m.params) opt += adafactor_bytes(g.rows, g.cols, g.count);
            if (s.method == Method::freeze) opt *= trainable / total;
        } else {
            opt = trainable * detail::optimizer_bytes_per_param(s.optimizer, r.state);
        }
        grad_total = trainable * r.grad;
        if (s.method == Method::full) {
            grad_head = std::min(head_params, total) * r.grad;
            grad_per_layer = (grad_total - grad_head) / L;
        } else {
            grad_per_layer = grad_total / static_cast<double>(std::min(s.trainable_layers, m.layers));
        }
        // torch.optim.AdamW's default foreach implementation builds sqrt(exp_avg_sq) for the whole
        // parameter group before the update (torch/optim/adamw.py, _multi_tensor_adamw): one state's size.
        if (s.optimizer == Optimizer::adamw) opt_temp = trainable * r.state;
    } else {
        // LoRA / QLoRA: frozen base + adapters. PEFT creates adapters in fp32 (autocast_adapter_dtype=True,
        // the default since PEFT 0.12); torchtune and LitGPT build them in the model dtype.
        const bool half_true = s.precision == Precision::bf16 || s.precision == Precision::fp16;
        adapter_bytes = (s.framework == Framework::hf || !half_true) ? 4.0 : 2.0;
        double adapters = 0, adafactor = 0;
        const double rank = static_cast<double>(s.lora.rank);
        for (const auto& g : m.params) {
            if (!lora_targets(s.lora, g)) continue;
            adapters += rank * static_cast<double>(g.rows + g.cols) * static_cast<double>(g.count);  // A: r x in, B: out x r
            adafactor += adafactor_bytes(s.lora.rank, g.cols, g.count) + adafactor_bytes(g.rows, s.lora.rank, g.count);
        }
        if (m.count_only) b.warnings.push_back("LoRA needs the model's shapes: give a config.json, not only a parameter count");
        if (adapters == 0 && !m.count_only)
            b.warnings.push_back("no module matches the LoRA targets: use \"all-linear\" or names such as q_proj, v_proj");
        const double embed_trainable = s.lora.train_embeddings ? static_cast<double>(p.embeddings + p.lm_head) : 0.0;
        trainable = adapters + embed_trainable;
        b.trainable_parameters = to_bytes(trainable);
        if (s.method == Method::qlora) {
            const std::string fmt = detail::qlora_format(s.quantization);
            // bitsandbytes replaces the decoder's nn.Linear layers; lm_head stays unquantized
            // (transformers get_keys_to_not_convert). PEFT's prepare_model_for_kbit_training casts the
            // remaining 16-bit parameters (embeddings, norms, lm_head) to fp32.
            // LitGPT quantises through Lightning's BitsandbytesPrecision, whose init context swaps every
            // torch.nn.Linear built inside it for the 4-bit class, lm_head included
            // (lightning/fabric/plugins/precision/bitsandbytes.py, init_context without ignore_modules).
            const double other_bytes = s.framework == Framework::hf ? 4.0 : 2.0;
            const bool head_quantized = s.framework == Framework::litgpt;
            double q = 0, other = 0;
            for (const auto& g : m.params) {
                const double each_bias = g.bias ? static_cast<double>(g.rows) * other_bytes : 0.0;
                if (g.is_linear && (g.category != ParamCategory::lm_head || head_quantized)) {
                    q += (detail::quantized_linear_bytes(fmt, g.rows, g.cols) + each_bias) * static_cast<double>(g.count);
                } else {
                    other += static_cast<double>(g.numel_each()) * static_cast<double>(g.count) * other_bytes;
                }
            }
            w.add("weights", q + other, fmt_count(static_cast<double>(p.linear)) + " params in " + fmt +
                                            " linear layers + the rest at " + fmt_bytes_per(other_bytes));
        } else {
            w.add("weights", total * r.weight, fmt_count(total) + " frozen params x " + fmt_bytes_per(r.weight));
        }
        w.add("lora", adapters * adapter_bytes + embed_trainable * r.weight,
              fmt_count(adapters) + " adapter params (rank " + std::to_string(s.lora.rank) + ") x " + fmt_bytes_per(adapter_bytes));
        grad_total = adapters * adapter_bytes + embed_trainable * r.grad;
        grad_head = embed_trainable * r.grad;
        grad_per_layer = adapters * adapter_bytes / L;
        // Trainable embeddings / lm_head (PEFT modules_to_save) are deep copies of the original modules, so
        // they keep the model's dtype, and torch AdamW keeps their states in that dtype (recipe state bytes).
        opt = s.optimizer == Optimizer::adafactor
                  ? adafactor
                  : adapters * detail::optimizer_bytes_per_param(s.optimizer, adapter_bytes) +
                        embed_trainable * detail::optimizer_bytes_per_param(s.optimizer, r.state);
        if (s.optimizer == Optimizer::adamw) opt_temp = adapters * adapter_bytes + embed_trainable * r.state;
    }
    // bitsandbytes paged optimizers keep their states in CUDA unified memory (cudaMallocManaged), which
    // torch's allocator counters do not see; nvidia-smi does.
    const double opt_in_torch = paged ? 0 : opt;
    double static_bytes = 0;
    for (const auto& c : b.components) static_bytes += static_cast<double>(c.bytes);
    static_bytes += opt_in_torch;

    // ---- Activations, loss and the step ----
    if (m.count_only) {
        b.warnings.push_back("activations need the model's shapes: give a config.json, not only a parameter count");
    }
    detail::ActivationSetup a;
    a.compute = s.precision == Precision::fp32 ? 4 : 2;
    // The residual stream's dtype: the model's own (fp32 under AMP); under QLoRA, fp32 where PEFT's
    // prepare_model_for_kbit_training upcast the embeddings (hf), else the compute dtype.
    a.residual = s.method == Method::qlora ? (s.framework == Framework::hf ? 4 : a.compute) : std::max(r.weight, a.compute);
    a.autocast = (s.precision == Precision::bf16_mixed || s.precision == Precision::fp16_mixed) && a.residual == 4;
    a.attention = s.attention;
    a.repeat_kv = s.attention != Attention::flash;
    a.train_linears = !lora;
    a.frozen_linears_save_input = s.method == Method::qlora && s.framework != Framework::torchtune;
    a.compiled = s.compile;
    a.fused_qkv = s.framework == Framework::litgpt;
    a.train_norms = !lora;
    a.lora = lora;
    a.lora_setup = s.lora;
    a.adapter_bytes = adapter_bytes;
    const double bsz = static_cast<double>(s.micro_batch), seq = static_cast<double>(s.seq_len), T = bsz * seq;

    detail::StepInputs in;
    in.static_bytes = static_bytes;
    in.grad_total = grad_total;
    in.grad_per_layer = grad_per_layer;
    in.grad_head = grad_head;
    in.optimizer_temp = opt_temp;
    in.layers = m.count_only ? 0 : m.layers;
    in.trained_layers = s.method == Method::freeze ? std::min(s.trainable_layers, m.layers) : in.layers;
    in.checkpointing = s.checkpointing;
    in.grads_persist = s.grad_accum > 1;
    in.optimizer_in_backward = s.optimizer_in_backward;
    std::string act_detail, loss_detail;
    if (!m.count_only) {
        const auto tensors = detail::layer_saved_tensors(m, a);
        const bool selective = s.checkpointing == Checkpointing::selective;
        in.layer_act = detail::layer_bytes(tensors, bsz, seq, selective);
        if (a.autocast) {
            // Autocast casts each fp32 linear weight to the compute dtype when the linear runs, and the
            // matmul's backward keeps that copy (grad_input = grad_output @ W), so from a layer's forward to
            // its backward the 16-bit copies of its linear weights live alongside its activations
            // (torch autocast `cached_cast`, aten/src/ATen/autocast_mode.cpp; the copies of trainable leaf
            // weights are also held in the autocast cache until the forward's autocast region exits).
            double stack_linear = 0;
            for (const auto& g : m.params)
                if (g.is_linear && g.category != ParamCategory::lm_head)
                    stack_linear += static_cast<double>(g.rows * g.cols) * static_cast<double>(g.count);
            const double stacks = static_cast<double>(m.layers + (m.arch == Arch::encoder_decoder ? m.encoder_layers : 0));
            in.layer_act += a.compute * stack_linear / std::max(1.0, stacks);
        }
        in.layer_input = detail::layer_input_bytes_per_token(m, a) * T;
        in.layer_transient = detail::layer_backward_transient_per_token(m, a) * T;
        double qlora_head_dequant = 0;
        if (s.method == Method::qlora) {
            // Dequantisation buffer: a 4/8-bit linear is dequantised to the compute dtype for every
            // matmul, forward and backward (bitsandbytes MatMul4Bit: F.dequantize_4bit(B, state).to(A.dtype);
            // torchao LinearNF4: weight.to(input.dtype)); the largest one is the transient that counts.
            // Lightning's plugin quantises from fp16 (`weight.to(dtype=torch.half)` in
            // _Linear4bit._quantize_weight), so dequantize_4bit returns fp16 and `.to(A.dtype)` makes a
            // second, bf16 copy; transformers quantises from the compute dtype (one copy).
            const double copies = s.framework == Framework::litgpt && s.precision != Precision::fp16 ? 2 : 1;
            double largest = 0, head = 0;
            for (const auto& g : m.params) {
                if (!g.is_linear) continue;
                if (g.category != ParamCategory::lm_head) largest = std::max(largest, static_cast<double>(g.rows * g.cols));
                else if (s.framework == Framework::litgpt) head = static_cast<double>(g.rows * g.cols);
            }
            in.layer_transient += copies * a.compute * largest;
            qlora_head_dequant = copies * a.compute * head;  // while the 4-bit lm_head runs (loss phase)
        }
        // Encoder-decoder models run the encoder stack too (counted as the same layer kind).
        if (m.arch == Arch::encoder_decoder) in.layers += m.encoder_layers, in.trained_layers += m.encoder_layers;
        // The final norm's saved tensors and the lm_head input (when trained).
        const double h = static_cast<double>(m.hidden);
        in.extra_act = (4 * h + (lora ? 0 : a.residual * h)) * T;
        const bool head_trained = !lora && s.method == Method::full;
        if (head_trained) in.extra_act += (a.autocast ? a.compute : a.residual) * h * T;
        const LossMemory lm = loss_memory(s, m, a.compute, T, head_trained);
        in.logits_saved = lm.saved;
        in.logits_forward_peak = lm.forward_peak + qlora_head_dequant;
        in.logits_backward_peak = lm.backward_peak + qlora_head_dequant;
        act_detail = fmt_count(in.layer_act) + " B per layer (" + std::to_string(s.micro_batch) + " x " +
                     std::to_string(s.seq_len) + " tokens, " + to_string(s.attention) + " attention, checkpointing " +
                     to_string(s.checkpointing) + ")";
        loss_detail = lm.detail;
    }
    // Several GPUs, sharding, offload: the most loaded rank's share (parallel.cpp).
    detail::apply_parallel_training(s, a, b, in, opt, opt_temp);
    const detail::StepPeak peak = detail::simulate_step(in);
    b.peak_phase = peak.phase;
    b.timeline = peak.timeline;
    b.cpu_bytes += to_bytes(peak.cpu_bytes);
    w.add("gradients", peak.gradients, "gradients present at the peak (" + fmt_count(trainable) + " trainable params)");
    w.add("optimizer", opt, std::string(to_string(s.optimizer)) + " states for " + fmt_count(trainable) + " params" +
                                (paged ? " (paged: CUDA unified memory, outside torch's counters)" : ""));
    w.add("activations", peak.activations, act_detail);
    w.add("logits", peak.logits, loss_detail);
    w.add("temporaries", peak.temporaries, "optimizer step / recomputed layer / backward transients at the peak");
    b.torch_uncounted_bytes = paged ? to_bytes(opt) : 0;
}

Bill estimate_once(const Scenario& s) {
    Bill b;
    const ParamBreakdown p = count_parameters(s.model);
    b.model_name = s.model.name;
    b.parameters = p.total;
    b.active_parameters = p.active;
    b.gpu = s.gpu;
    BillWriter w{b};
    detail::rule_of_thumb(s, b);
    if (s.workload == Workload::infer) {  // inference.cpp: engines place weights and KV per GPU themselves
        const CudaContext context = cuda_context(b.gpu);
        detail::inference(s, b, {reserved_from_allocated, context.bytes, context.detail});
        return b;
    }
    if (s.rlhf.algorithm != RlhfAlgorithm::none)
        detail::rlhf_components(s, b, [](const Scenario& r, Bill& rb) {  // several models: rlhf.cpp
            BillWriter rw{rb};
            training(r, rb, rw);
        });
    else
        training(s, b, w);

    std::int64_t allocated = 0;
    for (const auto& c : b.components) allocated = std::min<std::int64_t>(INT64_MAX / 2, allocated + c.bytes);
    b.peak_allocated_bytes = allocated - b.torch_uncounted_bytes;
    b.peak_reserved_bytes =
        detail::saturated_bytes(reserved_from_allocated(static_cast<double>(b.peak_allocated_bytes)), detail::kSaturatedTotalBytes);
    w.add("allocator_slack", static_cast<double>(b.peak_reserved_bytes - b.peak_allocated_bytes),
          "caching allocator: reserved = 1.004 x allocated + 0.38 GiB (fit to huggingface/peft#1469 runs)");
    const CudaContext context = cuda_context(b.gpu);
    w.add("cuda_context", context.bytes, context.detail);
    b.device_bytes = b.peak_reserved_bytes + b.torch_uncounted_bytes + to_bytes(context.bytes);
    b.fits = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
    return b;
}

// The largest value n in [1, cap] of one scenario field for which device_bytes stays within the target
// utilisation (memory is non-decreasing in the field); 0 when even 1 does not fit.
template <class SetField>
std::int64_t largest_fitting(const Scenario& base, std::int64_t cap, SetField set) {
    Scenario s = base;
    const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
    auto fits = [&](std::int64_t n) {
        set(s, n);
        return static_cast<double>(estimate_once(s).device_bytes) <= budget;
    };
    if (!fits(1)) return 0;
    if (fits(cap)) return cap;
    std::int64_t lo = 1, hi = cap;  // fits(lo), !fits(hi)
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace

std::int64_t solve_max_batch(const Scenario& s, std::int64_t cap) {
    return largest_fitting(s, cap, [](Scenario& t, std::int64_t n) {
        (t.workload == Workload::train ? t.micro_batch : t.batch) = n;
    });
}

std::int64_t solve_max_seq_len(const Scenario& s, std::int64_t cap) {
    return largest_fitting(s, cap, [](Scenario& t, std::int64_t n) { t.seq_len = n; });
}

Bill estimate_peak(const Scenario& s) { return estimate_once(s); }

Bill estimate(const Scenario& s) {
    Bill b = estimate_once(s);
    // Absurd sizes saturate (checked.hpp) instead of wrapping; say so rather than print a cap as a figure.
    for (const auto& c : b.components)
        if (c.bytes >= detail::kSaturatedBytes) {
            b.warnings.push_back("byte counts saturated at 2^56 B (64 PiB): the sizes are absurd and the real figure is larger");
            break;
        }
    if (s.workload == Workload::infer) {
        const detail::InferenceLimits lim = detail::inference_limits(s, estimate_once);
        if (!s.model.count_only) {
            b.max_batch = b.max_concurrent_sequences = lim.max_concurrent_sequences;
            b.max_context = lim.max_context;
        }
        return b;
    }
    const std::int64_t cap = 1 << 16;
    const std::int64_t n = solve_max_batch(s, cap);
    // Only meaningful when memory grows with the batch (not for parameter-count-only models).
    if (n < cap) (s.workload == Workload::train ? b.max_micro_batch : b.max_batch) = n;
    if (s.workload == Workload::train && !s.model.count_only) {
        const std::int64_t len = solve_max_seq_len(s, std::int64_t{1} << 24);
        if (len < (std::int64_t{1} << 24)) b.max_seq_len = len;
    }
    return b;
}

namespace {

// Largest n in [1, cap] with fits(n), for a non-decreasing memory: gallops up from `known` (a value
// already known to fit, 0 if none) and then bisects. Gives largest_fitting's answer in fewer steps when
// `known` is close, as it is for the next larger GPU of a catalog.
template <class Fits>
std::int64_t largest_from(std::int64_t known, std::int64_t cap, Fits fits) {
    std::int64_t lo = known, step = 1;
    if (lo == 0) {
        if (!fits(1)) return 0;
        lo = 1;
    }
    std::int64_t hi = cap + 1;  // first value known not to fit (cap + 1: none known)
    while (lo < cap) {
        const std::int64_t next = std::min(cap, lo + step);
        if (!fits(next)) {
            hi = next;
            break;
        }
        lo = next;
        step *= 2;
    }
    if (lo == cap) return cap;
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace

std::vector<CatalogFit> solve_catalog(const Scenario& base, const std::vector<GpuSpec>& gpus) {
    std::vector<CatalogFit> out(gpus.size());
    // Training (without RLHF, whose rollout engine sizes itself by the GPU's memory): the bill sees a GPU
    // only through its vendor, architecture (the CUDA context) and bf16 support, so GPUs of one such class
    // share every estimate, and a larger budget never gives a smaller answer. Each class is solved in order
    // of budget, each search starting from the previous answer. Inference and RLHF: one solve per GPU.
    const bool shared = base.workload == Workload::train && base.rlhf.algorithm == RlhfAlgorithm::none;
    std::vector<std::size_t> order(gpus.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto cls = [&](const GpuSpec& g) { return std::tie(g.vendor, g.arch, g.bf16); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tuple(cls(gpus[a]), gpus[a].memory_bytes) < std::tuple(cls(gpus[b]), gpus[b].memory_bytes);
    });
    std::map<std::pair<int, std::int64_t>, std::int64_t> device;  // (field, value) -> device bytes, this class
    std::int64_t prev_batch = 0, prev_len = 0;
    const GpuSpec* class_of = nullptr;
    const std::int64_t batch_cap = 1 << 16, len_cap = std::int64_t{1} << 24;
    for (std::size_t i : order) {
        const GpuSpec& g = gpus[i];
        Scenario s = base;
        s.gpu = g;
        CatalogFit& f = out[i];
        f.gpu = g;
        const Bill b = estimate_once(s);
        f.device_bytes = b.device_bytes;
        f.fits = b.fits;
        if (s.workload == Workload::infer) {
            const detail::InferenceLimits lim = detail::inference_limits(s, estimate_once);
            f.max_batch = f.max_concurrent_sequences = lim.max_concurrent_sequences;
            f.max_context = lim.max_context;
            continue;
        }
        if (!shared) {
            f.max_batch = solve_max_batch(s, batch_cap);
            if (!s.model.count_only) f.max_seq_len = solve_max_seq_len(s, len_cap);
            continue;
        }
        if (!class_of || cls(*class_of) != cls(g)) {
            device.clear();
            prev_batch = prev_len = 0;
        }
        class_of = &g;
        const double budget = static_cast<double>(g.memory_bytes) * s.target_utilization;
        auto fits = [&](int field, std::int64_t n) {
            auto [it, fresh] = device.try_emplace({field, n}, 0);
            if (fresh) {
                Scenario t = s;
                (field == 0 ? t.micro_batch : t.seq_len) = n;
                it->second = estimate_once(t).device_bytes;
            }
            return static_cast<double>(it->second) <= budget;
        };
        f.max_batch = prev_batch = largest_from(prev_batch, batch_cap, [&](std::int64_t n) { return fits(0, n); });
        if (!s.model.count_only)
            f.max_seq_len = prev_len = largest_from(prev_len, len_cap, [&](std::int64_t n) { return fits(1, n); });
    }
    return out;
}

}  // namespace vramcalc
