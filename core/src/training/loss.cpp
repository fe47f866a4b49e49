#include "training/loss.hpp"

#include <algorithm>
#include <cmath>

#include "common/power_of_two.hpp"
#include "formats/recipes.hpp"

namespace vramcalc::detail {
namespace {

// torchtune's CEWithChunkedOutputLoss splits the logits into num_output_chunks = 8 (its default, which the
// recipes keep).
constexpr double kTorchtuneLossChunks = 8;

// torchtitan's chunked loss (torchtitan/components/loss.py @b5bcd76c, ChunkedLossWrapper.Config.num_chunks = 8):
// ChunkedCELoss from 786e26f8 (2026-04-27), ChunkedLossWrapper from 9530a874 (2026-06-26), the loss of the
// llama3 and qwen3 configs since.
constexpr double kTorchtitanLossChunks = 8;

// Gemma-2's final soft-capping, cap x tanh(logits / cap) (Gemma2ForCausalLM.forward; LitGPT GPT.forward,
// per lm_head chunk): tanh keeps its output (the logits' dtype) for backward, and the division's output is a
// transient beside it. The fused loss never materialises the logits.
void add_final_softcap(const Scenario& s, const ModelSpec& m, double c, double T, LossMemory& l) {
    // No logits tensor: fused and cce; chunked_nll soft-caps one 256-token chunk inside its transient.
    if (!m.traits.final_softcap || s.loss == Loss::fused || s.loss == Loss::cce || s.loss == Loss::chunked_nll) return;
    const double V = static_cast<double>(m.vocab);
    l.saved += c * V * T;
    l.forward_peak += c * V * T;
    l.detail += " + final soft-capping (tanh output kept)";
}

// Bytes per logit of the fp32 copy the loss makes, 0 when it runs in the compute dtype. .float() on fp32
// logits is a no-op. Under the HF Trainer with 16-bit precision, accelerate runs the forward inside
// torch.autocast, whose fp32 op list holds log_softmax / cross_entropy, so the loss is fp32 whatever the
// model code does (accelerate accelerator.py, native_amp). With DeepSpeed, accelerate leaves native_amp off
// (accelerate 0.22 accelerator.py: native_amp excludes DistributedType.DEEPSPEED) and the engine has no
// autocast, so only a model whose forward calls logits.float() (transformers' causal-LM heads) upcasts;
// Qwen-1's remote code (loss_upcasts_logits false) keeps a 16-bit log-softmax.
double loss_upcast_bytes(const Scenario& s, const ModelSpec& m, double c) {
    if (c == 4) return 0;
    if (s.framework == Framework::deepspeed && !m.traits.loss_upcasts_logits) return 0;
    return 4;
}

// Apple's Cut Cross-Entropy (apple/ml-cross-entropy, cut_cross_entropy/cce.py @1f3ebdb2, v24.12.1):
// forward computes each row's log-sum-exp block by block from the hidden states e and the output weight c
// and keeps e, lse (fp32 per token) and a per-vocab fp32 logit_avg; backward (cce_backward.py) allocates de
// like e and, for a trained output weight, dc like c (v24.12.1 allocated dc for a frozen one too, V x h in
// the compute dtype; v25.1.1, commit 76f350d6, only when it needs a gradient). No logits tensor exists.
// Unsloth calls it only for more than 1024 tokens (unsloth/models/llama.py @e3162dc5 L1015); below that its
// own Fast_CrossEntropyLoss runs on the full 16-bit logits, upcasting in registers, keeping fp32 losses and
// log-sum-exp per token, and writing the gradient into the logits in place (kernels/cross_entropy_loss.py
// L264, L285-330).
void cut_cross_entropy(const Scenario& s, const ModelSpec& m, double c, double T, bool head_trained, LossMemory& l) {
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    if (s.framework == Framework::unsloth && T <= 1024) {
        l.saved = c * V * T + 8 * T;
        l.forward_peak = 0;
        l.backward_peak = 0;
        l.detail = "Unsloth's cross-entropy kernel at 1024 tokens or fewer: full 16-bit logits, gradient written in place";
        return;
    }
    l.saved = c * h * T + 4 * T + 4 * V;
    l.forward_peak = 0;
    l.backward_peak = c * h * T + (head_trained ? c * V * h : 0);
    l.detail = "Cut Cross-Entropy: no logits tensor (hidden states, log-sum-exp; backward's input gradient)";
}

// TRL's SFT loss `chunked_nll` (trl/trainer/sft_trainer.py @f2cd5771, _chunked_cross_entropy_loss and _chunk;
// the SFTConfig default from TRL 1.7, PR #5846, unless use_liger_kernel): the model's forward is patched to skip
// the lm_head; the hidden states are reordered (valid tokens first: hidden[order], a copy of T x h) and cut into
// chunks of 256 tokens (_CHUNKED_LM_HEAD_CHUNK_SIZE), each run under torch.utils.checkpoint, so a chunk keeps
// only its input until backward recomputes it. Inside a chunk: `h.float() @ w.float().t()` makes an fp32 copy
// of a 16-bit output weight (V x h x 4 B; none when the model is fp32), which autocast casts back to 16 bits for
// the matmul (V x h x 2 B); then the chunk's logits (K x V, 16-bit under autocast), the fp32 log-softmax and,
// for the logged entropy, log_p.exp() and its product with log_p (fp32 each). Backward recomputes the chunk and
// adds the fp32 gradients of log_p and of the logits and, for a trained output weight, its 16-bit gradient and
// the fp32 gradient of w.float() (the persistent .grad is counted with the gradients). `w_bytes`: the weight's
// dtype as the recipe keeps it (training_recipe: fp32 for the HF Trainer's *-mixed and fp32, else 16-bit);
// the hidden states are in that dtype too (the final norm runs in the weights' dtype under autocast).
void trl_chunked_nll(const Scenario& s, const ModelSpec& m, double c, double T, bool head_trained, LossMemory& l) {
    constexpr double kChunk = 256;  // _CHUNKED_LM_HEAD_CHUNK_SIZE
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    const double w_bytes = training_recipe(s.precision, s.framework).weight;
    const double weight_copies = (w_bytes == 4 ? 0 : 4 * V * h) + (c == 2 ? 2 * V * h : 0);
    const double K = std::min(kChunk, T);
    l.saved = w_bytes * h * T + 16 * T;  // the reordered hidden states, the int64 labels and order
    l.forward_peak = weight_copies + (c + 12) * K * V;
    l.backward_peak = weight_copies + (c + 16) * K * V + (head_trained ? 6 * V * h : 0);
    l.detail = "TRL's chunked_nll: 256 tokens' logits at a time, each chunk checkpointed (an fp32 copy of the output weight per chunk)";
}

// torchtitan's ChunkedLossWrapper runs the output layer and the loss one sequence chunk at a time and calls
// backward on each chunk inside the loss call (docstring steps 1-7): it detaches the hidden states, copies
// them into num_chunks contiguous chunks (torch.split(...) then .contiguous()), and gathers the chunks'
// input gradients into one [B, L, h] buffer (GradAccumulator) that the decoder's backward starts from. So
// the buffer is what the loss keeps; the chunk copies and one chunk's logits work are the loss's transient:
// its logits (c), and as in `standard` the fp32 log-softmax and the two fp32 gradients of its backward
// (3 s per logit), or with the inner loss compiled its 16-bit input and gradient (2 c). The chunk's output
// weight gradient is reduce-scattered per chunk, as every layer's is.
// `s_bytes`: the loss's working dtype (loss_memory's).
void torchtitan_chunked_loss(const ModelSpec& m, bool compiled, double c, double s_bytes, double T, LossMemory& l) {
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    const double per_logit = compiled ? 2 * c : c + 3 * s_bytes;
    l.saved = c * h * T;
    l.forward_peak = c * h * T + per_logit * V * T / kTorchtitanLossChunks;
    l.backward_peak = 0;
    l.detail = "torchtitan chunked loss: " + std::to_string(static_cast<int>(kTorchtitanLossChunks)) +
               " sequence chunks, each run forward and backward inside the loss; the hidden states' gradient kept";
}

}  // namespace

LossMemory loss_memory(const Scenario& s, const ModelSpec& m, double c, double T, bool head_trained) {
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    LossMemory l;
    if (m.arch == Arch::encoder) return l;  // BERT-style models here are counted without a task head
    const double upcast = loss_upcast_bytes(s, m, c);
    const double s_bytes = upcast > 0 ? 4 : c;  // the loss's working dtype: fp32 after an upcast, else the logits'
    const bool compiled = s.compile && s.compile_loss;
    if (s.loss == Loss::chunked && s.framework == Framework::torchtitan) {
        torchtitan_chunked_loss(m, compiled, c, s_bytes, T, l);
        return l;
    }
    if (compiled && (s.loss == Loss::standard || s.loss == Loss::chunked)) {
        // Compiled cross-entropy (torchtune training.compile_loss): inductor fuses the upcast, log-softmax
        // and NLL into one kernel whose backward needs only its input and a per-row fp32 log-sum-exp, so no
        // fp32 log-softmax is kept. standard: the model's output.float() logits (fp32) are that input;
        // chunked: the 16-bit logit chunks are, and one chunk's gradient exists at a time in backward.
        const bool chunked = s.loss == Loss::chunked;
        const double chunks = chunked ? kTorchtuneLossChunks : 1.0;
        // torchtitan's model returns bf16 logits and its loss function casts them (cross_entropy(pred.float(),
        // ...), torchtitan/components/loss.py), so the cast is inside the compiled graph and its input stays
        // 16-bit; torchtune's model returns output.float(), fp32 before the compiled loss.
        const bool cast_inside = s.framework == Framework::torchtitan;
        const double in_bytes = chunked || upcast == 0 || cast_inside ? c : upcast;  // 16-bit, or the fp32 logits
        l.saved = in_bytes * V * T + 4 * T;
        l.forward_peak = chunked ? 0 : c * V * T;
        l.backward_peak = in_bytes * V * T / chunks;
        l.detail = std::string(chunked ? "chunked" : "full") + " logits, compiled cross-entropy (no fp32 log-softmax kept)";
        add_final_softcap(s, m, c, T, l);
        return l;
    }
    switch (s.loss) {
        case Loss::standard: {
            // transformers: logits for every position in the compute dtype, upcast to fp32 for the loss;
            // cross_entropy saves its log-softmax (s bytes: fp32, or 16-bit with no upcast). Backward:
            // nll_loss's dense gradient and log_softmax's gradient exist beside the saved output (3 s per
            // logit; the logits themselves left with the model's outputs), then the gradient is cast back
            // to c. Liger-Kernel's benchmark reproduces it: torch's cross-entropy on fp32 (16384, V)
            // logits peaks at 5 x 4 B per logit with the input and its .grad, bf16 logits without .float()
            // at 3 x 2 B (benchmark/data/all_benchmark_data.csv, tests/data/loss_kernels.json).
            l.saved = s_bytes * V * T;
            l.forward_peak = (c + upcast) * V * T;
            l.backward_peak = 2 * s_bytes * V * T;
            l.detail = "full logits (" + std::to_string(static_cast<int>(c)) + " B)" +
                       (upcast > 0     ? " + fp32 upcast + fp32 log-softmax"
                        : s_bytes == 4 ? " + fp32 log-softmax"
                                       : " + 16-bit log-softmax (no upcast, no autocast)");
            if (m.traits.shifted_logits_copy) {
                // Qwen (1.x) remote code, QWenLMHeadModel.forward (families.cpp): the shifted 16-bit logits
                // are copied before the loss. The slice's backward builds a zero-filled full-size gradient,
                // but only after log_softmax's gradients are freed, so the backward stays within 3 s.
                l.forward_peak += c * V * T;
                l.detail += " + shifted copy (Qwen remote code)";
            }
            break;
        }
        case Loss::chunked: {
            // torchtune CEWithChunkedOutputLoss (8 chunks) / LitGPT chunked_cross_entropy (128 positions):
            // each chunk is upcast and its log-softmax saved; only one chunk's upcast exists at a time.
            const double chunks = s.framework == Framework::litgpt
                                      ? std::max(1.0, std::ceil(static_cast<double>(s.seq_len) / 128.0))
                                      : kTorchtuneLossChunks;
            l.saved = 4 * V * T;
            l.forward_peak = c * V * T + upcast * V * T / chunks;
            l.backward_peak = c * V * T + upcast * V * T / chunks;
            l.detail = "chunked cross-entropy: logits + fp32 log-softmax, one chunk upcast at a time";
            break;
        }
        case Loss::fused: {
            // Liger fused linear cross-entropy: logits exist one chunk of tokens at a time; chunk =
            // next_power_of_2(ceil(T / ceil(V / h))). The input gradient (T x h) is computed in forward.
            const double chunk = next_power_of_two(std::ceil(T / std::ceil(V / h)));
            l.saved = c * h * T + (head_trained ? 4 * V * h : 0);
            l.forward_peak = (c + 4) * V * std::min(chunk, T);
            l.backward_peak = 0;
            l.detail = "fused linear cross-entropy: no full logits";
            break;
        }
        case Loss::cce:
            cut_cross_entropy(s, m, c, T, head_trained, l);
            break;
        case Loss::chunked_nll:
            trl_chunked_nll(s, m, c, T, head_trained, l);
            break;
        case Loss::liger_ce: {
            // Liger-Kernel's LigerCrossEntropyLoss (src/liger_kernel/ops/cross_entropy.py @b5672a15): the Triton
            // kernel reads each row, upcasting in registers, and writes the row's gradient over it (L185); the
            // Function keeps that tensor and returns it as the gradient (L209), so nothing beside the logits is
            // allocated but an fp32 loss per token. apply_liger_kernel_to_* swaps the cross-entropy the model's
            // loss calls, so the model's own upcast (logits.float(), autocast) still makes the buffer fp32, and
            // the gradient is cast back to the logits' dtype after. Liger's benchmark: fp32 (16384, V) logits
            // peak at 4 B per logit plus 0.33 MiB at every V (tests/data/loss_kernels.json).
            l.saved = s_bytes * V * T + 4 * T;
            l.forward_peak = upcast > 0 ? c * V * T : 0;
            l.backward_peak = upcast > 0 ? c * V * T : 0;
            l.detail = std::string("full logits, Liger cross-entropy (gradient written in place") + (upcast > 0 ? ", fp32 upcast)" : ")");
            break;
        }
    }
    add_final_softcap(s, m, c, T, l);
    return l;
}

}  // namespace vramcalc::detail
