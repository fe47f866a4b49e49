// The serving matrix (vramcalc/serving_matrix.hpp): one concurrency search per context length, each
// asking the same estimator and the same search as every other solver.
#include "vramcalc/serving_matrix.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "solvers/search.hpp"
#include "solvers/solvers.hpp"
#include "vramcalc/estimate.hpp"

namespace vramcalc {
namespace {

constexpr std::int64_t kFirstContext = 1024;
constexpr std::int64_t kMaxContexts = 24;          // 1k .. 8M tokens at most
constexpr std::int64_t kConcurrencyCap = 1 << 16;  // as solve_max_batch's cap

// The scenario serving sequences of `len` tokens: the generated tokens kept (at most half of them), the
// prompt the rest; vLLM is launched with max_model_len = len.
Scenario at_context(const Scenario& base, std::int64_t len) {
    Scenario t = base;
    t.gen_len = std::min(base.gen_len, len / 2);
    t.prompt_len = len - t.gen_len;
    if (t.framework == Framework::vllm) t.max_model_len = len;
    return t;
}

std::int64_t max_concurrency(const Scenario& base, std::int64_t len) {
    Scenario t = at_context(base, len);
    if (t.framework != Framework::llamacpp) return detail::max_concurrent_sequences(t);
    // llama.cpp shares its n_ctx cells between slots (-np): n sequences of len tokens need n x len cells.
    const double budget = static_cast<double>(t.gpu.memory_bytes) * t.target_utilization;
    detail::CostTable bytes([&](std::int64_t n) {
        t.n_ctx = n * len;
        t.batch = n;
        return estimate_peak(t).device_bytes;
    });
    return bytes.largest_within(budget, kConcurrencyCap);
}

}  // namespace

ServingMatrix serving_matrix(const Scenario& s) {
    ServingMatrix m;
    if (s.workload != Workload::infer || s.model.count_only || s.model.stack) return m;
    const std::int64_t limit = s.model.max_positions > 0 ? s.model.max_positions : std::int64_t{1} << 17;
    for (std::int64_t c = kFirstContext; c <= limit && static_cast<std::int64_t>(m.contexts.size()) < kMaxContexts; c *= 2)
        m.contexts.push_back(c);
    if (m.contexts.empty() || m.contexts.back() != limit) m.contexts.push_back(limit);  // the model's own limit
    for (std::int64_t n = 1; n <= 256; n *= 2) m.concurrency.push_back(n);
    for (const std::int64_t len : m.contexts) m.max_concurrency.push_back(max_concurrency(s, len));
    return m;
}

nlohmann::json serving_matrix_to_json(const ServingMatrix& m) {
    nlohmann::json fits = nlohmann::json::array();
    for (const std::int64_t most : m.max_concurrency) {
        nlohmann::json row = nlohmann::json::array();
        for (const std::int64_t n : m.concurrency) row.push_back(n <= most);
        fits.push_back(std::move(row));
    }
    return {{"contexts", m.contexts}, {"concurrency", m.concurrency}, {"max_concurrency", m.max_concurrency}, {"fits", fits}};
}

}  // namespace vramcalc
