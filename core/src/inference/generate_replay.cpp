// generate()'s prefill as the caching allocator sees it. Its layers run without autograd, so every tensor is
// freed when Python drops its last reference; the order below is that of transformers' decoder layers
// (modeling_llama.py / modeling_qwen2.py / modeling_phi3.py at v5: LlamaDecoderLayer.forward, LlamaRMSNorm,
// apply_rotary_pos_emb, sdpa_attention_forward, LlamaMLP / Phi3MLP) and of DynamicLayer.update
// (cache_utils.py @004999d9: `self.keys = torch.cat([self.keys, key_states], dim=-2)`, a copy of the
// roped keys into a new tensor that the cache keeps).
//
// What the replay shows (tests/data/gpu_runs_h200.json, the generate runs): each layer's K and V copies are
// long-lived blocks carved from the segments its own transients (the fp32 norm, the MLP's T x intermediate
// tensors) freed. A segment that holds a cache block cannot serve the next layer's transient of its size, so
// the next layer's MLP gets a new segment; what is left beside the cache blocks of each such segment stays
// reserved and unused.
#include "inference/generate_replay.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "runtime/caching_allocator.hpp"

namespace vramcalc::detail {
namespace {

using Handle = CachingAllocator::Handle;

struct Run {
    CachingAllocator a;
    PrefillReserve peak;
    Handle malloc(double bytes) {
        if (bytes <= 0) return 0;
        const Handle h = a.malloc(static_cast<std::int64_t>(std::ceil(std::min(bytes, 9.0e18))));
        peak.allocated = std::max(peak.allocated, static_cast<double>(a.allocated()));
        peak.reserved = std::max(peak.reserved, static_cast<double>(a.reserved()));
        peak.needed = std::max(peak.needed, static_cast<double>(a.pinned()));
        return h;
    }
    void free(Handle h) {
        if (h) a.free(h);
    }
};

// LlamaRMSNorm: x.to(float32); pow(2).mean(-1) (a transient the size of the upcast); x * rsqrt(var + eps);
// weight * x.to(input_dtype). Returns the normed tensor.
Handle rms_norm(Run& r, const PrefillLayer& l) {
    const Handle up = r.malloc(l.norm_fp32);
    r.free(r.malloc(l.norm_fp32));
    const Handle scaled = r.malloc(l.norm_fp32);
    r.free(up);
    const Handle cast = r.malloc(l.hidden);
    const Handle out = r.malloc(l.hidden);
    r.free(cast);
    r.free(scaled);
    return out;
}

// apply_rotary_pos_emb: (x * cos) + (rotate_half(x) * sin); rotate_half cats -x2 and x1.
Handle rope(Run& r, double bytes) {
    const Handle cos = r.malloc(bytes);
    const Handle neg = r.malloc(bytes / 2);
    const Handle rot = r.malloc(bytes);
    r.free(neg);
    const Handle sin = r.malloc(bytes);
    r.free(rot);
    const Handle out = r.malloc(bytes);
    r.free(cos);
    r.free(sin);
    return out;
}

// One decoder layer on input `x`; returns its output. The caller still holds `x` while the layer runs (the
// model's loop variable), the layer adds the cache's K and V to `cache`.
Handle layer(Run& r, const PrefillLayer& l, std::vector<Handle>& cache) {
    const Handle n1 = rms_norm(r, l);
    Handle qkv = 0, q = 0, k = 0, v = 0;
    if (l.fused_qkv) qkv = r.malloc(l.q + 2 * l.kv);  // q, k and v are views of one output
    else {
        q = r.malloc(l.q);
        k = r.malloc(l.kv);
        v = r.malloc(l.kv);
    }
    const Handle qe = l.rope ? rope(r, l.q) : 0;
    if (l.rope) r.free(q);
    const Handle ke = l.rope ? rope(r, l.kv) : 0;
    if (l.rope) r.free(k);
    cache.push_back(r.malloc(l.kv_block));  // DynamicLayer.update: torch.cat copies the roped keys
    r.free(ke);
    cache.push_back(r.malloc(l.kv_block));  // and the values
    r.free(v);
    const Handle o = r.malloc(l.attn_out);  // SDPA's output
    r.free(qe);
    r.free(l.rope ? 0 : q);
    r.free(l.rope ? 0 : k);
    const Handle oc = r.malloc(l.attn_out);  // attn_output.transpose(1, 2).contiguous()
    r.free(o);
    const Handle proj = r.malloc(l.hidden);  // o_proj
    r.free(oc);
    r.free(qkv);  // the fused output stays referenced by the attention's local `qkv` until it returns
    r.free(n1);
    const Handle res = r.malloc(l.hidden);  // residual + attention
    r.free(proj);
    const Handle n2 = rms_norm(r, l);
    Handle down = 0;
    if (l.fused_gate_up) {
        // Phi3MLP: gate, up = gate_up_proj(x).chunk(2): both views keep the fused output until the MLP returns.
        const Handle gu = r.malloc(2 * l.mlp);
        const Handle act = r.malloc(l.mlp);
        const Handle prod = r.malloc(l.mlp);
        r.free(act);
        down = r.malloc(l.hidden);
        r.free(prod);
        r.free(gu);
    } else if (l.gated) {
        // down_proj(act_fn(gate_proj(x)) * up_proj(x)): gate is freed once act_fn returns.
        const Handle gate = r.malloc(l.mlp);
        const Handle act = r.malloc(l.mlp);
        r.free(gate);
        const Handle up = r.malloc(l.mlp);
        const Handle prod = r.malloc(l.mlp);
        r.free(act);
        r.free(up);
        down = r.malloc(l.hidden);
        r.free(prod);
    } else {
        const Handle fc1 = r.malloc(l.mlp);
        const Handle act = r.malloc(l.mlp);
        r.free(fc1);
        down = r.malloc(l.hidden);
        r.free(act);
    }
    r.free(n2);
    const Handle out = r.malloc(l.hidden);  // residual + MLP
    r.free(res);
    r.free(down);
    return out;
}

}  // namespace

PrefillReserve replay_prefill(double weights, const PrefillLayer& l, std::int64_t layers, double head) {
    Run r;
    r.malloc(weights);
    // The model's forward keeps `inputs_embeds` to its end (hidden_states = inputs_embeds, then the loop
    // rebinds hidden_states).
    const Handle embeds = r.malloc(l.hidden);
    std::vector<Handle> cache;
    cache.reserve(static_cast<std::size_t>(2 * std::max<std::int64_t>(0, layers)));
    Handle x = embeds;
    for (std::int64_t i = 0; i < layers; ++i) {
        const Handle out = layer(r, l, cache);
        if (x != embeds) r.free(x);
        x = out;
    }
    const Handle normed = rms_norm(r, l);
    r.free(x);
    r.free(embeds);
    r.free(r.malloc(head));
    r.free(normed);
    return r.peak;
}

namespace {

PrefillLayer scaled(const PrefillLayer& l, double k) {
    PrefillLayer o = l;
    for (double* x : {&o.hidden, &o.norm_fp32, &o.q, &o.kv, &o.attn_out, &o.mlp, &o.kv_block}) *x *= k;
    return o;
}

bool same(const PrefillLayer& a, const PrefillLayer& b) {
    return a.hidden == b.hidden && a.norm_fp32 == b.norm_fp32 && a.q == b.q && a.kv == b.kv && a.attn_out == b.attn_out &&
           a.mlp == b.mlp && a.kv_block == b.kv_block && a.fused_qkv == b.fused_qkv && a.fused_gate_up == b.fused_gate_up &&
           a.gated == b.gated && a.rope == b.rope;
}

// The reference size: the smallest of the layer's tensors at 256 MiB or more, so that 2 MiB segment rounding
// moves the result by under 1 %.
constexpr double kReferenceTensor = 256.0 * 1048576.0;

}  // namespace

PrefillReserve prefill_reserve(const PrefillLayer& per_token, std::int64_t layers, double tokens) {
    double smallest = 0;
    for (const double x : {per_token.hidden, per_token.norm_fp32, per_token.q, per_token.kv, per_token.mlp, per_token.kv_block})
        if (x > 0) smallest = smallest > 0 ? std::min(smallest, x) : x;
    if (smallest <= 0 || layers <= 0 || tokens <= 0) return {};
    const double reference = std::ceil(kReferenceTensor / smallest);
    struct Entry {
        PrefillLayer l;
        std::int64_t layers = 0;
        PrefillReserve r;
    };
    thread_local std::vector<Entry> recent;  // the last few shapes, newest last
    PrefillReserve r;
    bool found = false;
    for (const Entry& e : recent)
        if (e.layers == layers && same(e.l, per_token)) {
            r = e.r;
            found = true;
        }
    if (!found) {
        r = replay_prefill(0, scaled(per_token, reference), layers, 0);
        if (recent.size() >= 8) recent.erase(recent.begin());
        recent.push_back({per_token, layers, r});
    }
    const double k = tokens / reference;
    return {r.allocated * k, r.reserved * k, r.needed * k};
}

}  // namespace vramcalc::detail
