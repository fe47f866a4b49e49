#include <algorithm>
#include <cmath>
#include <string>

#include "bill/lines.hpp"
#include "common/format.hpp"
#include "formats/weight_format_table.hpp"
#include "inference/engines.hpp"
#include "inference/kv_cache.hpp"
#include "inference/placement.hpp"
#include "inference/rocm_loading.hpp"
#include "common/checked.hpp"
#include "common/power_of_two.hpp"
#include "runtime/runtime.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::detail {

// ---- vLLM ----
namespace {

struct HybridPool {
    double block = 0;                   // attention block (tokens), aligned to the Mamba page
    double blocks = 0;                  // num_blocks: pages in each of the pool's tensors
    double groups_a = 0, groups_m = 0;  // attention and Mamba KV-cache groups
    double tokens = 0;                  // "GPU KV cache size: N tokens"

    // Sequences of `len` tokens the pool holds: ceil(len / block) blocks per attention group, one per Mamba group.
    std::int64_t sequences(double len) const {
        if (block <= 0) return 0;  // no attention layer: hybrid_pool left it empty
        const double per_seq = groups_a * std::ceil(len / block) + groups_m;
        return per_seq > 0 ? static_cast<std::int64_t>(std::floor(blocks / per_seq)) : 0;
    }
};

// The tensors vLLM keeps whole on every tensor-parallel rank: norms (RMSNorm weights are not sharded),
// MoE router gates (ReplicatedLinear in deepseek_v2.py / qwen3_moe.py / llama4.py) and MLA's down
// projections q_a_proj and kv_a_proj_with_mqa (ReplicatedLinear in deepseek_v2.py). Everything else is a
// Column/RowParallelLinear, a FusedMoE sharded over TP, or VocabParallelEmbedding / ParallelLMHead.
// With --mm-encoder-tp-mode data the vision tower and its projector are whole on every rank too (the encoder
// layers built with disable_tp, e.g. MoonViTEncoderLayer in vllm/model_executor/models/kimi_k25_vit.py @055e47c2;
// the projector's ReplicatedLinear).
bool replicated_under_tp(const Scenario& s, const ParamGroup& g) {
    return g.role == Role::norm || g.role == Role::router || g.role == Role::q_a || g.role == Role::kv_a ||
           (s.vllm_mm_encoder_dp && !s.vllm_language_model_only && g.category == ParamCategory::vision);
}

// The fraction of the decoder's layers on this pipeline stage.
double stage_of(const Scenario& s) {
    return static_cast<double>(layers_per_stage(s)) / static_cast<double>(std::max<i64>(1, s.model.layers));
}

// Gemma 4's attention_k_eq_v layers have no v_proj in the checkpoint, but vLLM builds them one QKVParallelLinear
// with a V slot as wide as K and loads the key's weights into both (vllm/model_executor/models/gemma4.py
// @001cabc1, Gemma4Attention: "k_eq_v layers load K weights into both K and V slots"): one more k_proj per full-
// attention layer, in the checkpoint's format, over the whole model (the caller shards it over tp).
double k_eq_v_slots(const Scenario& s, double stage) {
    const ModelSpec& m = s.model;
    if (!m.traits.k_eq_v) return 0;
    i64 global = 0;
    for (i64 i = 0; i < m.layers; ++i) global += layer_slides(m, i) ? 0 : 1;
    ModelSpec only = m;
    only.params.clear();
    ParamGroup v;
    v.name = "v_proj";
    v.role = Role::v;
    v.rows = m.traits.global_kv_heads * m.traits.global_head_dim;
    v.cols = m.hidden;
    v.count = global;
    v.is_linear = true;
    only.params.push_back(v);
    return weight_bytes(only, s.weights, s.group_size).total() * stage;
}

// Per-GPU bytes of what "Model loading took X GiB" measures: the checkpoint's tensors as placed over TP,
// plus the buffers and derived tensors vLLM creates while loading.
double vllm_weight_bytes(const Scenario& s, const WeightBytes& w, double c, std::string& detail) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    const double tp = static_cast<double>(p.tp);
    double layers = 0;
    const i64 Lp = layers_per_stage(s);
    for (i64 i = 0; i < Lp && i < static_cast<i64>(w.layers.size()); ++i) layers += w.layers[static_cast<std::size_t>(i)];
    double weights = (layers + w.input + w.output) / tp;
    // --language-model-only (vLLM v0.18 and later): the multimodal model is built without its vision tower (e.g.
    // Qwen3VLForConditionalGeneration leaves `visual` None when no image or video is allowed per prompt), so
    // the tower's tensors are neither allocated nor loaded.
    if (s.vllm_language_model_only) {
        ModelSpec tower = m;
        tower.params.clear();
        for (const auto& g : m.params)
            if (g.category == ParamCategory::vision) tower.params.push_back(g);
        if (!tower.params.empty()) {
            weights -= weight_bytes(tower, s.weights, s.group_size).total() / tp;
            detail += ", no vision tower (--language-model-only)";
        }
    }
    if (p.tp > 1) {
        // The replicated tensors in the checkpoint's format: their bytes, counted once per rank instead of 1/tp.
        ModelSpec only = m;
        only.params.clear();
        for (const auto& g : m.params)
            if (replicated_under_tp(s, g)) only.params.push_back(g);
        const double stage = stage_of(s);
        const double rep = only.params.empty() ? 0.0 : weight_bytes(only, s.weights, s.group_size).total() * stage;
        weights += rep - rep / tp;
        if (rep > 0) detail += ", norms / routers / MLA down-projections replicated";
    }
    // RotaryEmbedding's cos_sin_cache buffer (vllm/model_executor/layers/rotary_embedding/base.py):
    // [max_position_embeddings, rotary_dim] in the model dtype, one per distinct rope setup (get_rope caches
    // instances), on every rank. MLA rotates only qk_rope_head_dim.
    if (m.traits.rope && m.max_positions > 0) {
        const i64 rot = m.attention == AttentionKind::mla ? m.mla.qk_rope_head_dim : m.head_dim;
        weights += static_cast<double>(m.max_positions) * static_cast<double>(rot) * c;
        // Gemma 4's full-attention layers rotate with rope_parameters["full_attention"] ("proportional"), a second
        // instance: Gemma4RotaryEmbedding (vllm/model_executor/layers/rotary_embedding/gemma4_rope.py @41c5903d)
        // keeps a cache over the whole global_head_dim (zero frequencies past the rotated part).
        if (m.traits.global_head_dim > 0) weights += static_cast<double>(m.max_positions) * static_cast<double>(m.traits.global_head_dim) * c;
        detail += ", rotary cos/sin cache";
    }
    weights += k_eq_v_slots(s, stage_of(s)) / tp;
    if (m.traits.k_eq_v) detail += ", the V slots of the k_eq_v layers (filled from K)";
    // MLA absorbs kv_b_proj into two dense copies after loading (MLACommonImpl.process_weights_after_loading:
    // W_UK_T [heads, qk_nope, kv_lora] and W_UV [heads, kv_lora, v_head], dequantised to the model dtype),
    // per layer, this rank's heads; the kv_b_proj weight stays loaded as well.
    if (m.attention == AttentionKind::mla) {
        const double heads = std::ceil(static_cast<double>(m.heads) / tp);
        const double per_layer = heads * static_cast<double>(m.mla.kv_lora_rank) *
                                 static_cast<double>(m.mla.qk_nope_head_dim + m.mla.v_head_dim) * c;
        weights += per_layer * static_cast<double>(Lp);
        detail += ", MLA's absorbed W_UK/W_UV copies";
    }
    // AMD GPUs: ROCm's weight padding, and what its loading figure counts besides (inference/rocm_loading.cpp).
    const RocmLoading rocm = rocm_loading(s);
    weights += rocm.padding + rocm.cached;
    detail += rocm.detail;
    return weights;
}

// The fused-MoE kernels' workspace (vllm/model_executor/layers/fused_moe/modular_kernel.py): allocated once for
// the largest layer and kept (a class-level SharedResizableBuffer, from v0.14 the v1 WorkspaceManager), so it
// is still held when the profile run samples. Triton experts (TritonExperts.workspace_shapes):
// workspace13 + workspace2 = M x top_k x (max(N, K) + max(N/2, K)) elements of the activation dtype, N =
// 2 x expert_intermediate / tp, K = hidden, M = the profiled tokens (under VLLM_FUSED_MOE_CHUNK_SIZE, 16384 or
// more). Block-quantised fp8 runs DeepGEMM's grouped GEMM (deep_gemm_moe.py, compute_aligned_M): its rows are
// M x top_k + experts x 127, rounded up to 128.
double moe_workspace_bytes(const Scenario& s, double tokens, double c, double tp) {
    const ModelSpec& m = s.model;
    if (m.moe.experts <= 0 || m.moe.top_k <= 0) return 0;
    // N: the first GEMM's width, gate and up (2 I) for gated experts, up alone (I) for ReLU^2 ones (Nemotron-H).
    const double gates = m.mlp == MlpKind::gated ? 2.0 : 1.0;
    const double K = static_cast<double>(m.hidden), N = gates * static_cast<double>(m.moe.expert_intermediate) / tp;
    double rows = tokens * static_cast<double>(m.moe.top_k);
    const WeightFormat* f = find_weight_format(s.weights);
    if (f && f->layout == WeightLayout::block_128) rows = std::ceil((rows + static_cast<double>(m.moe.experts) * 127.0) / 128.0) * 128.0;
    return rows * (std::max(N, K) + std::max(N / 2.0, K)) * c;
}

// vLLM v1's KV pool for a hybrid attention + Mamba model (HybridAttentionMambaModelConfig in
// vllm/model_executor/models/config.py; _get_kv_cache_groups_uniform_page_size and get_num_blocks in
// vllm/v1/core/kv_cache_utils.py): every layer's page has one size, so the attention block grows to the
// Mamba state's page (block = 16 x ceil(mamba page / (16 x attention bytes per token)); the Mamba page is
// padded to block x attention bytes). Layers form groups of g = the smaller layer count (the larger when it is
// under 1.5 x the smaller); the pool is g tensors of num_blocks pages, and a sequence takes ceil(len / block)
// blocks in each attention group and one block in each Mamba group (no prefix caching). The tokens vLLM
// reports are num_blocks // groups x block. A Falcon-H1 layer ('P') registers both an attention and a Mamba layer
// (vllm/model_executor/models/falcon_h1.py), so it counts in both.
HybridPool hybrid_pool(const Scenario& s, double pool, double attn_token_bytes) {
    HybridPool h;
    const ModelSpec& m = s.model;
    const double nA = static_cast<double>(attention_layers(m)), nM = static_cast<double>(m.hybrid.state_blocks());
    const double mamba_page = mamba_state_bytes_per_layer(s);
    if (attn_token_bytes <= 0 || nA <= 0) return h;
    h.block = nM > 0 ? 16.0 * std::ceil(mamba_page / (16.0 * attn_token_bytes)) : static_cast<double>(s.block_size);
    const double page = h.block * attn_token_bytes;
    double g = nM > 0 ? std::min(nA, nM) : nA;
    if (nM > 0 && std::max(nA, nM) < 1.5 * g) g = std::max(nA, nM);
    h.groups_a = std::ceil(nA / g);
    h.groups_m = nM > 0 ? std::ceil(nM / g) : 0.0;
    h.blocks = std::floor(pool / (g * page));
    h.tokens = std::floor(h.blocks / (h.groups_a + h.groups_m)) *
               std::min(h.block, s.max_model_len > 0 ? static_cast<double>(s.max_model_len) : h.block);
    return h;
}

}  // namespace

// Startup (vllm/worker gpu_worker.determine_available_memory): load weights, profile one forward of
// max_num_batched_tokens tokens and a sampler run over max_num_seqs sequences, then give
// gpu_memory_utilization x total - weights - activation peak - non-torch memory to the KV cache, in blocks
// of block_size tokens. CUDA graphs are captured afterwards, outside that budget.
void vllm_engine(const Scenario& s, Bill& b, const WeightBytes& w) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    const double tp = static_cast<double>(p.tp), c = compute_bytes(s);
    std::string wdetail = (w.detail.empty() ? s.weights : w.detail) + (p.tp > 1 ? ", sharded over tp " + std::to_string(p.tp) : "");
    const double weights = vllm_weight_bytes(s, w, c, wdetail);
    add_line(b, "weights", weights, wdetail);
    const i64 Lp = layers_per_stage(s);
    const double N = static_cast<double>(s.max_num_batched_tokens);
    // Sampler profiling (V1 GPUModelRunner._dummy_sampler_run): min(max_num_seqs, max_num_batched_tokens)
    // rows of logits with temperature 0.5, top_p 0.9 and top_k = vocab - 1, so the sampler takes the sorting
    // path of vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p. Its peak is inside the sort of the
    // rows (torch.sort, pytorch aten/src/ATen/native/cuda/SortStable.cu segmented_sort_pairs, 128 rows or
    // more): the caller's 16-bit logits 2 B, the fp32 copy 4, the sorted values 4 and int64 indices 8, the
    // int64 reverse_indices it fills 8, and cub's segmented radix sort's alternate key and value buffers
    // 4 + 8 = 38 B per logit (later, the masks, probs_sort and the scatter hold less: 28 B).
    // The sampler runs while the forward's hidden states (N x h) and the MoE workspace are still held.
    // From v0.17 (PR #33538, vllm/v1/sample/ops/topk_topp_triton.py) batches of 8 rows or more take a Triton
    // kernel that masks the fp32 logits in place: the peak is then the 16-bit logits 2 B, the fp32 logits 4,
    // forward_native's softmax probabilities 4 and random_sample's exponential noise q 4 = 14 B per logit,
    // plus the kernel's cached fp32 scratch of min(next_pow2(min(SMs, rows)), SMs) x vocab (132 SMs on H100/H200).
    const double rows = static_cast<double>(std::min<i64>(s.max_num_seqs, s.max_num_batched_tokens));
    const double moe = moe_workspace_bytes(s, N, c, tp);
    const double V = static_cast<double>(m.vocab);
    const bool triton = s.vllm_sampler == VllmSampler::triton && rows >= 8;
    const double scratch_rows = std::min(next_power_of_two(std::min(132.0, rows)), 132.0);
    const double sample = triton ? rows * V * 14.0 + scratch_rows * V * 4.0 : rows * V * 38.0;
    const double sampler = sample + (moe > 0 ? moe + N * static_cast<double>(m.hidden) * c : 0.0);
    const double act = std::max(layer_forward_bytes(s, N, N, c, tp) + moe, sampler);
    add_line(b, "activations", act, "profiled forward peak: " + whole(N) + " batched tokens (MLP intermediates) or the sampler over " + std::to_string(s.max_num_seqs) + " sequences (" + (triton ? "Triton top-k/top-p, v0.17+" : "sorted top-k/top-p, v0.16 and earlier") + ")" + (moe > 0 ? ", with the fused-MoE workspace (" + gib(moe) + ")" : ""));
    const CudaContext context = cuda_context(b.gpu);
    // requested_memory = MemorySnapshot.total_memory x gpu_memory_utilization (vllm/v1/worker/gpu_worker.py),
    // the total of torch.cuda.mem_get_info(): the torch-visible total where the catalog has it.
    const double total = static_cast<double>(b.gpu.memory_torch_bytes > 0 ? b.gpu.memory_torch_bytes : b.gpu.memory_bytes);
    const double budget = s.gpu_memory_utilization * total;
    const double pool = std::max(0.0, budget - weights - act - context.bytes);
    // CUDA graphs: vLLM issue #7553 measured 2464 MiB per GPU for the captured batch sizes (0 with enforce_eager).
    const double graphs = s.enforce_eager ? 0.0 : 2464.0 * kMiB;
    const double eb = kv_element_bytes(s);
    const double per_token_layer = kv_mean_layer_token_bytes(s, eb);
    const double block = static_cast<double>(s.block_size);
    // One sequence's blocks: per layer, ceil(tokens / block) blocks. A sliding layer keeps only the
    // window, but a window that starts inside a block still holds that whole block: window + block
    // tokens bound it (vLLM v1 frees a sliding layer's blocks once they fall wholly outside the window).
    auto seq_bytes = [&](double len) {
        double t = 0;
        for (i64 i = 0; i < Lp; ++i) {
            if (m.attention == AttentionKind::compressed) {  // DeepSeek-V4: window, pooled entries, indexer keys
                t += compressed_layer_bytes(s, i, len, block);
                continue;
            }
            if (!layer_attends(m, i)) continue;
            const double tokens = layer_slides(m, i) ? std::min(len, static_cast<double>(m.sliding_window) + block) : len;
            t += std::ceil(tokens / block) * block * kv_layer_token_bytes_at(s, eb, i);
        }
        return t;
    };
    const double len = static_cast<double>(s.prompt_len + s.gen_len);
    const double one = seq_bytes(len);
    std::int64_t seqs = one > 0 ? static_cast<std::int64_t>(std::floor(pool / one)) : 0;
    double kv_tokens = per_token_layer > 0 ? std::floor(pool / (per_token_layer * static_cast<double>(Lp) * block)) * block : 0;
    double shown_block = block;
    bool refuses = s.max_model_len > 0 && seq_bytes(static_cast<double>(s.max_model_len)) > pool;
    if (!m.hybrid.pattern.empty()) {
        const HybridPool h = hybrid_pool(s, pool, per_token_layer);
        seqs = h.sequences(len);
        kv_tokens = h.tokens;
        shown_block = h.block;
        refuses = s.max_model_len > 0 && h.sequences(static_cast<double>(s.max_model_len)) < 1;
    }
    add_line(b, "kv_cache", pool, "vLLM block pool: " + gib(budget) + " (gpu_memory_utilization " + whole(s.gpu_memory_utilization * 100) + " %) - weights - activations - non-torch = " + whole(kv_tokens) + " tokens in " + whole(shown_block) + "-token blocks, " + std::to_string(seqs) + " sequences of " + whole(len) + " tokens" + (m.hybrid.pattern.empty() ? "" : " (attention and Mamba state share the pool's pages)"));
    add_line(b, "cuda_graphs", graphs, "CUDA graphs captured after the pool (vLLM #7553: 2464 MiB per GPU)");
    add_line(b, "cuda_context", context.bytes, context.detail + "; vLLM counts it as non-torch memory");
    b.kv_pool_bytes = saturated_bytes(pool);
    b.kv_pool_sequences = seqs;
    b.peak_allocated_bytes = component_sum(b) - saturated_bytes(context.bytes);  // weights + act + pool + graphs
    b.peak_reserved_bytes = b.peak_allocated_bytes;                              // the pool is one preallocation: no caching slack to speak of
    b.device_bytes = b.peak_reserved_bytes + saturated_bytes(context.bytes);
    const std::int64_t need = std::max<std::int64_t>(s.batch, 1);
    // vLLM fills its budget by design: it runs when the pool holds one sequence (vLLM refuses to start
    // otherwise) and the whole fits the GPU; a pool for fewer than `batch` sequences queues the rest
    // (the verdict's amber, bill_format.cpp verdict_of).
    bool ok = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes && seqs >= 1;
    if (seqs < need)
        b.warnings.push_back("vLLM's KV pool (gpu_memory_utilization " + whole(s.gpu_memory_utilization * 100) + " %) holds " +
                             std::to_string(seqs) + " sequences of " + whole(len) + " tokens; batch " + std::to_string(s.batch) +
                             " needs " + std::to_string(need) + (pool <= 0 ? " (no room is left for a pool at all)" : ""));
    if (refuses) {
        ok = false;
        b.warnings.push_back("vLLM refuses to start: one sequence of max_model_len " + std::to_string(s.max_model_len) +
                             " tokens needs more KV cache than the pool holds");
    }
    if (s.batch > s.max_num_seqs)
        b.warnings.push_back("batch exceeds max_num_seqs (" + std::to_string(s.max_num_seqs) + "): vLLM queues the rest");
    b.fits = ok;
    // What the verdict asks of the pool: the batch, as far as the scheduler runs it at once (max_num_seqs).
    b.serving_budget = ServingBudget{s.gpu_memory_utilization, saturated_bytes(budget), saturated_bytes(graphs), s.prompt_len + s.gen_len,
                                     std::min(need, std::max<std::int64_t>(s.max_num_seqs, 1)), s.max_model_len, !refuses && seqs >= 1};
    b.peak_phase = "serving";
}

}  // namespace vramcalc::detail
