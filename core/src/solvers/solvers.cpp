// The solvers: the largest micro-batch, sequence length, concurrency and context that fit a GPU, for one
// GPU or a whole catalog. Each asks the estimator (estimate_peak) at the points the search visits.
#include "solvers/solvers.hpp"

#include <algorithm>

#include "common/checked.hpp"
#include "formats/recipes.hpp"
#include "runtime/runtime.hpp"
#include "runtime/sdpa.hpp"
#include "solvers/search.hpp"
#include "time/speed.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/estimate.hpp"

namespace vramcalc {

namespace {

// The largest value of one scenario field whose device bytes stay within target_utilization of the GPU.
std::int64_t largest_of(const Scenario& base, std::int64_t Scenario::*field, std::int64_t cap) {
    Scenario s = base;
    detail::CostTable bytes([&](std::int64_t n) {
        s.*field = n;
        return estimate_peak(s).needed_bytes;
    });
    return bytes.largest_within(static_cast<double>(s.gpu.memory_bytes) * s.target_utilization, cap);
}

}  // namespace

std::int64_t solve_max_batch(const Scenario& base, std::int64_t cap) {
    return largest_of(base, base.workload == Workload::train ? &Scenario::micro_batch : &Scenario::batch, cap);
}

std::int64_t solve_max_seq_len(const Scenario& base, std::int64_t cap) { return largest_of(base, &Scenario::seq_len, cap); }

namespace detail {
namespace {

// The largest value of `set` an engine can serve: vLLM needs its pool to hold the sequences (a yes or no:
// plain gallop + bisect); the others need device memory within target_utilization of the GPU (a byte
// cost: the interpolating search of search.hpp).
template <class Set>
std::int64_t largest_serving(const Scenario& base, std::int64_t cap, Set set) {
    Scenario t = base;
    if (t.framework == Framework::vllm)
        return largest_fitting(cap, [&](std::int64_t n) {
            set(t, n);
            const Bill b = estimate_peak(t);
            return b.fits && b.kv_pool_sequences.value_or(0) >= std::max<std::int64_t>(t.batch, 1);
        });
    CostTable bytes([&](std::int64_t n) { set(t, n); return estimate_peak(t).needed_bytes; });
    return bytes.largest_within(static_cast<double>(t.gpu.memory_bytes) * t.target_utilization, cap);
}

}  // namespace

std::int64_t max_concurrent_sequences(const Scenario& base) {
    if (base.model.count_only) return 0;
    if (base.framework == Framework::vllm) {
        const Bill b = estimate_peak(base);
        return b.fits ? std::min(b.kv_pool_sequences.value_or(0), base.max_num_seqs) : 0;
    }
    if (base.framework == Framework::llamacpp) {
        // llama.cpp's n_ctx cells are shared: sequences of this length that fit in n_ctx.
        const std::int64_t len = std::max<std::int64_t>(1, base.prompt_len + base.gen_len);
        return estimate_peak(base).fits ? base.n_ctx / len : 0;
    }
    return largest_serving(base, 1 << 16, [](Scenario& t, std::int64_t n) { t.batch = n; });
}

ContextCap context_cap(const Scenario& s) {
    // vLLM refuses a request longer than max_model_len ("This model's maximum context length is ...",
    // vllm/v1/engine/processor.py); torchtune's generation stops its KV cache at max_seq_len.
    if ((s.framework == Framework::vllm || s.framework == Framework::torchtune) && s.max_model_len > 0 && s.workload == Workload::infer)
        return {s.max_model_len, "max_model_len"};
    if (s.model.max_positions > 0) return {s.model.max_positions, "the model's max_position_embeddings"};
    return {};
}

InferenceLimits inference_limits(const Scenario& base) {
    InferenceLimits r;
    if (base.model.count_only) return r;
    r.max_concurrent_sequences = max_concurrent_sequences(base);
    if (base.model.stack) return r;  // a fixed input shape: no context to solve for
    if (base.framework == Framework::llamacpp) {
        r.memory_context = largest_serving(base, std::int64_t{1} << 24, [](Scenario& t, std::int64_t n) {
            t.n_ctx = n;
            t.prompt_len = std::max<std::int64_t>(0, n - t.gen_len);
        });
    } else {
        const std::int64_t n = largest_serving(base, std::int64_t{1} << 24, [](Scenario& t, std::int64_t v) {
            t.prompt_len = v;
            if (t.max_model_len > 0) t.max_model_len = std::max(t.max_model_len, v + t.gen_len);
        });
        r.memory_context = n > 0 ? n + base.gen_len : 0;
    }
    const ContextCap cap = context_cap(base);
    r.max_context = cap.tokens > 0 ? std::min(r.memory_context, cap.tokens) : r.memory_context;
    return r;
}

}  // namespace detail

std::vector<CatalogFit> solve_catalog(const Scenario& base, const std::vector<GpuSpec>& gpus) {
    std::vector<CatalogFit> out(gpus.size());
    // Training (without RLHF, whose rollout engine sizes itself by the GPU's memory) sees a GPU only through
    // its CUDA context (runtime/runtime.cpp) and its memory: device bytes = torch bytes of the scenario +
    // the GPU's context. So every GPU shares one table of torch bytes per field (search.hpp CostTable), and
    // the GPUs are solved in order of the budget left beside their context, so each search interpolates
    // between the costs its neighbours already visited. Inference and RLHF: one solve per GPU; so are paged
    // optimizers, whose states spill to host RAM by as much as the GPU lacks (runtime.cpp, spill_paged_states).
    const bool shared = base.workload == Workload::train && base.rlhf.algorithm == RlhfAlgorithm::none &&
                        !detail::paged_states(base.optimizer);
    // SDPA's math path (bf16 before Ampere: runtime/sdpa.cpp) keeps the scores, so on a GPU whose kernel differs
    // from the scenario's own GPU's the activations differ too: such a GPU gets a solve of its own.
    const bool math = detail::training_sdpa_math(base, base.gpu);
    auto shares = [&](const GpuSpec& g) { return shared && detail::training_sdpa_math(base, g) == math; };
    auto context = [](const GpuSpec& g) { return detail::saturated_bytes(detail::torch_run_context(g).bytes); };
    auto room = [&](const GpuSpec& g) {
        return static_cast<double>(g.memory_bytes) * base.target_utilization - static_cast<double>(context(g));
    };
    std::vector<std::size_t> order(gpus.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return room(gpus[a]) < room(gpus[b]); });
    const std::int64_t batch_cap = 1 << 16, len_cap = std::int64_t{1} << 24;
    // Shared: the scenario's own bill once; each GPU adds its context (and its speed figures).
    const Bill shared_bill = shared ? estimate_peak(base) : Bill{};
    const std::int64_t shared_torch = shared ? shared_bill.needed_bytes - context(base.gpu) : 0;
    // The reserve a GPU that never runs out would show; a smaller GPU's stops at its memory (runtime.cpp).
    const std::int64_t shared_device =
        !shared                                 ? 0
        : shared_bill.replay_reserve_bytes >= 0 ? shared_bill.peak_allocated_bytes + shared_bill.replay_reserve_bytes + shared_bill.torch_uncounted_bytes
                                                : shared_bill.device_bytes - context(base.gpu);
    // Device bytes less the context, by micro-batch and by sequence length, shared by every GPU.
    auto torch_bytes = [&](std::int64_t Scenario::*field) {
        return [&base, field, &context](std::int64_t n) {
            Scenario t = base;
            t.*field = n;
            return estimate_peak(t).needed_bytes - context(base.gpu);
        };
    };
    detail::CostTable by_batch(torch_bytes(&Scenario::micro_batch)), by_len(torch_bytes(&Scenario::seq_len));
    for (std::size_t i : order) {
        const GpuSpec& g = gpus[i];
        Scenario s = base;
        s.gpu = g;
        CatalogFit& f = out[i];
        f.gpu = g;
        const bool own = !shares(g);
        Bill b = !own ? shared_bill : estimate_peak(s);
        if (!own) {
            b.gpu = g;
            b.needed_bytes = shared_torch + context(g);
            b.device_bytes = detail::device_on_gpu(b.needed_bytes, shared_device + context(g), g.memory_bytes);
            b.fits = g.memory_bytes > 0 && b.needed_bytes <= g.memory_bytes;
        }
        f.device_bytes = b.device_bytes;
        f.fits = b.fits;
        f.verdict = verdict_of(b);  // the bill's own rule: vLLM's budget, or the target utilisation
        detail::estimate_speed(s, b);
        f.tokens_per_s = b.speed ? b.speed->tokens_per_s : 0;
        f.time_for_dataset_s = b.speed ? b.speed->time_for_dataset_s : 0;
        if (s.workload == Workload::infer) {
            const detail::InferenceLimits lim = detail::inference_limits(s);
            f.max_batch = f.max_concurrent_sequences = lim.max_concurrent_sequences;
            f.max_context = lim.max_context;
            continue;
        }
        // The longest sequence, as the bill's: no longer than the model was trained for (estimate.cpp).
        const std::int64_t positions = s.model.max_positions > 0 ? s.model.max_positions : len_cap;
        if (own) {
            f.max_batch = solve_max_batch(s, batch_cap);
            if (!s.model.count_only && !s.model.stack) f.max_seq_len = std::min(solve_max_seq_len(s, len_cap), positions);
            continue;
        }
        const double budget = room(g);
        f.max_batch = by_batch.largest_within(budget, batch_cap);
        if (!s.model.count_only && !s.model.stack) f.max_seq_len = std::min(by_len.largest_within(budget, len_cap), positions);
    }
    return out;
}

}  // namespace vramcalc
