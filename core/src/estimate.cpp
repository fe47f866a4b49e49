// Scenario -> Bill. This file assembles the bill; the byte figures per format and recipe live in
// recipes.cpp. Scope today: model states (weights, master weights, gradients, optimizer), LoRA/QLoRA,
// inference weights and KV cache, CUDA context. Activations, logits and the step timeline follow
// (training issue), as do sharding and model parallelism (distributed issue).
#include "vramcalc/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "recipes.hpp"

namespace vramcalc {
namespace {

using detail::Recipe;

std::int64_t to_bytes(double b) {
    if (!(b >= 0)) return 0;
    if (b >= 9.0e18) return INT64_MAX;  // saturate: absurd inputs never wrap
    return static_cast<std::int64_t>(std::ceil(b));
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
    if (!g.is_linear || g.category == ParamCategory::lm_head) return false;
    if (l.all_linear) return true;
    return std::find(l.targets.begin(), l.targets.end(), g.name) != l.targets.end();
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
// HF transformers "Model training anatomy" measured 1343 MB (MiB, nvidia-smi) after torch CUDA
// initialisation on a V100. A per-generation table is planned; this one figure stands for all.
constexpr double kCudaContextBytes = 1343.0 * 1048576.0;

void training(const Scenario& s, Bill& b, BillWriter& w) {
    const ModelSpec& m = s.model;
    const ParamBreakdown p = count_parameters(m);
    const Recipe r = detail::training_recipe(s.precision, s.framework);
    const double total = static_cast<double>(p.total);

    if (s.method == Method::full || s.method == Method::freeze) {
        const double trainable = s.method == Method::full ? total : freeze_trainable(m, s.trainable_layers);
        b.trainable_parameters = to_bytes(trainable);
        w.add("weights", total * r.weight, fmt_count(total) + " params x " + fmt_bytes_per(r.weight) + " (" + r.note + ")");
        w.add("master_weights", trainable * r.master, fmt_count(trainable) + " trainable x 4 B fp32 master copy");
        w.add("gradients", trainable * r.grad, fmt_count(trainable) + " trainable x " + fmt_bytes_per(r.grad));
        double opt = 0;
        if (s.optimizer == Optimizer::adafactor) {
            if (m.count_only) opt = 4.0 * trainable;
            else
                for (const auto& g : m.params) opt += adafactor_bytes(g.rows, g.cols, g.count);
            if (s.method == Method::freeze) opt *= trainable / total;
        } else {
            opt = trainable * detail::optimizer_bytes_per_param(s.optimizer, r.state);
        }
        w.add("optimizer", opt, std::string(to_string(s.optimizer)) + " states for " + fmt_count(trainable) + " params");
        return;
    }

    // LoRA / QLoRA: frozen base + adapters. PEFT creates adapters in fp32 (autocast_adapter_dtype=True,
    // the default since PEFT 0.12); torchtune and LitGPT build them in the model dtype.
    const bool half_true = s.precision == Precision::bf16 || s.precision == Precision::fp16;
    const double adapter_bytes = (s.framework == Framework::hf || !half_true) ? 4.0 : 2.0;
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
    double trainable = adapters;
    const double embed_trainable = s.lora.train_embeddings ? static_cast<double>(p.embeddings + p.lm_head) : 0.0;
    trainable += embed_trainable;
    b.trainable_parameters = to_bytes(trainable);

    if (s.method == Method::qlora) {
        const std::string fmt = s.quantization == Quantization::nf4 ? "nf4"
                                : s.quantization == Quantization::nf4_dq ? "nf4-dq" : "int8";
        // bitsandbytes replaces the decoder's nn.Linear layers; lm_head stays unquantized
        // (transformers get_keys_to_not_convert). PEFT's prepare_model_for_kbit_training casts the
        // remaining 16-bit parameters (embeddings, norms, lm_head) to fp32.
        const double other_bytes = s.framework == Framework::hf ? 4.0 : 2.0;
        double q = 0, other = 0;
        for (const auto& g : m.params) {
            const double each_bias = g.bias ? static_cast<double>(g.rows) * other_bytes : 0.0;
            if (g.is_linear && g.category != ParamCategory::lm_head) {
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
    w.add("gradients", adapters * adapter_bytes + embed_trainable * r.grad, fmt_count(trainable) + " trainable params");
    const double opt = s.optimizer == Optimizer::adafactor
                           ? adafactor
                           : trainable * detail::optimizer_bytes_per_param(s.optimizer, adapter_bytes);
    w.add("optimizer", opt, std::string(to_string(s.optimizer)) + " states for " + fmt_count(trainable) + " params");
    b.warnings.push_back("activations and logits are not modelled yet: the bill holds model states only");
}

double kv_element_bytes(const Scenario& s) {
    switch (s.kv_dtype) {
        case KvDtype::fp16:
        case KvDtype::bf16: return 2;
        case KvDtype::fp8: return 1;
        case KvDtype::q8_0: return 34.0 / 32.0;  // ggml block_q8_0
        case KvDtype::q4_0: return 18.0 / 32.0;  // ggml block_q4_0
        case KvDtype::automatic: return s.weights == "fp32" ? 4 : 2;  // the compute dtype
    }
    return 2;
}

void inference(const Scenario& s, Bill& b, BillWriter& w) {
    const ModelSpec& m = s.model;
    const ParamBreakdown p = count_parameters(m);
    const double plain = detail::plain_dtype_bytes(s.weights);
    const double other_bytes = plain > 0 ? plain : 2.0;  // unquantized tensors stay 16-bit
    double weights = 0;
    if (m.count_only) {
        weights = static_cast<double>(p.total) * (plain > 0 ? plain : 2.0);
        if (plain <= 0) b.warnings.push_back("quantized formats need the model's shapes: counted at 16 bit");
    } else {
        for (const auto& g : m.params) {
            const bool quantized = g.is_linear && g.category != ParamCategory::lm_head;
            double bytes = quantized ? detail::quantized_linear_bytes(s.weights, g.rows, g.cols)
                                     : static_cast<double>(g.rows * g.cols) * other_bytes;
            if (g.bias) bytes += static_cast<double>(g.rows) * other_bytes;
            weights += bytes * static_cast<double>(g.count);
        }
    }
    w.add("weights", weights, fmt_count(static_cast<double>(p.total)) + " params as " + s.weights);
    if (s.weights.rfind("gguf-", 0) == 0 && s.weights.find("_k_m") != std::string::npos)
        b.warnings.push_back("GGUF *_K_M presets mix tensor types; the base type stands for the mix here");

    // KV cache (Kwon et al. 2023, vLLM paper Sec. 3, generalised to GQA): 2 (K and V) x layers x kv_heads
    // x head_dim x bytes per token. MLA in transformers expands the latent: per layer and token it stores
    // heads x (qk_nope + qk_rope) for K and heads x v_head_dim for V.
    const double tokens = static_cast<double>(s.prompt_len + s.gen_len) * static_cast<double>(s.batch);
    double per_token_elems = 0;
    if (m.count_only) {
        b.warnings.push_back("the KV cache needs the model's shapes: give a config.json");
    } else if (m.attention == AttentionKind::mla) {
        per_token_elems = static_cast<double>(m.layers * m.heads * (m.head_dim + m.v_head_dim));
    } else {
        per_token_elems = 2.0 * static_cast<double>(m.layers * m.kv_heads * m.head_dim);
    }
    const double eb = kv_element_bytes(s);
    w.add("kv_cache", per_token_elems * eb * tokens,
          std::to_string(static_cast<long long>(per_token_elems * eb)) + " B/token x " + fmt_count(tokens) + " tokens (" +
              std::to_string(s.batch) + " x " + std::to_string(s.prompt_len + s.gen_len) + ")");
    // transformers' generate computes logits for the last position only and upcasts them to fp32.
    w.add("logits", static_cast<double>(s.batch) * static_cast<double>(m.vocab) * 4.0,
          "last-position logits, fp32: batch x vocab x 4 B");
    if (m.arch == Arch::encoder_decoder)
        b.warnings.push_back("encoder-decoder inference: the cross-attention cache is not modelled yet");
}

Bill estimate_once(const Scenario& s) {
    Bill b;
    const ParamBreakdown p = count_parameters(s.model);
    b.model_name = s.model.name;
    b.parameters = p.total;
    b.active_parameters = p.active;
    b.gpu = s.gpu;
    BillWriter w{b};
    if (s.workload == Workload::train) training(s, b, w);
    else inference(s, b, w);
    if (s.num_gpus > 1 || s.sharding != Sharding::none || s.tp * s.pp * s.cp * s.ep > 1)
        b.warnings.push_back("multi-GPU layouts are not modelled yet: the bill is for one GPU holding everything");

    std::int64_t allocated = 0;
    for (const auto& c : b.components) allocated = std::min<std::int64_t>(INT64_MAX / 2, allocated + c.bytes);
    b.peak_allocated_bytes = allocated;
    b.peak_reserved_bytes = allocated;  // the caching allocator's slack is not modelled yet
    w.add("cuda_context", kCudaContextBytes, "CUDA context and kernels, 1343 MiB (HF training-anatomy measurement)");
    b.device_bytes = b.peak_reserved_bytes + to_bytes(kCudaContextBytes);
    b.fits = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
    return b;
}

}  // namespace

std::int64_t solve_max_batch(const Scenario& base, std::int64_t cap) {
    Scenario s = base;
    const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
    auto fits = [&](std::int64_t n) {
        (s.workload == Workload::train ? s.micro_batch : s.batch) = n;
        return static_cast<double>(estimate_once(s).device_bytes) <= budget;
    };
    if (!fits(1)) return 0;
    if (fits(cap)) return cap;
    std::int64_t lo = 1, hi = cap;  // fits(lo), !fits(hi): memory is non-decreasing in the batch
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

Bill estimate(const Scenario& s) {
    Bill b = estimate_once(s);
    const std::int64_t cap = 1 << 16;
    const std::int64_t n = solve_max_batch(s, cap);
    // Only meaningful when memory grows with the batch (today: inference KV cache).
    if (n < cap) (s.workload == Workload::train ? b.max_micro_batch : b.max_batch) = n;
    return b;
}

}  // namespace vramcalc
