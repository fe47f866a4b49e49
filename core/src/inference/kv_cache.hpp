// Internal: the KV cache: bytes per token by layer, element type and engine (sliding windows, MLA
// latents, tensor-parallel heads). docs/methodology.md section 7.
#pragma once

#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// KV-cache element bytes for the scenario's kv_dtype and engine (q8_0/q4_0: ggml blocks).
double kv_element_bytes(const Scenario& s);

// KV bytes per token for one layer on one GPU (K and V, heads sharded by tensor parallelism).
double kv_layer_token_bytes(const Scenario& s, double element_bytes);
// The same at decoder layer i: Gemma 4's full-attention layers have their own head width and KV heads
// (FamilyTraits::global_head_dim / global_kv_heads); every other model's layers are alike.
double kv_layer_token_bytes_at(const Scenario& s, double element_bytes, i64 i);
// The mean of kv_layer_token_bytes_at over the layers of one pipeline stage that attend.
double kv_mean_layer_token_bytes(const Scenario& s, double element_bytes);

// DeepSeek-V4 (AttentionKind::compressed): one KV entry's bytes, and one sequence's cache of `tokens` tokens at
// layer i (its sliding window, its pooled entries, its indexer keys), paged in blocks of `block` tokens (0: exact).
double compressed_entry_bytes(const Scenario& s);
double compressed_layer_bytes(const Scenario& s, i64 i, double tokens, double block);
// The DSA indexer's key per token (V3.2) or pooled entry (V4) and layer; 0 without an indexer.
double indexer_key_bytes(const Scenario& s);

// KV bytes one GPU holds per sequence for `tokens` tokens, summed over its layers (sliding-window layers
// stop at their window where the engine exploits it).
double kv_bytes_for_tokens(const Scenario& s, double tokens);

// A hybrid model's recurrent state for one sequence on one GPU, summed over the Mamba blocks of its stage: the
// conv state (conv_dim x kernel window, model dtype) and the SSM state (heads x head_dim x state). vLLM keeps
// kernel - 1 columns and the SSM state in mamba_ssm_cache_dtype (MambaStateShapeCalculator.mamba2_state_shape,
// MambaStateDtypeCalculator); transformers' HybridMambaAttentionDynamicCache keeps kernel columns, both in the
// model dtype. 0 for a model without Mamba blocks.
double mamba_state_bytes_per_layer(const Scenario& s);
double recurrent_state_bytes(const Scenario& s);

// Whether decoder layer i slides (keeps a window) and whether the engine trims those layers' cache.
bool layer_slides(const ModelSpec& m, i64 i);
bool engine_trims_window(const Scenario& s);

}  // namespace vramcalc::detail
