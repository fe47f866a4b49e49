#include <algorithm>
#include <cmath>
#include <string>

#include "bill/lines.hpp"
#include "common/format.hpp"
#include "inference/engines.hpp"
#include "inference/kv_cache.hpp"
#include "inference/placement.hpp"
#include "common/checked.hpp"
#include "runtime/runtime.hpp"

namespace vramcalc::detail {

// ---- llama.cpp ----
// llama-model.cpp load_tensors: the input embedding stays on the CPU; layer i is offloaded when
// i >= n_layer - n_gpu_layers; the output layer when n_gpu_layers > n_layer. The KV cache of a layer
// lives with the layer (n_ctx cells shared by all sequences). The CUDA compute buffer holds the largest
// tensors of one ubatch's graph (ggml-alloc reuses the rest): the f32 KQ scores without flash attention,
// the FFN intermediates, and the output logits.
void llamacpp_engine(const Scenario& s, Bill& b, const WeightBytes& w) {
    const ModelSpec& m = s.model;
    const i64 L = std::max<i64>(1, m.layers);
    const i64 ngl = s.n_gpu_layers < 0 ? L + 1 : std::min(s.n_gpu_layers, L + 1);
    const i64 gpu_layers = std::min(ngl, L);
    const bool output_gpu = ngl > L;
    double gpu_w = output_gpu ? w.output : 0, cpu_w = w.input + (output_gpu ? 0 : w.output);
    for (i64 i = 0; i < L && i < static_cast<i64>(w.layers.size()); ++i)
        (i >= L - gpu_layers ? gpu_w : cpu_w) += w.layers[static_cast<std::size_t>(i)];
    add_line(b, "weights", gpu_w, (w.detail.empty() ? s.weights : w.detail) + ", " + std::to_string(gpu_layers) + " of " + std::to_string(L) + " layers on the GPU" + (output_gpu ? " + output" : ""));
    const double eb = kv_element_bytes(s);
    const double n_ctx = static_cast<double>(s.n_ctx);
    double gpu_kv = 0, cpu_kv = 0;
    for (i64 i = 0; i < L; ++i) {
        // Sliding-window layers get their own cache of n_swa + n_ubatch cells for one sequence
        // (llama-kv-cache-iswa.cpp, llama_kv_cache_iswa: size_swa = min(size_base, n_swa * n_seq_max + n_ubatch)).
        const double cells = layer_slides(m, i) ? std::min(n_ctx, static_cast<double>(m.sliding_window + s.n_ubatch)) : n_ctx;
        (i >= L - gpu_layers ? gpu_kv : cpu_kv) += kv_layer_token_bytes_at(s, eb, i) * cells;
    }
    add_line(b, "kv_cache", gpu_kv, whole(kv_mean_layer_token_bytes(s, eb) * static_cast<double>(L)) + " B/token x n_ctx " + whole(n_ctx) + " cells (" + to_string(s.kv_dtype) + ")");
    const double ub = static_cast<double>(std::min<i64>(s.n_ubatch, s.n_ctx));
    const double h = static_cast<double>(m.hidden);
    // ggml-alloc frees each f32 tensor of the ubatch's graph after its last use and runs softmax in place, so
    // the buffer is the largest set alive at once (tests/data/llamacpp_buffers.json reproduces both phases
    // below for Pythia-2.8B to the MiB):
    //  - attention without flash attention: the KQ scores (heads x n_ctx x ubatch) and the KQ mask
    //    (n_ctx x ubatch), beside the residual stream, the projections (a fused qkv output stays alive, since
    //    V is a view into it; separate q/k/v leave only V) and the roped Q and K;
    //  - the output: the final norm's output and the logits (ubatch x vocab), when the output layer is here;
    //  - the FFN: the residual stream, the normed input and two ubatch x n_ff intermediates.
    const double q = static_cast<double>(m.heads * m.head_dim), kv = static_cast<double>(m.kv_heads * m.head_dim);
    bool fused_qkv = false;
    for (const auto& g : m.params) fused_qkv = fused_qkv || g.role == Role::qkv;
    const double scores = s.attention == Attention::flash ? 0 : (static_cast<double>(m.heads) + 1) * n_ctx * ub * 4;
    const double attn = scores + ub * 4 * (h + (fused_qkv ? q + 2 * kv : kv) + q + kv);
    const double ffn = ub * 4 * (2 * h + 2 * static_cast<double>(std::max(m.intermediate, m.moe.expert_intermediate)));
    const double logits = output_gpu ? ub * 4 * (static_cast<double>(m.vocab) + h) : 0;
    // With no layer on the GPU a CUDA build still creates its backend: the context, and a compute buffer
    // for the ops it offloads (ggml_backend_sched offloads an op whose weight sits in host memory when the
    // batch is large enough; llama.cpp's --no-op-offload turns it off), sized for the same ubatch graph.
    const double compute = std::max({attn, ffn, logits});
    add_line(b, "compute_buffer", compute, "ggml CUDA compute buffer for a " + whole(ub) + "-token ubatch" + (scores > 0 ? " (f32 KQ scores, no flash attention)" : "") + (gpu_layers == 0 ? " (ops offloaded from CPU layers)" : ""));
    const CudaContext context = cuda_context(b.gpu);
    const double ctx = context.bytes;
    add_line(b, "cuda_context", ctx, context.detail);
    b.cpu_bytes += saturated_bytes(cpu_w + cpu_kv);
    b.device_bytes = component_sum(b);
    b.peak_allocated_bytes = b.device_bytes - saturated_bytes(ctx);
    b.peak_reserved_bytes = b.peak_allocated_bytes;  // ggml allocates its buffers once
    b.fits = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
    if (s.prompt_len + s.gen_len > s.n_ctx)
        b.warnings.push_back("prompt_len + gen_len exceeds n_ctx (" + std::to_string(s.n_ctx) + "): llama.cpp would shift or stop");
    b.peak_phase = "serving";
}

}  // namespace vramcalc::detail
