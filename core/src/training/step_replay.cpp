#include "training/step_replay.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/lora_targets.hpp"
#include "runtime/caching_allocator.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {
namespace {

using Handle = CachingAllocator::Handle;

// `shape` scaled so that it sums to `total` bytes (empty or zero: one tensor of `total`).
std::vector<double> scaled(const std::vector<double>& shape, double total) {
    if (total <= 0) return {};
    const double sum = std::accumulate(shape.begin(), shape.end(), 0.0);
    if (shape.empty() || sum <= 0) return {total};
    std::vector<double> out;
    out.reserve(shape.size());
    for (const double x : shape)
        if (x > 0) out.push_back(x * total / sum);
    return out;
}

// The allocator and the peaks seen so far. Tensors up to 1 MiB (kSmallSize of CUDACachingAllocator.cpp) (LoRA's adapters, norms, biases) come from the
// small pool's 2 MiB segments, which they share whatever their lifetimes; they are left out, so only the large
// pool, where whole segments follow the big tensors, is replayed (and the replay stays fast).
constexpr double kSmallTensor = 1 << 20;
struct Replay {
    CachingAllocator a;
    ReplayPeak peak;

    Handle malloc(double bytes) {
        if (bytes <= kSmallTensor) return 0;
        const Handle h = a.malloc(static_cast<std::int64_t>(std::ceil(std::min(bytes, 9.0e18))));
        peak.allocated = std::max(peak.allocated, static_cast<double>(a.allocated()));
        peak.reserved = std::max(peak.reserved, static_cast<double>(a.reserved()));
        peak.needed = std::max(peak.needed, static_cast<double>(a.pinned()));
        return h;
    }
    std::vector<Handle> malloc_all(const std::vector<double>& sizes) {
        std::vector<Handle> hs;
        hs.reserve(sizes.size());
        for (const double s : sizes) hs.push_back(malloc(s));
        return hs;
    }
    void free(Handle h) {
        if (h) a.free(h);
    }
    void free_all(std::vector<Handle>& hs) {
        for (const Handle h : hs) free(h);
        hs.clear();
    }
};

// `shape` scaled so that it sums to `total`, one entry per entry of `shape` (zeros kept, so that indices still
// name the layers).
std::vector<double> scaled_each(const std::vector<double>& shape, double total) {
    const double sum = std::accumulate(shape.begin(), shape.end(), 0.0);
    std::vector<double> out(shape.size(), 0.0);
    if (sum > 0)
        for (std::size_t i = 0; i < shape.size(); ++i) out[i] = shape[i] * total / sum;
    return out;
}

// An aggregate of the loss as logits-shaped tensors: whole fp32 logits and what is left.
std::vector<double> logits_pieces(double total, double unit) {
    std::vector<double> out;
    if (unit <= 0) return scaled({}, total);
    for (; total > 1.5 * unit; total -= unit) out.push_back(unit);
    if (total >= 1) out.push_back(total);
    return out;
}

// What one trained layer keeps from its forward to its backward, by checkpointing mode (training_step.cpp).
std::vector<double> kept_tensors(const StepInputs& in, const std::vector<double>& saved) {
    switch (in.checkpointing) {
        case Checkpointing::full:
            return {in.layer_input};
        case Checkpointing::selective_op:
            return {in.layer_op_kept};
        case Checkpointing::offload:
            return {};
        default:
            return saved;
    }
}

}  // namespace

// The same events as simulate_step, with each aggregate split into its tensors: the forward keeps each layer's
// tensors, the loss's transients come and go, the backward brings a recomputed layer back, adds that layer's
// gradients and frees what it kept; the first optimizer.step() creates the states beside the gradients
// (torch/optim/adamw.py _init_group: zeros_like per parameter), every step allocates and frees the step's
// temporaries, and zero_grad(set_to_none=True) frees the gradients.
ReplayPeak replay_step(const StepInputs& in, const StepTensors& t, int steps) {
    Replay r;
    const double states = std::min(t.optimizer_states, in.static_bytes);
    r.malloc(in.static_bytes - states);  // the weights, loaded before the step and never freed
    const std::vector<double> saved = scaled(t.layer_saved, in.layer_act);
    const std::vector<double> kept = kept_tensors(in, saved);
    const bool recompute = recomputes_layers(in.checkpointing);
    const std::vector<double> layer_grads = scaled(t.layer_params, in.grad_per_layer);
    const std::vector<double> head_grads = scaled(t.head_params, in.grad_head);
    const std::int64_t first = in.layers - in.trained_layers;

    // Each parameter's share of the states and step temporaries, in the order the optimizer walks them.
    std::vector<double> params = head_grads;
    for (std::int64_t i = first; i < in.layers; ++i) params.insert(params.end(), layer_grads.begin(), layer_grads.end());
    const double param_sum = std::accumulate(params.begin(), params.end(), 0.0);
    std::vector<double> state_sizes, temp_sizes;
    for (const double p : params)
        if (param_sum > 0) {
            for (int k = 0; k < t.states_per_param; ++k) state_sizes.push_back(states * p / param_sum / t.states_per_param);
            temp_sizes.push_back(in.optimizer_temp * p / param_sum);
        }

    std::vector<Handle> grads, state_handles;
    for (int step = 0; step < steps; ++step) {
        std::vector<std::vector<Handle>> layer_kept(static_cast<std::size_t>(std::max<std::int64_t>(0, in.layers)));
        // A layer stack keeps each layer's saved tensors as its forward reaches it.
        const bool stack = !t.stack_saved.empty();
        Handle extra = stack ? 0 : r.malloc(in.extra_act);
        std::vector<Handle> stack_kept;
        if (stack)
            for (const double x : scaled_each(t.stack_saved, in.extra_act)) stack_kept.push_back(r.malloc(x));
        for (std::int64_t i = first; i < in.layers; ++i) {
            if (recompute) {  // the layer runs without saving; its intermediates come and go
                std::vector<Handle> tmp = r.malloc_all(saved);
                r.free_all(tmp);
            }
            layer_kept[static_cast<std::size_t>(i)] = r.malloc_all(kept);
        }
        std::vector<Handle> loss_saved = r.malloc_all(logits_pieces(in.logits_saved, t.logits_tensor));
        // A hand-written loop's outputs (keep_outputs): the logits, taken from the forward peak's tensors.
        const Handle outputs = r.malloc(in.outputs_kept);
        std::vector<Handle> loss_temp = r.malloc_all(logits_pieces(std::max(0.0, in.logits_forward_peak - in.outputs_kept), t.logits_tensor));
        r.free_all(loss_temp);
        std::vector<Handle> loss_back = r.malloc_all(logits_pieces(in.logits_backward_peak, t.logits_tensor));
        const bool new_grads = !in.grads_persist || step == 0;
        if (new_grads)
            for (const Handle h : r.malloc_all(head_grads)) grads.push_back(h);
        r.free_all(loss_back);
        r.free_all(loss_saved);
        for (std::int64_t i = in.layers - 1; i >= first; --i) {
            std::vector<Handle> tmp = recompute ? r.malloc_all(saved) : std::vector<Handle>{};
            const Handle transient = r.malloc(in.layer_transient);
            if (new_grads)
                for (const Handle h : r.malloc_all(layer_grads)) grads.push_back(h);
            r.free(transient);
            r.free_all(tmp);
            r.free_all(layer_kept[static_cast<std::size_t>(i)]);
        }
        if (stack) {
            // Backward walks the stack in reverse: each layer makes the gradient of its input while the gradient
            // of its output is alive, then frees that and what the layer saved (torch/csrc/autograd/engine.cpp
            // releases a node's saved variables once it ran, unless retain_graph).
            Handle g = r.malloc(t.stack_grads.back());
            for (std::size_t i = stack_kept.size(); i-- > 0;) {
                const Handle gi = i > 0 ? r.malloc(t.stack_grads[i - 1]) : 0;  // the input images need no gradient
                r.free(g);
                r.free(stack_kept[i]);
                g = gi;
            }
        }
        r.free(extra);
        if (step == 0) state_handles = r.malloc_all(state_sizes);
        std::vector<Handle> temps = r.malloc_all(temp_sizes);
        r.free_all(temps);
        if (!in.grads_persist) r.free_all(grads);
        r.free(outputs);
    }
    return r.peak;
}

}  // namespace vramcalc::detail

namespace vramcalc::detail {
namespace {

double shape_elements(const std::vector<i64>& shape) {
    double n = 1;
    for (const i64 d : shape) n *= static_cast<double>(d);
    return n;
}

// A layer stack's step: each layer's newly saved tensors (stack_training.cpp's per-sample counts x the
// micro-batch), the gradient of each layer's output in the activation dtype, and every parameter tensor of the
// stack as the optimizer walks them (the stack's gradients all count as the head's: model_states.cpp).
StepTensors stack_step_tensors(const Scenario& s, const ModelSpec& m, const ActivationSetup& a, double optimizer_states) {
    const LayerStack& st = *m.stack;
    const double b = static_cast<double>(s.micro_batch);
    StepTensors t;
    for (const StackLayer& l : st.layers) {
        t.stack_saved.push_back(l.saved_bytes(a.compute) * b + l.saved_per_batch_bytes);
        t.stack_grads.push_back(shape_elements(l.out_shape) * b * a.compute);
    }
    for (const ParamGroup& g : m.params)
        for (i64 k = 0; k < g.count; ++k) {
            t.head_params.push_back(static_cast<double>(g.rows * g.cols));
            if (g.bias) t.head_params.push_back(static_cast<double>(g.rows));
        }
    t.optimizer_states = optimizer_states;
    t.logits_tensor = shape_elements(st.output_shape()) * b * 4.0;
    t.states_per_param = s.optimizer == Optimizer::adamw || s.optimizer == Optimizer::adamw_8bit ? 2 : 1;
    return t;
}

}  // namespace

std::optional<StepTensors> step_tensors(const Scenario& s, const ModelSpec& m, const ActivationSetup& a, double optimizer_states) {
    const bool single = s.num_gpus <= 1 && s.tp <= 1 && s.pp <= 1 && s.cp <= 1 && s.sharding == Sharding::none;
    const bool engine = s.framework == Framework::deepspeed || s.framework == Framework::megatron;
    if (!single || engine || s.offload != Offload::none || s.optimizer_in_backward || m.count_only) return std::nullopt;
    if (m.stack) return stack_step_tensors(s, m, a, optimizer_states);
    if (m.layers <= 0) return std::nullopt;
    StepTensors t;
    const double b = static_cast<double>(s.micro_batch), q = static_cast<double>(s.seq_len);
    const bool selective = s.checkpointing == Checkpointing::selective;
    for (const SavedTensor& x : layer_saved_tensors(m, a))
        if (!(selective && x.attention_core)) t.layer_saved.push_back((x.per_token + x.per_token_key * q) * b * q);
    const double L = static_cast<double>(m.layers + (m.arch == Arch::encoder_decoder ? m.encoder_layers : 0));
    const bool lora = s.method == Method::lora || s.method == Method::qlora;
    for (const ParamGroup& g : m.params) {
        const bool head = g.category == ParamCategory::embeddings || g.category == ParamCategory::lm_head;
        const double per_layer = head ? static_cast<double>(g.count) : static_cast<double>(g.count) / L;
        auto add = [&](double elems) {
            auto& list = head ? t.head_params : t.layer_params;
            for (int k = 0; k < static_cast<int>(std::ceil(per_layer)); ++k) list.push_back(elems);
        };
        if (lora) {
            if (!head && g.is_linear && lora_targets(s.lora, g)) {
                add(static_cast<double>(s.lora.rank * g.cols));  // lora_A
                add(static_cast<double>(g.rows * s.lora.rank));  // lora_B
            }
        } else if (s.method == Method::full || s.method == Method::freeze) {
            add(static_cast<double>(g.rows * g.cols));
            if (g.bias) add(static_cast<double>(g.rows));
        }
    }
    t.optimizer_states = optimizer_states;
    t.logits_tensor = b * q * static_cast<double>(m.vocab) * 4.0;
    t.states_per_param = s.optimizer == Optimizer::adamw || s.optimizer == Optimizer::adamw_8bit ? 2 : 1;
    return t;
}

}  // namespace vramcalc::detail
