#include "inference/rocm_loading.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/format.hpp"
#include "formats/weight_formats.hpp"
#include "inference/placement.hpp"
#include "runtime/caching_allocator.hpp"

namespace vramcalc::detail {

namespace {

// One weight as vLLM holds it on a tensor-parallel rank: a fused linear (qkv_proj, gate_up_proj: the shards
// are the checkpoint's separate tensors) or a FusedMoE weight (w13 [E, 2I, H], w2 [E, H, I]).
enum class Kind { linear,
                  moe };
struct Weight {
    Kind kind = Kind::linear;
    std::vector<double> shards;  // output rows of each checkpoint tensor fused into this one
    double cols = 0;             // input features (K)
    double experts = 1;          // FusedMoE: experts stacked in the tensor
    double elem = 2;             // bytes per element (1 for fp8)
    double rows() const {
        double n = 0;
        for (double r : shards) n += r;
        return n;
    }
    double bytes() const { return experts * rows() * cols * elem; }
    // ROCm pads a weight whose row is a multiple of 512 B, by 256 B per row (F.pad in _maybe_pad_weight /
    // _maybe_pad_fp8_weight).
    bool paddable() const { return std::fmod(cols * elem, 512.0) == 0.0; }
    double padding() const { return experts * rows() * 256.0; }
};

// The per-layer weights of one layer kind, in module order (attention, then the MLP or MoE block).
struct LayerPlan {
    std::vector<Weight> dense, moe;  // a dense layer's weights; a MoE layer's weights
};

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// A request in bytes (the replay runs only on models whose weights stay far below 2^50 bytes, see below).
std::int64_t request(double bytes) { return bytes > 0 ? static_cast<std::int64_t>(bytes) : 0; }

void add_shard(std::vector<Weight>& list, std::size_t& slot, Kind kind, double rows, double cols, double experts, double elem) {
    if (slot == kNone) {
        slot = list.size();
        list.push_back(Weight{kind, {}, cols, experts, elem});
    }
    list[slot].shards.push_back(rows);
}

// vLLM's fused modules from the inventory: q, k, v -> qkv_proj (QKVParallelLinear), MLA's q_a and kv_a ->
// fused_qkv_a_proj (replicated), gate and up -> gate_up_proj (MergedColumnParallelLinear) or the FusedMoE w13.
// Column-parallel outputs and row-parallel inputs are divided by tp; a KV head is never split (a rank keeps
// at least one).
LayerPlan plan_layers(const Scenario& s, double tp) {
    const ModelSpec& m = s.model;
    const bool fp8_weights = is_fp8_format(s.weights);
    const double L = static_cast<double>(std::max<i64>(1, m.layers));
    const double moe_layers = static_cast<double>(m.moe.experts > 0 ? m.moe.moe_layers : 0);
    LayerPlan p;
    std::vector<Weight> fused_moe;  // a MoE layer's FusedMoE weights
    struct Slots {
        std::size_t qkv = kNone, qkv_a = kNone, gate_up = kNone, w13 = kNone;
    } dense_slots, moe_slots;
    for (const auto& g : m.params) {
        if (!g.is_linear || g.layer_stack != 0) continue;
        if (g.category != ParamCategory::attention && g.category != ParamCategory::mlp && g.category != ParamCategory::experts) continue;
        const double elem = fp8_weights && !g.fp8_keeps_16bit ? 1.0 : unquantized_bytes(s.weights);
        const double rows = static_cast<double>(g.rows), cols = static_cast<double>(g.cols);
        const double col_rows = std::ceil(rows / tp), row_cols = std::ceil(cols / tp);
        if (g.category == ParamCategory::attention) {
            for (auto* list : {&p.dense, &p.moe}) {
                if (list == &p.moe && moe_layers <= 0) continue;
                Slots& sl = list == &p.dense ? dense_slots : moe_slots;
                const double per = std::max(1.0, std::round(static_cast<double>(g.count) / L));
                for (int i = 0; i < static_cast<int>(per); ++i) switch (g.role) {
                        case Role::q:
                        case Role::qkv:
                            add_shard(*list, sl.qkv, Kind::linear, col_rows, cols, 1, elem);
                            break;
                        case Role::k:
                        case Role::v:
                            add_shard(*list, sl.qkv, Kind::linear, std::max(col_rows, static_cast<double>(m.head_dim)), cols, 1, elem);
                            break;
                        case Role::q_a:
                        case Role::kv_a:
                            add_shard(*list, sl.qkv_a, Kind::linear, rows, cols, 1, elem);
                            break;
                        case Role::o:
                            list->push_back(Weight{Kind::linear, {rows}, row_cols, 1, elem});
                            break;
                        default:
                            list->push_back(Weight{Kind::linear, {col_rows}, cols, 1, elem});
                            break;  // q_b, kv_b
                    }
            }
            continue;
        }
        // MLP groups: the shared expert (its width) goes to MoE layers, the rest to dense ones; the routed experts
        // come last in a MoE layer (deepseek_v2.py, llama4.py: shared_experts is built before the experts).
        const bool routed = g.category == ParamCategory::experts;
        const bool shared = !routed && moe_layers > 0 && m.moe.shared_intermediate > 0 &&
                            (g.role == Role::down ? g.cols : g.rows) == m.moe.shared_intermediate &&
                            static_cast<double>(g.count) == moe_layers;
        auto& list = routed ? fused_moe : shared ? p.moe
                                                 : p.dense;
        Slots& sl = routed || shared ? moe_slots : dense_slots;
        const double experts = routed ? std::max(1.0, std::round(static_cast<double>(g.count) / std::max(1.0, moe_layers))) : 1.0;
        const Kind kind = routed ? Kind::moe : Kind::linear;
        if (g.role == Role::down) list.push_back(Weight{kind, {rows}, row_cols, experts, elem});
        else add_shard(list, routed ? sl.w13 : sl.gate_up, kind, col_rows, cols, experts, elem);
    }
    p.moe.insert(p.moe.end(), fused_moe.begin(), fused_moe.end());
    return p;
}

// The post-processing of one weight, as vLLM's ROCm paths run it (vLLM main at 2025-11-19 and 2026-03-20):
//  - bf16 FusedMoE (unquantized_fused_moe_method.py _maybe_pad_weight, VLLM_ROCM_MOE_PADDING=1): a weight whose
//    row is a multiple of 512 B is copied with 256 B more per row (F.pad), empty_cache(), the old one freed; with
//    VLLM_ROCM_USE_AITER=1 the experts are then shuffled into new unpadded copies.
//  - fp8 on gfx942 (w8a8_utils.py normalize_e4m3fn_to_e4m3fnuz): a 1-byte-per-element mask, freed.
//  - fp8 per-tensor (requantize_with_max_scale): each shard dequantised to fp16 (two temporaries) and
//    requantised; per-tensor and block linears (fp8_utils.py _maybe_pad_fp8_weight, VLLM_ROCM_FP8_PADDING=1)
//    are padded as above when K is a multiple of 512. Per-channel linears and fp8 experts are not padded.
struct LoadReplay {
    CachingAllocator a;
    bool fnuz = false, aiter = false;
    WeightLayout layout = WeightLayout::dense;  // the weights' format, by its row of the format table
    double moe_padding = 0, fp8_padding = 0;    // bytes the padded copies add (requested, not the allocator's blocks)

    void temporary(double bytes) { a.free(a.malloc(request(bytes))); }
    CachingAllocator::Handle pad(CachingAllocator::Handle old, const Weight& w) {
        const auto padded = a.malloc(request(w.bytes() + w.padding()));
        (w.elem == 1.0 ? fp8_padding : moe_padding) += w.padding();
        a.empty_cache();
        a.free(old);
        return padded;
    }
    void process(std::vector<CachingAllocator::Handle>& h, const std::vector<Weight>& layer) {
        for (std::size_t i = 0; i < layer.size(); ++i) {
            const Weight& w = layer[i];
            if (w.elem == 1.0) {
                if (fnuz) temporary(w.bytes());
                if (w.kind == Kind::moe) continue;
                if (layout == WeightLayout::tensor_scale) {
                    CachingAllocator::Handle kept = 0;
                    for (double shard : w.shards) {
                        const auto fp16 = a.malloc(request(shard * w.cols * 2));
                        const auto dq = a.malloc(request(shard * w.cols * 2));
                        a.free(fp16);
                        if (kept) a.free(kept);
                        kept = dq;
                        temporary(shard * w.cols);
                    }
                    if (kept) a.free(kept);
                }
                const bool padded = layout == WeightLayout::tensor_scale || layout == WeightLayout::block_128;
                if (padded && w.paddable()) h[i] = pad(h[i], w);
            } else if (w.kind == Kind::moe && w.paddable()) {
                h[i] = pad(h[i], w);
            }
        }
        if (!aiter) return;
        for (std::size_t i = 0; i < layer.size(); ++i)  // AITER's shuffle_weights: new unpadded copies of w13 and w2
            if (layer[i].kind == Kind::moe && layer[i].elem != 1.0) {
                const auto copy = a.malloc(request(layer[i].bytes()));
                if (layer[i].paddable()) moe_padding -= layer[i].padding();
                a.free(h[i]);
                h[i] = copy;
            }
    }
};

// What the replay depends on: the model's tensors, the weight format, the split, the GPU's arch and the two
// ROCm settings, not the batch or the context. The solvers estimate one scenario at many batch sizes and
// lengths, so the last answers are kept (a replay of DeepSeek-V3 takes about 0.7 ms, an estimate 7 us).
std::string replay_key(const Scenario& s) {
    std::string k = s.weights + '|' + s.gpu.arch + '|' + std::to_string(split_of(s).tp) + '|' +
                    std::to_string(layers_per_stage(s)) + '|' + (s.vllm_rocm_aiter ? 'a' : '-') +
                    (s.vllm_rocm_load_measure == RocmLoadMeasure::total_free ? 't' : '-');
    const ModelSpec& m = s.model;
    for (const i64 v : {m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.moe.experts, m.moe.moe_layers,
                        m.moe.shared_intermediate})
        k += '|' + std::to_string(v);
    for (const auto& g : m.params)
        k += '|' + std::to_string(static_cast<int>(g.role)) + ',' + std::to_string(static_cast<int>(g.category)) + ',' +
             std::to_string(g.rows) + ',' + std::to_string(g.cols) + ',' + std::to_string(g.count) + ',' +
             std::to_string(g.layer_stack) + (g.is_linear ? "l" : "") + (g.routed_expert ? "r" : "") + (g.fp8_keeps_16bit ? "k" : "");
    return k;
}

RocmLoading replay(const Scenario& s) {
    RocmLoading r;
    const ModelSpec& m = s.model;
    const double tp = static_cast<double>(split_of(s).tp);
    const LayerPlan plan = plan_layers(s, tp);
    const i64 Lp = layers_per_stage(s);
    // Absurd inputs (the bill says so elsewhere) are not replayed: layer weights beyond 2^50 bytes, which no GPU
    // holds, would overflow the allocator's byte counts.
    double dense = 0, moe = 0;
    for (const Weight& w : plan.dense) dense += w.bytes();
    for (const Weight& w : plan.moe) moe += w.bytes();
    if (std::max(dense, moe) * static_cast<double>(Lp) > 1125899906842624.0) return r;
    const i64 moe_layers = m.moe.experts > 0 ? std::min(m.moe.moe_layers, Lp) : 0;
    // Dense layers first (DeepSeek's first_k_dense_replace); Llama-4 interleaves them, which changes only the
    // order of the same frees.
    auto layer = [&](i64 i) -> const std::vector<Weight>& { return i < Lp - moe_layers ? plan.dense : plan.moe; };
    LoadReplay replay;
    replay.fnuz = s.gpu.arch == "cdna3";  // gfx942 (MI300X, MI325X): current_platform.is_fp8_fnuz()
    replay.aiter = s.vllm_rocm_aiter;
    if (const WeightFormat* f = find_weight_format(s.weights)) replay.layout = f->layout;
    // All parameters exist before any post-processing (model_loader/utils.py process_weights_after_loading).
    std::vector<std::vector<CachingAllocator::Handle>> handles(static_cast<std::size_t>(Lp));
    double weights = 0;
    for (i64 i = 0; i < Lp; ++i)
        for (const Weight& w : layer(i)) {
            handles[static_cast<std::size_t>(i)].push_back(replay.a.malloc(request(w.bytes())));
            weights += w.bytes();
        }
    for (i64 i = 0; i < Lp; ++i) replay.process(handles[static_cast<std::size_t>(i)], layer(i));
    r.padding = replay.moe_padding + replay.fp8_padding;
    // total - free sees every reserved segment: the weights, the padding, and what the allocator holds besides
    // (freed blocks it keeps, the rounding of segments and of blocks too small to split).
    if (s.vllm_rocm_load_measure == RocmLoadMeasure::total_free)
        r.cached = std::max(0.0, static_cast<double>(replay.a.reserved()) - weights - r.padding);
    if (replay.moe_padding > 0) r.detail += ", ROCm MoE weight padding " + gib(replay.moe_padding) + " (VLLM_ROCM_MOE_PADDING)";
    if (replay.fp8_padding > 0) r.detail += ", ROCm fp8 weight padding " + gib(replay.fp8_padding) + " (VLLM_ROCM_FP8_PADDING)";
    if (r.cached > 0)
        r.detail += ", " + gib(r.cached) + " the allocator keeps from loading (ROCm's total - free measure, v0.7.3 to PR #39801)";
    return r;
}

}  // namespace

RocmLoading rocm_loading(const Scenario& s) {
    const ModelSpec& m = s.model;
    if (s.gpu.vendor != "amd" || m.count_only || m.stack || m.layers <= 0) return {};
    thread_local std::vector<std::pair<std::string, RocmLoading>> recent;  // the last few, newest last
    std::string key = replay_key(s);
    for (const auto& [k, v] : recent)
        if (k == key) return v;
    RocmLoading r = replay(s);
    if (recent.size() >= 8) recent.erase(recent.begin());
    recent.emplace_back(std::move(key), r);
    return r;
}

}  // namespace vramcalc::detail
