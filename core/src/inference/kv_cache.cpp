#include "inference/kv_cache.hpp"

#include <algorithm>
#include <cmath>

#include "inference/placement.hpp"

namespace vramcalc {

double kv_bytes_per_token(const ModelSpec& m, double element_bytes, bool mla_latent) {
    const auto L = static_cast<double>(attention_layers(m));
    if (m.attention == AttentionKind::mla && mla_latent)
        return static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * L * element_bytes;
    if (m.attention == AttentionKind::mla)
        return static_cast<double>(m.heads * (m.head_dim + m.v_head_dim)) * L * element_bytes;
    return 2.0 * L * static_cast<double>(m.kv_heads * m.head_dim) * element_bytes;
}

namespace detail {
namespace {

// MLA: engines that know it (vLLM, llama.cpp) keep the latent; transformers expands K and V per head.
bool mla_latent(const Scenario& s) {
    return s.model.attention == AttentionKind::mla &&
           (s.framework == Framework::vllm || s.framework == Framework::llamacpp);
}

}  // namespace

// Does the engine keep only the window for sliding-window layers? vLLM (hybrid KV-cache manager) and
// llama.cpp (SWA cache) do; transformers does for Gemma-2's HybridCache, not for Mistral's DynamicCache;
// LitGPT and torchtune size every layer for the full length.
bool engine_trims_window(const Scenario& s) {
    if (s.framework == Framework::vllm || s.framework == Framework::llamacpp) return true;
    return s.framework == Framework::hf && s.model.traits.hf_trims_window;
}

// Gemma-2 alternates: layer i is local (sliding) when i is even (Gemma2DecoderLayer, `not bool(layer_idx % 2)`);
// Mistral v0.1 slides in every layer.
bool layer_slides(const ModelSpec& m, i64 i) {
    if (m.sliding_window <= 0) return false;
    if (m.traits.alternating_window) return i % 2 == 0;
    if (m.traits.global_every > 0) return (i + 1) % m.traits.global_every != 0;  // Gemma-3: 5 local, 1 global
    return true;
}

// KV bytes per token for one layer on one GPU (K and V, heads sharded by tensor parallelism; vLLM
// replicates KV heads when tp exceeds them, so a GPU holds at least one).
double kv_layer_token_bytes(const Scenario& s, double eb) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    const double L = static_cast<double>(std::max<i64>(1, attention_layers(m)));
    if (m.attention == AttentionKind::mla) {
        if (mla_latent(s)) return kv_bytes_per_token(m, eb, true) / L;  // latent: replicated across TP ranks
        const double heads = std::ceil(static_cast<double>(m.heads) / static_cast<double>(p.tp));
        return heads * static_cast<double>(m.head_dim + m.v_head_dim) * eb;
    }
    const double kv = std::max(1.0, std::ceil(static_cast<double>(m.kv_heads) / static_cast<double>(p.tp)));
    return 2.0 * kv * static_cast<double>(m.head_dim) * eb;
}

double kv_element_bytes(const Scenario& s) {
    switch (s.kv_dtype) {
        case KvDtype::fp16:
        case KvDtype::bf16: return 2;
        case KvDtype::fp8: return 1;                 // e4m3/e5m2, one scale per layer (vLLM kv_cache_dtype fp8)
        case KvDtype::q8_0: return 34.0 / 32.0;      // ggml block_q8_0
        case KvDtype::q4_0: return 18.0 / 32.0;      // ggml block_q4_0
        case KvDtype::automatic: return compute_bytes(s);  // llama.cpp's default cache type is f16 as well
    }
    return 2;
}

double mamba_state_bytes_per_layer(const Scenario& s) {
    const HybridSpec& y = s.model.hybrid;
    if (y.pattern.empty() || y.ssm_heads <= 0) return 0;
    const double tp = static_cast<double>(split_of(s).tp), c = compute_bytes(s);
    const bool vllm = s.framework == Framework::vllm;
    const double window = static_cast<double>(vllm ? y.conv_kernel - 1 : y.conv_kernel);
    const double ssm_b = vllm && y.ssm_state_bytes > 0 ? y.ssm_state_bytes : c;
    const double conv = window * static_cast<double>(y.conv_dim()) / tp * c;
    const double ssm = std::ceil(static_cast<double>(y.ssm_heads) / tp) * static_cast<double>(y.ssm_head_dim * y.ssm_state) * ssm_b;
    return conv + ssm;
}

double recurrent_state_bytes(const Scenario& s) {
    const std::string& p = s.model.hybrid.pattern;
    const i64 layers = std::min<i64>(layers_per_stage(s), static_cast<i64>(p.size()));
    i64 mamba = 0;
    for (i64 i = 0; i < layers; ++i) mamba += HybridSpec::keeps_state(p[static_cast<std::size_t>(i)]) ? 1 : 0;
    return static_cast<double>(mamba) * mamba_state_bytes_per_layer(s);
}

double kv_bytes_for_tokens(const Scenario& s, double tokens) {
    const double per_token_layer = kv_layer_token_bytes(s, kv_element_bytes(s));
    const bool trims = engine_trims_window(s);
    const i64 layers = layers_per_stage(s);
    double t = 0;
    for (i64 i = 0; i < layers; ++i) {
        if (!layer_attends(s.model, i)) continue;  // a hybrid model's Mamba / MLP blocks keep no KV
        const double n = layer_slides(s.model, i) && trims ? std::min(tokens, static_cast<double>(s.model.sliding_window)) : tokens;
        t += per_token_layer * n;
    }
    return t;
}

}  // namespace detail
}  // namespace vramcalc
