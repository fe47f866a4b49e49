// Internal: the prefill of transformers' generate() replayed tensor by tensor on the model of PyTorch's caching
// allocator (runtime/caching_allocator.hpp), to learn what the allocator reserves beyond the allocated peak.
// docs/methodology.md section 6, "generate's prefill on the caching allocator".
#pragma once

#include <cstdint>

namespace vramcalc::detail {

// One decoder layer's prefill tensors for all the prompt's tokens (bytes).
struct PrefillLayer {
    double hidden = 0;     // T x hidden in the compute dtype (the residual stream, the normed input)
    double norm_fp32 = 0;  // T x hidden in fp32 (RMSNorm's upcast)
    double q = 0, kv = 0;  // q and k (= v) projections' outputs
    double attn_out = 0;   // the attention output (T x heads x head_dim)
    double mlp = 0;        // one T x intermediate tensor
    double kv_block = 0;   // one layer's K (= V) cache tensor after the prompt
    bool fused_qkv = false, fused_gate_up = false, gated = true;
    bool rope = true;  // rotary q and k (apply_rotary_pos_emb replaces them by new tensors)
};

struct PrefillReserve {
    double allocated = 0;  // the replay's allocated peak
    double reserved = 0;   // the reserved peak
    double needed = 0;     // the most held in segments with a live block (what a smaller GPU must have)
};

// `weights` are loaded before; the prompt's embeddings, `layers` layers, then the final norm and `head`
// bytes of logits work (the last position's logits and their fp32 copies).
PrefillReserve replay_prefill(double weights, const PrefillLayer& l, std::int64_t layers, double head);

// The same for `tokens` prompt tokens (batch x prompt length) of a layer given per token (`per_token`: each
// size for one token), without the weights and the head. Every tensor of the prefill scales with the tokens,
// so the replay runs once per model shape, at a reference size where the allocator's roundings (512 B, 2 MiB
// segments, the 1 MiB and 10 MiB pool thresholds) are small beside the tensors, and its result scales; the
// last few shapes are remembered (a solver asks for one shape at many batch sizes).
PrefillReserve prefill_reserve(const PrefillLayer& per_token, std::int64_t layers, double tokens);

}  // namespace vramcalc::detail
