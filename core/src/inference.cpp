// The inference bill. One GPU's share of weights (weight_formats.cpp) and KV cache, plus the working
// memory of the engine that runs them:
//  - hf (transformers generate, DynamicCache), litgpt and torchtune (static caches): PyTorch tensors,
//    peak = max(prefill, last decode step), then the caching allocator and the CUDA context;
//  - vllm: weights + profiled activation peak, the rest of gpu_memory_utilization x memory becomes the
//    KV block pool, CUDA graphs on top;
//  - llama.cpp: ggml buffers (no caching allocator): GPU layers, KV for n_ctx cells, compute buffer;
//    the layers left on the CPU go to cpu_bytes.
// Sources next to each rule and in docs/methodology.md ("Inference").
#include "inference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "checked.hpp"
#include "recipes.hpp"
#include "vramcalc/units.hpp"
#include "vramcalc/validate.hpp"
#include "weight_formats.hpp"

namespace vramcalc::detail {
namespace {

std::int64_t to_bytes(double b) {
    return saturated_bytes(b);  // checked.hpp: saturates, never wraps
}

std::string gib(double b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / kGiB);
    return buf;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

void add(Bill& b, const char* id, double bytes, std::string detail) {
    if (bytes <= 0) return;
    b.components.push_back({id, to_bytes(bytes), std::move(detail)});
}

// Totals are sums of the components' integers (each at most kSaturatedBytes, so no overflow), so that
// the components always add up to device_bytes exactly, also for saturated absurd inputs.
std::int64_t component_sum(const Bill& b) {
    std::int64_t sum = 0;
    for (const auto& comp : b.components) sum += comp.bytes;
    return sum;
}

std::int64_t reserved_bytes(const TorchOverheads& o, std::int64_t allocated) {
    return std::max(allocated, saturated_bytes(o.reserved_from_allocated(static_cast<double>(allocated)), kSaturatedTotalBytes));
}

// The compute dtype's bytes: fp32 checkpoints compute in fp32; everything else in 16 bit.
double compute_bytes(const Scenario& s) { return s.weights == "fp32" ? 4.0 : 2.0; }

// Tensor and layer (pipeline) parallel degrees for inference. `tp`/`pp` as given; otherwise num_gpus
// > 1 means vLLM's --tensor-parallel-size (its usual use) or, for the PyTorch engines, transformers'
// device_map="auto", which splits the layers across the GPUs.
struct Split {
    i64 tp = 1, pp = 1;
};
Split split_of(const Scenario& s) {
    Split p{s.tp, s.pp};
    if (p.tp * p.pp == 1 && s.num_gpus > 1) {
        if (s.framework == Framework::vllm) p.tp = s.num_gpus;
        else if (s.framework != Framework::llamacpp) p.pp = s.num_gpus;
    }
    return p;
}

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
    return true;
}

// MLA: engines that know it (vLLM, llama.cpp) keep the latent; transformers expands K and V per head.
bool mla_latent(const Scenario& s) {
    return s.model.attention == AttentionKind::mla &&
           (s.framework == Framework::vllm || s.framework == Framework::llamacpp);
}

// KV bytes per token for one layer on one GPU (K and V, heads sharded by tensor parallelism; vLLM
// replicates KV heads when tp exceeds them, so a GPU holds at least one).
double kv_layer_token_bytes(const Scenario& s, double eb) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    const double L = static_cast<double>(std::max<i64>(1, m.layers));
    if (m.attention == AttentionKind::mla) {
        if (mla_latent(s)) return kv_bytes_per_token(m, eb, true) / L;  // latent: replicated across TP ranks
        const double heads = std::ceil(static_cast<double>(m.heads) / static_cast<double>(p.tp));
        return heads * static_cast<double>(m.head_dim + m.v_head_dim) * eb;
    }
    const double kv = std::max(1.0, std::ceil(static_cast<double>(m.kv_heads) / static_cast<double>(p.tp)));
    return 2.0 * kv * static_cast<double>(m.head_dim) * eb;
}

// Decoder layers on the most loaded GPU of a layer split.
i64 layers_per_stage(const Scenario& s) {
    const Split p = split_of(s);
    return (std::max<i64>(1, s.model.layers) + p.pp - 1) / p.pp;
}

// Working memory of one layer's forward over `T` tokens with no autograd: the residual stream and the
// normalised input, plus the larger of the MLP and attention intermediates (transformers modeling code:
// `down_proj(act_fn(gate_proj(x)) * up_proj(x))` holds three I-wide tensors at the product).
double layer_forward_bytes(const Scenario& s, double T, double prompt, double c, double tp) {
    const ModelSpec& m = s.model;
    const double h = static_cast<double>(m.hidden), I = static_cast<double>(m.intermediate);
    double mlp = 0;
    if (m.moe.experts > 0) {
        // Routed experts see top_k/E of the tokens each (one expert at a time in transformers' loop);
        // fp32 router probabilities; the shared expert sees all tokens; the T x h output the experts'
        // results are summed into (final_hidden_states in the transformers MoE blocks).
        const double Ie = static_cast<double>(m.moe.expert_intermediate);
        const double share = static_cast<double>(m.moe.top_k) / static_cast<double>(m.moe.experts);
        mlp = 3 * T * share * Ie * c + T * static_cast<double>(m.moe.experts) * 4 +
              3 * T * static_cast<double>(m.moe.shared_intermediate) * c + T * h * c;
    } else {
        mlp = (m.mlp == MlpKind::gated ? 3.0 : 2.0) * T * I * c;
    }
    const double q = static_cast<double>(m.heads * m.head_dim), kv = static_cast<double>(m.kv_heads * m.head_dim);
    double attn = T * (2 * q + 2 * kv) * c;  // q, k, v and the attention output (flash / SDPA kernels)
    if (s.attention == Attention::eager && s.framework == Framework::hf) {
        // Eager attention: scores, their fp32 softmax and the cast back (modeling_llama eager_attention_forward).
        attn += (T / std::max(1.0, prompt)) * static_cast<double>(m.heads) * prompt * prompt * (c + 4 + c);
    }
    return 2 * T * h * c + std::max(mlp, attn) / tp;
}

double params_of(const ModelSpec& m) { return static_cast<double>(count_parameters(m).total); }

// ---- PyTorch engines: transformers, LitGPT, torchtune (and DeepSpeed/Megatron run as transformers) ----
void torch_engine(const Scenario& s, Bill& b, const WeightBytes& w, const TorchOverheads& o) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    const double tp = static_cast<double>(p.tp), c = compute_bytes(s);
    const i64 Lp = layers_per_stage(s);
    const double batch = static_cast<double>(s.batch), P = static_cast<double>(s.prompt_len);
    const double len = static_cast<double>(s.prompt_len + s.gen_len);

    // Weights on the most loaded GPU. LitGPT's sequential generation keeps embeddings, the final norm and
    // the head on cuda:0 (litgpt/generate/sequentially.py); transformers' device_map="auto" puts the
    // embedding with the first layers and the head with the last. Tensor parallel shards the layers'
    // linears (LitGPT generate/tp.py) and replicates embeddings and head.
    double layer_w = 0;
    for (i64 i = 0; i < Lp && i < static_cast<i64>(w.layers.size()); ++i) layer_w += w.layers[static_cast<std::size_t>(i)];
    layer_w /= tp;
    double weights = layer_w + w.input + w.output;
    if (p.pp > 1 && s.framework != Framework::litgpt) weights = layer_w + std::max(w.input, w.output);
    const std::string where = p.tp > 1 ? " (layers sharded over tp " + std::to_string(p.tp) + ")"
                            : p.pp > 1 ? " (" + std::to_string(Lp) + " of " + std::to_string(m.layers) + " layers on the first GPU)" : "";
    add(b, "weights", weights, (w.detail.empty() ? s.weights : w.detail) + where);

    // KV cache. transformers' DynamicCache grows with the sequence (prompt at prefill, prompt + generated
    // at the end); LitGPT allocates prompt + max_new_tokens up front (model.set_kv_cache); torchtune's
    // setup_caches sizes the cache to the model's max_seq_len (or max_model_len when given).
    const bool stat = s.framework == Framework::litgpt || s.framework == Framework::torchtune;
    double cache_len = len;
    if (s.framework == Framework::torchtune)
        cache_len = static_cast<double>(s.max_model_len > 0 ? s.max_model_len : std::max<i64>(m.max_positions, s.prompt_len + s.gen_len));
    auto kv_tokens = [&](double t) { return kv_bytes_for_tokens(s, t) * batch; };
    const double kv_end = kv_tokens(cache_len);
    const double kv_prefill = stat ? kv_end : kv_tokens(P);

    // Prefill working memory (one layer at a time, no autograd) and the logits: transformers >= 4.45 keeps
    // the last position only (num_logits_to_keep=1) and upcasts it, and generate takes an fp32 copy;
    // LitGPT and torchtune compute logits for every prompt position.
    const double prefill_act = layer_forward_bytes(s, batch * P, P, c, tp);
    const double V = static_cast<double>(m.vocab);
    const double logits_prefill = s.framework == Framework::hf ? batch * V * (c + 4 + 4) : batch * P * V * c + batch * V * 4;
    const double logits_decode = batch * V * (c + 4 + 4);
    // Decode: DynamicCache.update concatenates K (then V) of one layer: the old and new tensors coexist.
    const double decode_act = layer_forward_bytes(s, batch, 1, c, tp) + (stat ? 0 : kv_end / static_cast<double>(std::max<i64>(1, 2 * Lp)));
    // LitGPT's boolean causal mask for the cache length (build_mask_cache).
    const double mask = s.framework == Framework::litgpt ? cache_len * cache_len : 0;

    const double prefill = kv_prefill + prefill_act + logits_prefill;
    const double decode = kv_end + decode_act + logits_decode;
    const bool prefill_peak = prefill > decode;
    add(b, "kv_cache", prefill_peak ? kv_prefill : kv_end,
        num(kv_layer_token_bytes(s, kv_element_bytes(s)) * static_cast<double>(Lp)) + " B/token x " + num(prefill_peak && !stat ? P : cache_len) +
            " tokens x " + std::to_string(s.batch) + (stat ? " (static cache)" : " (cache grows with the sequence)"));
    add(b, "activations", (prefill_peak ? prefill_act : decode_act) + mask,
        prefill_peak ? "prefill of " + num(batch * P) + " tokens, one layer at a time (MLP intermediates)"
                     : "one decode step + the cache concatenation");
    add(b, "logits", prefill_peak ? logits_prefill : logits_decode,
        s.framework == Framework::hf ? "last-position logits, bf16 + fp32 upcast + fp32 copy"
                                     : "logits for the prompt positions (compute dtype) + fp32 last position");
    b.peak_phase = prefill_peak ? "prefill" : "decode";

    b.peak_allocated_bytes = component_sum(b);
    b.peak_reserved_bytes = reserved_bytes(o, b.peak_allocated_bytes);
    add(b, "allocator_slack", static_cast<double>(b.peak_reserved_bytes - b.peak_allocated_bytes),
        "caching allocator: reserved = 1.004 x allocated + 0.38 GiB (fit to huggingface/peft#1469 runs)");
    add(b, "cuda_context", o.context_bytes, o.context_detail);
    b.device_bytes = b.peak_reserved_bytes + to_bytes(o.context_bytes);
    b.fits = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
    if (s.framework == Framework::torchtune && s.max_model_len == 0)
        b.warnings.push_back("torchtune sizes its KV cache to the model's max_seq_len (" + num(cache_len) + " tokens); set max_model_len to change it");
}

// ---- vLLM ----
// Startup (vllm/worker gpu_worker.determine_available_memory): load weights, profile one forward of
// max_num_batched_tokens tokens and a sampler run over max_num_seqs sequences, then give
// gpu_memory_utilization x total - weights - activation peak - non-torch memory to the KV cache, in blocks
// of block_size tokens. CUDA graphs are captured afterwards, outside that budget.
void vllm_engine(const Scenario& s, Bill& b, const WeightBytes& w, const TorchOverheads& o) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    const double tp = static_cast<double>(p.tp), c = compute_bytes(s);
    // vLLM shards every linear and the vocabulary (VocabParallelEmbedding, ParallelLMHead) over TP ranks.
    double layers = 0;
    const i64 Lp = layers_per_stage(s);
    for (i64 i = 0; i < Lp && i < static_cast<i64>(w.layers.size()); ++i) layers += w.layers[static_cast<std::size_t>(i)];
    const double weights = (layers + w.input + w.output) / tp;
    add(b, "weights", weights, (w.detail.empty() ? s.weights : w.detail) + (p.tp > 1 ? ", sharded over tp " + std::to_string(p.tp) : ""));
    const double N = static_cast<double>(s.max_num_batched_tokens);
    // Sampler profiling: fp32 logits, probabilities and log-probabilities for max_num_seqs sequences.
    const double sampler = static_cast<double>(s.max_num_seqs) * static_cast<double>(m.vocab) * 4 * 3;
    const double act = std::max(layer_forward_bytes(s, N, N, c, tp), sampler);
    add(b, "activations", act, "profiled forward peak: " + num(N) + " batched tokens (MLP intermediates) or the sampler over " +
                                   std::to_string(s.max_num_seqs) + " sequences");
    const double budget = s.gpu_memory_utilization * static_cast<double>(b.gpu.memory_bytes);
    const double pool = std::max(0.0, budget - weights - act - o.context_bytes);
    // CUDA graphs: vLLM issue #7553 measured 2464 MiB per GPU for the captured batch sizes (0 with enforce_eager).
    const double graphs = s.enforce_eager ? 0.0 : 2464.0 * 1048576.0;
    const double eb = kv_element_bytes(s);
    const double per_token_layer = kv_layer_token_bytes(s, eb);
    const double block = static_cast<double>(s.block_size);
    // One sequence's blocks: per layer, ceil(tokens / block) blocks. A sliding layer keeps only the
    // window, but a window that starts inside a block still holds that whole block: window + block
    // tokens bound it (vLLM v1 frees a sliding layer's blocks once they fall wholly outside the window).
    auto seq_bytes = [&](double len) {
        double t = 0;
        for (i64 i = 0; i < Lp; ++i) {
            const double tokens = layer_slides(m, i) ? std::min(len, static_cast<double>(m.sliding_window) + block) : len;
            t += std::ceil(tokens / block) * block * per_token_layer;
        }
        return t;
    };
    const double len = static_cast<double>(s.prompt_len + s.gen_len);
    const double one = seq_bytes(len);
    const std::int64_t seqs = one > 0 ? static_cast<std::int64_t>(std::floor(pool / one)) : 0;
    const double kv_tokens = per_token_layer > 0 ? std::floor(pool / (per_token_layer * static_cast<double>(Lp) * block)) * block : 0;
    add(b, "kv_cache", pool, "vLLM block pool: " + gib(budget) + " (gpu_memory_utilization " + num(s.gpu_memory_utilization * 100) +
                                 " %) - weights - activations - non-torch = " + num(kv_tokens) + " tokens in " + num(block) +
                                 "-token blocks, " + std::to_string(seqs) + " sequences of " + num(len) + " tokens");
    add(b, "cuda_graphs", graphs, "CUDA graphs captured after the pool (vLLM #7553: 2464 MiB per GPU)");
    add(b, "cuda_context", o.context_bytes, o.context_detail + "; vLLM counts it as non-torch memory");
    b.kv_pool_bytes = to_bytes(pool);
    b.kv_pool_sequences = seqs;
    b.peak_allocated_bytes = component_sum(b) - to_bytes(o.context_bytes);  // weights + act + pool + graphs
    b.peak_reserved_bytes = b.peak_allocated_bytes;  // the pool is one preallocation: no caching slack to speak of
    b.device_bytes = b.peak_reserved_bytes + to_bytes(o.context_bytes);
    const std::int64_t need = std::max<std::int64_t>(s.batch, 1);
    bool ok = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes && seqs >= need;
    if (s.max_model_len > 0 && seq_bytes(static_cast<double>(s.max_model_len)) > pool) {
        ok = false;
        b.warnings.push_back("vLLM refuses to start: one sequence of max_model_len " + std::to_string(s.max_model_len) +
                             " tokens needs more KV cache than the pool holds");
    }
    if (s.batch > s.max_num_seqs)
        b.warnings.push_back("batch exceeds max_num_seqs (" + std::to_string(s.max_num_seqs) + "): vLLM queues the rest");
    b.fits = ok;
    b.peak_phase = "serving";
}

// ---- llama.cpp ----
// llama-model.cpp load_tensors: the input embedding stays on the CPU; layer i is offloaded when
// i >= n_layer - n_gpu_layers; the output layer when n_gpu_layers > n_layer. The KV cache of a layer
// lives with the layer (n_ctx cells shared by all sequences). The CUDA compute buffer holds the largest
// tensors of one ubatch's graph (ggml-alloc reuses the rest): the f32 KQ scores without flash attention,
// the FFN intermediates, and the output logits.
void llamacpp_engine(const Scenario& s, Bill& b, const WeightBytes& w, const TorchOverheads& o) {
    const ModelSpec& m = s.model;
    const i64 L = std::max<i64>(1, m.layers);
    const i64 ngl = s.n_gpu_layers < 0 ? L + 1 : std::min(s.n_gpu_layers, L + 1);
    const i64 gpu_layers = std::min(ngl, L);
    const bool output_gpu = ngl > L;
    double gpu_w = output_gpu ? w.output : 0, cpu_w = w.input + (output_gpu ? 0 : w.output);
    for (i64 i = 0; i < L && i < static_cast<i64>(w.layers.size()); ++i)
        (i >= L - gpu_layers ? gpu_w : cpu_w) += w.layers[static_cast<std::size_t>(i)];
    add(b, "weights", gpu_w, (w.detail.empty() ? s.weights : w.detail) + ", " + std::to_string(gpu_layers) + " of " +
                                 std::to_string(L) + " layers on the GPU" + (output_gpu ? " + output" : ""));
    const double per_token_layer = kv_layer_token_bytes(s, kv_element_bytes(s));
    const double n_ctx = static_cast<double>(s.n_ctx);
    double gpu_kv = 0, cpu_kv = 0;
    for (i64 i = 0; i < L; ++i) {
        // Sliding-window layers get their own cache of n_swa + n_ubatch cells for one sequence
        // (llama-kv-cache-iswa.cpp, llama_kv_cache_iswa: size_swa = min(size_base, n_swa * n_seq_max + n_ubatch)).
        const double cells = layer_slides(m, i) ? std::min(n_ctx, static_cast<double>(m.sliding_window + s.n_ubatch)) : n_ctx;
        (i >= L - gpu_layers ? gpu_kv : cpu_kv) += per_token_layer * cells;
    }
    add(b, "kv_cache", gpu_kv, num(per_token_layer * static_cast<double>(L)) + " B/token x n_ctx " + num(n_ctx) +
                                   " cells (" + to_string(s.kv_dtype) + ")");
    const double ub = static_cast<double>(std::min<i64>(s.n_ubatch, s.n_ctx));
    const double kq = s.attention == Attention::flash ? 0 : static_cast<double>(m.heads) * n_ctx * ub * 4;
    // Two f32 ubatch x n_ff FFN tensors (gate and up) are live at the product.
    const double ffn = ub * static_cast<double>(std::max(m.intermediate, m.moe.expert_intermediate)) * 4 * 2;
    const double logits = output_gpu ? static_cast<double>(m.vocab) * ub * 4 : 0;
    // Beside the largest of those: the f32 residual stream of the ubatch and the layer's output (inpL, cur).
    const double compute = gpu_layers > 0 ? std::max({kq, ffn, logits}) + 2 * ub * static_cast<double>(m.hidden) * 4 : 0;
    add(b, "compute_buffer", compute, "ggml CUDA compute buffer for a " + num(ub) + "-token ubatch" +
                                          (kq > 0 ? " (f32 KQ scores, no flash attention)" : ""));
    const double ctx = gpu_layers > 0 || output_gpu ? o.context_bytes : 0;
    add(b, "cuda_context", ctx, o.context_detail);
    b.cpu_bytes += to_bytes(cpu_w + cpu_kv);
    b.device_bytes = component_sum(b);
    b.peak_allocated_bytes = b.device_bytes - to_bytes(ctx);
    b.peak_reserved_bytes = b.peak_allocated_bytes;  // ggml allocates its buffers once
    b.fits = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
    if (s.prompt_len + s.gen_len > s.n_ctx)
        b.warnings.push_back("prompt_len + gen_len exceeds n_ctx (" + std::to_string(s.n_ctx) + "): llama.cpp would shift or stop");
    b.peak_phase = "serving";
}

}  // namespace

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

double kv_bytes_for_tokens(const Scenario& s, double tokens) {
    const double per_token_layer = kv_layer_token_bytes(s, kv_element_bytes(s));
    const bool trims = engine_trims_window(s);
    const i64 layers = layers_per_stage(s);
    double t = 0;
    for (i64 i = 0; i < layers; ++i) {
        const double n = layer_slides(s.model, i) && trims ? std::min(tokens, static_cast<double>(s.model.sliding_window)) : tokens;
        t += per_token_layer * n;
    }
    return t;
}

void inference(const Scenario& s, Bill& b, const TorchOverheads& o) {
    const ModelSpec& m = s.model;
    if (m.count_only) {
        const double bytes = params_of(m) * nominal_bytes_per_param(s.weights);
        add(b, "weights", bytes, "parameter count x " + num(nominal_bytes_per_param(s.weights) * 8) + " bits");
        b.warnings.push_back("the KV cache and activations need the model's shapes: give a config.json");
        b.peak_allocated_bytes = to_bytes(bytes);
        b.peak_reserved_bytes = reserved_bytes(o, b.peak_allocated_bytes);
        add(b, "allocator_slack", static_cast<double>(b.peak_reserved_bytes - b.peak_allocated_bytes), "caching allocator");
        add(b, "cuda_context", o.context_bytes, o.context_detail);
        b.device_bytes = b.peak_reserved_bytes + to_bytes(o.context_bytes);
        b.fits = b.gpu.memory_bytes > 0 && b.device_bytes <= b.gpu.memory_bytes;
        return;
    }
    bool ok = true;
    const WeightBytes w = weight_bytes(m, s.weights, s.group_size, &ok);
    if (!ok) b.warnings.push_back("weights format \"" + s.weights + "\" has no byte rule: counted at 16 bit");
    if (is_gguf(s.weights) && s.framework != Framework::llamacpp)
        b.warnings.push_back("GGUF files are llama.cpp's format: set framework \"llama.cpp\"");
    if (m.arch == Arch::encoder_decoder)
        b.warnings.push_back("encoder-decoder inference: the cross-attention cache is not modelled yet");
    if (s.framework == Framework::vllm) vllm_engine(s, b, w, o);
    else if (s.framework == Framework::llamacpp) llamacpp_engine(s, b, w, o);
    else torch_engine(s, b, w, o);
}

void rule_of_thumb(const Scenario& s, Bill& b) {
    const double P = static_cast<double>(count_parameters(s.model).total);
    char buf[160];
    if (s.workload == Workload::infer) {
        // "Parameters x bytes per parameter x 1.2": the 20 % covers KV cache and activations at modest
        // batch and context (EleutherAI, "Transformer Math 101", 2023: total inference memory is about
        // 1.2 x the model's memory).
        const double bpp = nominal_bytes_per_param(s.weights);
        b.rule_of_thumb_bytes = to_bytes(P * bpp * 1.2);
        std::snprintf(buf, sizeof buf, "params x %.3g B (%s) x 1.2 (common rule of thumb)", bpp, s.weights.c_str());
    } else if (s.method == Method::full || s.method == Method::freeze) {
        // Mixed-precision Adam: 2 (weights) + 2 (gradients) + 12 (fp32 master, momentum, variance) bytes
        // per parameter (ZeRO paper, Rajbhandari et al. 2020, Sec. 3.1); activations not included.
        b.rule_of_thumb_bytes = to_bytes(P * 16);
        std::snprintf(buf, sizeof buf, "params x 16 B (Adam, mixed precision: ZeRO paper Sec. 3.1; no activations)");
    } else if (s.method == Method::lora) {
        // LLaMA-Factory's hardware table: LoRA/freeze-tuning needs about 2 GB per billion parameters (16-bit base).
        b.rule_of_thumb_bytes = to_bytes(P * 2);
        std::snprintf(buf, sizeof buf, "params x 2 B (LoRA, 16-bit frozen base: LLaMA-Factory README table)");
    } else {
        // LLaMA-Factory's table: QLoRA 8-bit x GB, 4-bit x/2 GB per billion parameters.
        const double bpp = s.quantization == Quantization::int8 ? 1.0 : 0.5;
        b.rule_of_thumb_bytes = to_bytes(P * bpp);
        std::snprintf(buf, sizeof buf, "params x %.2g B (QLoRA %s base: LLaMA-Factory README table)", bpp,
                      s.quantization == Quantization::int8 ? "8-bit" : "4-bit");
    }
    b.rule_of_thumb_formula = buf;
}

InferenceLimits inference_limits(const Scenario& base, Bill (*once)(const Scenario&)) {
    InferenceLimits r;
    // A scenario "fits" for a solver when the engine can serve it: vLLM needs the pool to hold the
    // sequences; the others need device memory within target_utilization of the GPU.
    auto serves = [&](const Scenario& t) {
        const Bill b = once(t);
        if (t.framework == Framework::vllm) return b.fits;
        return static_cast<double>(b.device_bytes) <= static_cast<double>(t.gpu.memory_bytes) * t.target_utilization;
    };
    auto largest = [&](std::int64_t cap, auto set) -> std::int64_t {
        Scenario t = base;
        auto ok = [&](std::int64_t n) { set(t, n); return serves(t); };
        if (!ok(1)) return 0;
        if (ok(cap)) return cap;
        std::int64_t lo = 1, hi = cap;
        while (hi - lo > 1) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            (ok(mid) ? lo : hi) = mid;
        }
        return lo;
    };
    if (base.model.count_only) return r;
    if (base.framework == Framework::vllm) {
        const Bill b = once(base);
        r.max_concurrent_sequences = std::min(b.kv_pool_sequences.value_or(0), base.max_num_seqs);
    } else if (base.framework == Framework::llamacpp) {
        // llama.cpp's n_ctx cells are shared: sequences of this length that fit in n_ctx.
        const std::int64_t len = std::max<std::int64_t>(1, base.prompt_len + base.gen_len);
        const Bill b = once(base);
        r.max_concurrent_sequences = b.fits ? base.n_ctx / len : 0;
    } else {
        r.max_concurrent_sequences = largest(1 << 16, [](Scenario& t, std::int64_t n) { t.batch = n; });
    }
    if (base.framework == Framework::llamacpp) {
        r.max_context = largest(std::int64_t{1} << 24, [](Scenario& t, std::int64_t n) {
            t.n_ctx = n;
            t.prompt_len = std::max<std::int64_t>(0, n - t.gen_len);
        });
    } else {
        const std::int64_t n = largest(std::int64_t{1} << 24, [](Scenario& t, std::int64_t v) {
            t.prompt_len = v;
            if (t.max_model_len > 0) t.max_model_len = std::max(t.max_model_len, v + t.gen_len);
        });
        r.max_context = n > 0 ? n + base.gen_len : 0;
    }
    return r;
}

}  // namespace vramcalc::detail
