// The solvers: the largest micro-batch, sequence length, concurrency and context that fit a GPU, for one
// GPU or a whole catalog. Each asks the estimator (estimate_peak) at the points the search visits.
#include "solvers/solvers.hpp"

#include <map>
#include <tuple>

#include "common/checked.hpp"
#include "runtime/runtime.hpp"
#include "solvers/search.hpp"
#include "time/speed.hpp"
#include "vramcalc/estimate.hpp"

namespace vramcalc {

std::int64_t solve_max_batch(const Scenario& base, std::int64_t cap) {
    Scenario s = base;
    const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
    return detail::largest_fitting(cap, [&](std::int64_t n) {
        (s.workload == Workload::train ? s.micro_batch : s.batch) = n;
        return static_cast<double>(estimate_peak(s).device_bytes) <= budget;
    });
}

std::int64_t solve_max_seq_len(const Scenario& base, std::int64_t cap) {
    Scenario s = base;
    const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
    return detail::largest_fitting(cap, [&](std::int64_t n) {
        s.seq_len = n;
        return static_cast<double>(estimate_peak(s).device_bytes) <= budget;
    });
}

namespace detail {

namespace {

// A scenario "fits" for a solver when the engine can serve it: vLLM needs the pool to hold the
// sequences; the others need device memory within target_utilization of the GPU.
bool serves(const Scenario& t) {
    const Bill b = estimate_peak(t);
    if (t.framework == Framework::vllm) return b.fits;
    return static_cast<double>(b.device_bytes) <= static_cast<double>(t.gpu.memory_bytes) * t.target_utilization;
}

template <class Set>
std::int64_t largest_serving(const Scenario& base, std::int64_t cap, Set set) {
    Scenario t = base;
    return largest_fitting(cap, [&](std::int64_t n) { set(t, n); return serves(t); });
}

}  // namespace

std::int64_t max_concurrent_sequences(const Scenario& base) {
    if (base.model.count_only) return 0;
    if (base.framework == Framework::vllm) {
        const Bill b = estimate_peak(base);
        return std::min(b.kv_pool_sequences.value_or(0), base.max_num_seqs);
    }
    if (base.framework == Framework::llamacpp) {
        // llama.cpp's n_ctx cells are shared: sequences of this length that fit in n_ctx.
        const std::int64_t len = std::max<std::int64_t>(1, base.prompt_len + base.gen_len);
        return estimate_peak(base).fits ? base.n_ctx / len : 0;
    }
    return largest_serving(base, 1 << 16, [](Scenario& t, std::int64_t n) { t.batch = n; });
}

InferenceLimits inference_limits(const Scenario& base) {
    InferenceLimits r;
    if (base.model.count_only) return r;
    r.max_concurrent_sequences = max_concurrent_sequences(base);
    if (base.framework == Framework::llamacpp) {
        r.max_context = largest_serving(base, std::int64_t{1} << 24, [](Scenario& t, std::int64_t n) {
            t.n_ctx = n;
            t.prompt_len = std::max<std::int64_t>(0, n - t.gen_len);
        });
    } else {
        const std::int64_t n = largest_serving(base, std::int64_t{1} << 24, [](Scenario& t, std::int64_t v) {
            t.prompt_len = v;
            if (t.max_model_len > 0) t.max_model_len = std::max(t.max_model_len, v + t.gen_len);
        });
        r.max_context = n > 0 ? n + base.gen_len : 0;
    }
    return r;
}

}  // namespace detail

std::vector<CatalogFit> solve_catalog(const Scenario& base, const std::vector<GpuSpec>& gpus) {
    std::vector<CatalogFit> out(gpus.size());
    // Training (without RLHF, whose rollout engine sizes itself by the GPU's memory) sees a GPU only through
    // its CUDA context (runtime/runtime.cpp) and its memory: device bytes = torch bytes of the scenario +
    // the GPU's context. So every GPU shares one table of torch bytes, the GPUs are solved in order of the
    // budget left beside their context, and each search starts from the previous GPU's answer (a larger
    // budget never gives a smaller one). Inference and RLHF: one solve per GPU.
    const bool shared = base.workload == Workload::train && base.rlhf.algorithm == RlhfAlgorithm::none;
    auto context = [](const GpuSpec& g) { return detail::saturated_bytes(detail::cuda_context(g).bytes); };
    auto room = [&](const GpuSpec& g) {
        return static_cast<double>(g.memory_bytes) * base.target_utilization - static_cast<double>(context(g));
    };
    std::vector<std::size_t> order(gpus.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return room(gpus[a]) < room(gpus[b]); });
    std::map<std::pair<int, std::int64_t>, std::int64_t> torch;  // (field, value) -> device bytes less the context
    std::int64_t prev_batch = 0, prev_len = 0;
    const std::int64_t batch_cap = 1 << 16, len_cap = std::int64_t{1} << 24;
    // Shared: the scenario's own bill once; each GPU adds its context (and its speed figures).
    const Bill shared_bill = shared ? estimate_peak(base) : Bill{};
    const std::int64_t shared_torch = shared ? shared_bill.device_bytes - context(base.gpu) : 0;
    for (std::size_t i : order) {
        const GpuSpec& g = gpus[i];
        Scenario s = base;
        s.gpu = g;
        CatalogFit& f = out[i];
        f.gpu = g;
        Bill b = shared ? shared_bill : estimate_peak(s);
        if (shared) {
            b.gpu = g;
            b.device_bytes = shared_torch + context(g);
            b.fits = g.memory_bytes > 0 && b.device_bytes <= g.memory_bytes;
        }
        f.device_bytes = b.device_bytes;
        f.fits = b.fits;
        detail::estimate_speed(s, b);
        f.tokens_per_s = b.speed ? b.speed->tokens_per_s : 0;
        if (s.workload == Workload::infer) {
            const detail::InferenceLimits lim = detail::inference_limits(s);
            f.max_batch = f.max_concurrent_sequences = lim.max_concurrent_sequences;
            f.max_context = lim.max_context;
            continue;
        }
        if (!shared) {
            f.max_batch = solve_max_batch(s, batch_cap);
            if (!s.model.count_only) f.max_seq_len = solve_max_seq_len(s, len_cap);
            continue;
        }
        const double budget = room(g);
        auto fits = [&](int field, std::int64_t n) {
            auto [it, fresh] = torch.try_emplace({field, n}, 0);
            if (fresh) {
                Scenario t = s;
                (field == 0 ? t.micro_batch : t.seq_len) = n;
                it->second = estimate_peak(t).device_bytes - context(g);
            }
            return static_cast<double>(it->second) <= budget;
        };
        f.max_batch = prev_batch = detail::largest_fitting(batch_cap, [&](std::int64_t n) { return fits(0, n); }, prev_batch);
        if (!s.model.count_only)
            f.max_seq_len = prev_len = detail::largest_fitting(len_cap, [&](std::int64_t n) { return fits(1, n); }, prev_len);
    }
    return out;
}

}  // namespace vramcalc
