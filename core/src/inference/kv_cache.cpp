#include "inference/kv_cache.hpp"

#include <algorithm>
#include <cmath>

#include "inference/placement.hpp"

namespace vramcalc {

double kv_bytes_per_token(const ModelSpec& m, double element_bytes, bool mla_latent) {
    const auto L = static_cast<double>(attention_layers(m));
    if (m.traits.global_head_dim > 0 && m.attention == AttentionKind::standard) {  // Gemma 4: two kinds of layer
        double t = 0;
        for (i64 i = 0; i < m.layers; ++i) {
            const bool global = !detail::layer_slides(m, i);
            t += 2.0 * static_cast<double>(global ? m.traits.global_kv_heads * m.traits.global_head_dim : m.kv_heads * m.head_dim);
        }
        return t * element_bytes;
    }
    if (m.attention == AttentionKind::compressed) {
        // DeepSeek-V4 per token of a long sequence: one pooled head_dim entry per ratio tokens, and the indexer's key
        // per 4 tokens on its ratio-4 layers; the sliding window's entries do not grow (detail::compressed_layer_bytes).
        double entries = 0;
        for (i64 r : m.mla.compress_ratios)
            if (r > 0) entries += (static_cast<double>(m.head_dim) + (r == 4 ? static_cast<double>(m.mla.index_head_dim) : 0.0)) / static_cast<double>(r);
        return entries * element_bytes;
    }
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

// The DSA lightning indexer's key per token (per pooled entry in V4) and layer. vLLM keeps it in its own paged
// cache beside the attention's (DeepseekV32IndexerCache, an MLAAttentionSpec of one uint8 vector): index_head_dim
// fp8 values and one fp32 scale per 128 of them, "fp8 naive cache" (vllm/model_executor/models/deepseek_v2.py
// @002d6073, Indexer.__init__: head_dim + head_dim // quant_block_size * 4, quant_block_size 128), 132 B for
// V3.2's 128; replicated on every tensor-parallel rank. DeepSeek's own inference code keeps it in bf16.
double indexer_key_bytes(const Scenario& s) {
    const double d = static_cast<double>(s.model.mla.index_head_dim);
    if (d <= 0) return 0;
    return s.framework == Framework::vllm ? d + std::ceil(d / 128.0) * 4.0 : d * compute_bytes(s);
}

// KV bytes per token for one layer on one GPU (K and V, heads sharded by tensor parallelism; vLLM
// replicates KV heads when tp exceeds them, so a GPU holds at least one).
double kv_layer_token_bytes(const Scenario& s, double eb) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    const double L = static_cast<double>(std::max<i64>(1, attention_layers(m)));
    if (m.attention == AttentionKind::compressed) {  // a long sequence's mean over the layers (compressed_layer_bytes)
        double t = 0;
        for (i64 r : m.mla.compress_ratios)
            if (r > 0) t += (compressed_entry_bytes(s) + (r == 4 ? indexer_key_bytes(s) : 0.0)) / static_cast<double>(r);
        return t / L;
    }
    if (m.attention == AttentionKind::mla) {
        if (mla_latent(s) && s.framework == Framework::vllm && m.mla.index_head_dim > 0) {
            // DeepSeek-V3.2 under vLLM: the sparse MLA backend (FlashMLASparseBackend.get_kv_cache_shape) stores an
            // fp8 latent as "fp8_ds_mla", 656 B: kv_lora_rank fp8 values, an fp32 scale per 128 of them and the
            // rope part in bf16 (512 + 16 + 128); vLLM maps --kv-cache-dtype fp8 to it for V3.2
            // (vllm/model_executor/models/config.py DeepseekV32ForCausalLM). The indexer's keys come beside it.
            const double rank = static_cast<double>(m.mla.kv_lora_rank), rope = static_cast<double>(m.mla.qk_rope_head_dim);
            const double latent = s.kv_dtype == KvDtype::fp8 ? rank + std::ceil(rank / 128.0) * 4.0 + 2.0 * rope : (rank + rope) * eb;
            return latent + indexer_key_bytes(s);
        }
        if (mla_latent(s)) return kv_bytes_per_token(m, eb, true) / L;  // latent: replicated across TP ranks
        const double heads = std::ceil(static_cast<double>(m.heads) / static_cast<double>(p.tp));
        return heads * static_cast<double>(m.head_dim + m.v_head_dim) * eb;
    }
    const double kv = std::max(1.0, std::ceil(static_cast<double>(m.kv_heads) / static_cast<double>(p.tp)));
    return 2.0 * kv * static_cast<double>(m.head_dim) * eb;
}

// Gemma 4 (vLLM vllm/model_executor/models/gemma4.py @001cabc1, Gemma4DecoderLayer): a full-attention layer's
// Attention has global_head_dim-wide heads and, with attention_k_eq_v, num_global_key_value_heads of them; the
// key is stored as the value too (qkv_proj fills the V slot with K), so K and V both take their pages.
// transformers' Gemma4TextAttention caches key and value states alike.
double kv_layer_token_bytes_at(const Scenario& s, double eb, i64 i) {
    const ModelSpec& m = s.model;
    if (m.traits.global_head_dim <= 0 || m.attention != AttentionKind::standard || layer_slides(m, i))
        return kv_layer_token_bytes(s, eb);
    const double tp = static_cast<double>(split_of(s).tp);
    const double kv = std::max(1.0, std::ceil(static_cast<double>(m.traits.global_kv_heads) / tp));
    return 2.0 * kv * static_cast<double>(m.traits.global_head_dim) * eb;
}

double kv_mean_layer_token_bytes(const Scenario& s, double eb) {
    const ModelSpec& m = s.model;
    if (m.traits.global_head_dim <= 0) return kv_layer_token_bytes(s, eb);
    const i64 layers = layers_per_stage(s);
    double t = 0;
    i64 n = 0;
    for (i64 i = 0; i < layers; ++i)
        if (layer_attends(m, i)) t += kv_layer_token_bytes_at(s, eb, i), ++n;
    return n > 0 ? t / static_cast<double>(n) : 0.0;
}

double kv_element_bytes(const Scenario& s) {
    switch (s.kv_dtype) {
        case KvDtype::fp16:
        case KvDtype::bf16:
            return 2;
        case KvDtype::fp8:
            return 1;  // e4m3/e5m2, one scale per layer (vLLM kv_cache_dtype fp8)
        case KvDtype::q8_0:
            return 34.0 / 32.0;  // ggml block_q8_0
        case KvDtype::q4_0:
            return 18.0 / 32.0;  // ggml block_q4_0
        case KvDtype::automatic:
            return compute_bytes(s);  // llama.cpp's default cache type is f16 as well
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

// DeepSeek-V4's KV entry of one token (or pooled group) of one layer: vLLM's FlashMLA layout "fp8_ds_mla" for V4 is
// 584 B, head_dim - rope fp8 values, the rope part in bf16 and 8 B of UE8M0 scales (one per 64 values, padded to 8
// bytes), 448 + 128 + 8 for head_dim 512
// (vllm/models/deepseek_v4/attention.py @0484480b, get_kv_cache_spec's state_content_bytes; the layer asserts an fp8
// cache and maps --kv-cache-dtype fp8 / auto onto it); a bf16 or fp16 cache named explicitly is the plain
// head_dim row (the FlashInfer path). DeepSeek's inference code keeps bf16 rows (Attention.kv_cache).
double compressed_entry_bytes(const Scenario& s) {
    const ModelSpec& m = s.model;
    const double D = static_cast<double>(m.head_dim), rope = static_cast<double>(m.mla.qk_rope_head_dim);
    const bool plain = s.kv_dtype == KvDtype::bf16 || s.kv_dtype == KvDtype::fp16;
    if (s.framework == Framework::vllm && !plain) return (D - rope) + 2.0 * rope + 8.0 * std::ceil(std::ceil((D - rope) / 64.0) / 8.0);
    return D * kv_element_bytes(s);
}

// One sequence's cache of `tokens` tokens at DeepSeek-V4 layer i (deepseek-ai/DeepSeek-V4-Flash inference/model.py,
// Attention.__init__: kv_cache of window + max_seq_len // ratio entries; Indexer.kv_cache of max_seq_len // 4 keys on
// the ratio-4 layers). vLLM pages the same three caches (DeepseekV4SWACache, the compressor's MLAAttentionSpec with
// compress_ratio, DeepseekV4IndexerCache) in blocks of `block` tokens; a window that starts inside a block holds it.
// The compressors' partial pooling state (at most 2 x ratio fp32 rows per layer) is not counted.
double compressed_layer_bytes(const Scenario& s, i64 i, double tokens, double block) {
    const ModelSpec& m = s.model;
    if (i < 0 || i >= static_cast<i64>(m.mla.compress_ratios.size())) return 0;
    const double r = static_cast<double>(m.mla.compress_ratios[static_cast<std::size_t>(i)]);
    const double e = compressed_entry_bytes(s), W = static_cast<double>(m.mla.window);
    const double paged = block > 0 ? std::ceil(tokens / block) * block : tokens;
    const double window = block > 0 ? std::ceil(std::min(tokens, W + block) / block) * block : std::min(tokens, W);
    double t = window * e;
    if (r > 0) t += std::floor(paged / r) * e;
    if (r == 4) t += std::floor(paged / r) * indexer_key_bytes(s);
    return t;
}

double kv_bytes_for_tokens(const Scenario& s, double tokens) {
    const double eb = kv_element_bytes(s);
    const bool trims = engine_trims_window(s);
    const i64 layers = layers_per_stage(s);
    // Every solver step sums this: the per-layer rule only where layers differ (Gemma 4's global layers).
    const bool per_layer = s.model.traits.global_head_dim > 0;
    const double uniform = kv_layer_token_bytes(s, eb);
    double t = 0;
    for (i64 i = 0; i < layers; ++i) {
        if (s.model.attention == AttentionKind::compressed) {
            t += compressed_layer_bytes(s, i, tokens, 0);
            continue;
        }
        if (!layer_attends(s.model, i)) continue;  // a hybrid model's Mamba / MLP blocks keep no KV
        const double n = layer_slides(s.model, i) && trims ? std::min(tokens, static_cast<double>(s.model.sliding_window)) : tokens;
        t += (per_layer ? kv_layer_token_bytes_at(s, eb, i) : uniform) * n;
    }
    return t;
}

}  // namespace detail
}  // namespace vramcalc
