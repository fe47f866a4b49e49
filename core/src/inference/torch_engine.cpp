// PyTorch engines: transformers, LitGPT, torchtune (and DeepSpeed/Megatron run as transformers).
#include "inference/engines.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "bill/lines.hpp"
#include "common/checked.hpp"
#include "common/format.hpp"
#include "formats/recipes.hpp"
#include "formats/weight_formats.hpp"
#include "inference/generate_replay.hpp"
#include "inference/kv_cache.hpp"
#include "inference/placement.hpp"
#include "runtime/runtime.hpp"

namespace vramcalc::detail {
namespace {

// bitsandbytes' transients, for the largest quantised linear (N weights; a layer's linears are sharded over
// tp, LitGPT's quantised head is not):
//  - prefill (more than one row) dequantises each 4-bit linear it runs: bnb_dequant_copies x 2 B x N
//    (recipes.hpp), the head included where LitGPT quantised it (it runs on every prompt position);
//  - loading quantises each weight from an fp16 GPU copy (bitsandbytes 0.41 Params4bit.cuda / Int8Params.cuda,
//    Lightning's _quantize_weight): 2 B x N + the new 4-bit data, or for LLM.int8 the fp16 copy with
//    double_quant's CB and CBt, 4 B x N. The KV cache does not exist yet then.
struct BnbTransients {
    double prefill = 0, load = 0, n = 0, copies = 0;  // copies: 16-bit copies per dequantised weight
    bool int8 = false;                                // LLM.int8 (the table's kind), else 4-bit
};
BnbTransients bnb_transients(const Scenario& s, const Bill& b, const WeightBytes& w, double tp) {
    if (!is_bnb(s.weights)) return {};
    BnbTransients t;
    t.n = std::max(w.largest_layer_linear / tp, w.quantized_head);
    const WeightFormat* f = find_weight_format(s.weights);
    t.int8 = f && f->kind == WeightKind::int8;
    if (t.int8) {
        t.load = 4.0 * t.n;
    } else {
        t.copies = bnb_dequant_copies(s.framework, !b.gpu.bf16);
        t.prefill = t.copies * 2.0 * t.n;
        t.load = 2.0 * t.n + quantized_linear_bytes(s.weights, 1, static_cast<i64>(t.n));
    }
    return t;
}

bool has_role(const ModelSpec& m, Role r) {
    return std::any_of(m.params.begin(), m.params.end(), [r](const ParamGroup& g) { return g.role == r && g.category != ParamCategory::experts; });
}

// The caching allocator's reserve above the allocated peak for transformers' generate() with its DynamicCache on
// one GPU: the prefill replayed tensor by tensor (generate_replay.cpp). `allocated` is the bill's allocated peak
// in the phase `prefill_peak` names. The decode steps reuse the prefill's cached segments (the cache grows by
// one token per step, far less than the prefill's freed working memory), so a decode peak sees what the prefill
// left reserved. MoE, hybrid, MLA and encoder models, several GPUs, the tuple cache and bitsandbytes keep the
// fitted reserve (runtime.cpp reserved_bytes): their layers run other tensors.
bool replays_generate(const Scenario& s, double allocated) {
    const ModelSpec& m = s.model;
    const Split p = split_of(s);
    constexpr double kReplayLimit = 1125899906842624.0;  // 1 PiB: a saturated bill keeps the fitted reserve
    return s.framework == Framework::hf && s.hf_cache == HfCache::dynamic && p.tp == 1 && p.pp == 1 && m.arch == Arch::decoder &&
           m.moe.experts == 0 && m.hybrid.state_blocks() == 0 && m.attention == AttentionKind::standard && m.layers > 0 &&
           !m.count_only && !m.stack && allocated <= kReplayLimit;
}

// bitsandbytes' 4/8-bit linears run the same layer (their dequantised weight is one more transient, not replayed).
void generate_reserve(const Scenario& s, Bill& b, double weights, double allocated, bool prefill_peak) {
    const ModelSpec& m = s.model;
    if (!replays_generate(s, allocated)) return;
    const double c = compute_bytes(s), T = static_cast<double>(s.batch) * static_cast<double>(s.prompt_len);
    PrefillLayer l;  // per prompt token
    l.hidden = static_cast<double>(m.hidden) * c;
    l.norm_fp32 = m.norm == NormKind::rms ? static_cast<double>(m.hidden) * 4 : 0;
    l.q = static_cast<double>(m.heads * m.head_dim) * c;
    l.kv = static_cast<double>(m.kv_heads * m.head_dim) * c;
    l.attn_out = l.q;
    l.mlp = static_cast<double>(m.intermediate) * c;
    l.kv_block = kv_layer_token_bytes(s, kv_element_bytes(s)) / 2;
    l.fused_qkv = has_role(m, Role::qkv);
    l.fused_gate_up = has_role(m, Role::gate_up);
    l.gated = m.mlp == MlpKind::gated;
    l.rope = m.traits.rope;
    const PrefillReserve r = prefill_reserve(l, m.layers, T);
    // The weights are segments of their own, loaded first and never freed: the replay leaves them out. The
    // head's logits come after the layers, into the segments they freed.
    const double over = prefill_peak ? r.reserved - r.allocated : weights + r.reserved - allocated;
    b.replay_reserve_bytes = saturated_bytes(std::max(0.0, over));
    b.replay_pinned_bytes = saturated_bytes(std::clamp(r.needed - r.allocated, 0.0, std::max(0.0, over)));
}

}  // namespace

void torch_engine(const Scenario& s, Bill& b, const WeightBytes& w) {
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
    const std::string where = p.tp > 1   ? " (layers sharded over tp " + std::to_string(p.tp) + ")"
                              : p.pp > 1 ? " (" + std::to_string(Lp) + " of " + std::to_string(m.layers) + " layers on the first GPU)"
                                         : "";
    add_line(b, "weights", weights, (w.detail.empty() ? s.weights : w.detail) + where);

    // KV cache. transformers' DynamicCache grows with the sequence (prompt at prefill, prompt + generated
    // at the end); LitGPT allocates prompt + max_new_tokens up front (model.set_kv_cache); torchtune's
    // setup_caches sizes the cache to the model's max_seq_len (or max_model_len when given).
    const bool stat = s.framework == Framework::litgpt || s.framework == Framework::torchtune;
    double cache_len = len;
    if (s.framework == Framework::torchtune)
        cache_len = static_cast<double>(s.max_model_len > 0 ? s.max_model_len : std::max<i64>(m.max_positions, s.prompt_len + s.gen_len));
    // A hybrid model adds its Mamba blocks' recurrent state per sequence, whatever the length.
    const double state = recurrent_state_bytes(s) * batch;
    auto kv_tokens = [&](double t) { return kv_bytes_for_tokens(s, t) * batch + state; };
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
    // The legacy tuple cache (hf_cache tuple) concatenates every layer into a new tuple while generate's
    // model_kwargs still holds the previous one, so at the end of the forward the whole cache exists twice, the
    // older copy one token shorter (transformers < 4.36 GenerationMixin: model_kwargs["past_key_values"] is
    // replaced by outputs.past_key_values only after the forward; Qwen-1's QWenAttention: key = torch.cat((past_key,
    // key), dim=1), present = (key, value)).
    const bool tuple_cache = s.framework == Framework::hf && s.hf_cache == HfCache::tuple;
    const double old_cache = tuple_cache ? kv_bytes_for_tokens(s, std::max(0.0, len - 1)) * batch : 0.0;
    const double concat = stat || tuple_cache ? 0 : kv_end / static_cast<double>(std::max<i64>(1, 2 * Lp));
    const double decode_act = layer_forward_bytes(s, batch, 1, c, tp) + concat;
    // LitGPT's boolean causal mask for the cache length (build_mask_cache).
    const double mask = s.framework == Framework::litgpt ? cache_len * cache_len : 0;

    if (s.framework == Framework::torchtune && s.max_model_len == 0)
        b.warnings.push_back("torchtune sizes its KV cache to the model's max_seq_len (" + whole(cache_len) + " tokens); set max_model_len to change it");
    const BnbTransients bnb = bnb_transients(s, b, w, tp);
    const double dequant = batch * P > 1 ? bnb.prefill : 0.0;
    // The logits come after the last layer has returned and freed its working memory (the model's forward
    // returns its normed hidden states, then the head runs: LlamaForCausalLM.forward; LitGPT GPT.forward), so
    // the prefill peaks at the larger of the two: the layer's working memory, or the logits beside the
    // normed hidden states that the model's output holds.
    const double head_hidden = s.framework == Framework::hf ? batch * P * static_cast<double>(m.hidden) * c : 0.0;
    const bool head_peak = logits_prefill + head_hidden > prefill_act;
    const double prefill_work = head_peak ? logits_prefill + head_hidden : prefill_act;
    const double prefill = kv_prefill + prefill_work + dequant;
    const double decode = kv_end + decode_act + logits_decode + old_cache;
    if (bnb.load > std::max(prefill, decode)) {  // loading is the peak: the weights and one weight being quantised
        add_line(b, "temporaries", bnb.load, "loading: bitsandbytes quantises each weight from an fp16 copy on the GPU (largest: " + count_short(bnb.n) + " weights, " + (bnb.int8 ? "fp16 + CB + CBt = 4 B" : "fp16 + 4-bit data") + " per weight)");
        b.peak_phase = "load";
        // Loading quantises one weight at a time: each fp16 copy is freed before the next is made, and the
        // next reuses its cached block, so the reserve at this peak is the peak itself.
        if (replays_generate(s, weights + bnb.load)) b.replay_reserve_bytes = b.replay_pinned_bytes = 0;
        close_torch_bill(b);
        return;
    }
    const bool prefill_peak = prefill > decode;
    add_line(b, "kv_cache", prefill_peak ? kv_prefill : kv_end,
             whole(kv_layer_token_bytes(s, kv_element_bytes(s)) * static_cast<double>(Lp)) + " B/token x " + whole(prefill_peak && !stat ? P : cache_len) +
                 " tokens x " + std::to_string(s.batch) + (stat ? " (static cache)" : " (cache grows with the sequence)") +
                 (state > 0 ? " + Mamba conv and SSM state " + gib(state) : ""));
    add_line(b, "activations", (prefill_peak ? (head_peak ? head_hidden : prefill_act) : decode_act) + mask,
             prefill_peak  ? (head_peak ? "prefill: the last layer's normed output, beside the logits"
                                        : "prefill of " + whole(batch * P) + " tokens, one layer at a time (MLP intermediates)")
             : tuple_cache ? "one decode step"
                           : "one decode step + the cache concatenation");
    add_line(b, "logits", prefill_peak ? (head_peak ? logits_prefill : 0.0) : logits_decode,
             prefill_peak && !head_peak     ? "after the layers, once their working memory is freed (not at the peak)"
             : s.framework == Framework::hf ? "last-position logits, bf16 + fp32 upcast + fp32 copy"
                                            : "logits for the prompt positions (compute dtype) + fp32 last position");
    if (prefill_peak && dequant > 0)
        add_line(b, "temporaries", dequant, "prefill: bitsandbytes dequantises the largest 4-bit linear (" + count_short(bnb.n) + " weights) to 16 bit" + (bnb.copies > 1 ? ", fp16 then bf16 (2 copies)" : ""));
    if (!prefill_peak && old_cache > 0)
        add_line(b, "temporaries", old_cache, "decode: the previous step's cache tuple (" + whole(len - 1) + " tokens), alive until the forward returns (hf_cache tuple)");
    b.peak_phase = prefill_peak ? "prefill" : "decode";
    generate_reserve(s, b, weights, weights + (prefill_peak ? prefill : decode), prefill_peak);

    close_torch_bill(b);
}

}  // namespace vramcalc::detail
