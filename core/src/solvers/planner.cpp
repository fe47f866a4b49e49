#include "vramcalc/planner.hpp"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/format.hpp"
#include "vramcalc/estimate.hpp"

namespace vramcalc {

namespace {

std::vector<Sharding> shardings_for(Framework f) {
    switch (f) {
        case Framework::deepspeed:
            return {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3};
        case Framework::megatron:
            return {Sharding::none, Sharding::zero1};  // zero1 = distributed optimizer
        default:
            return {Sharding::none, Sharding::fsdp_grad_op, Sharding::fsdp_full};
    }
}

bool degrees_given(const Scenario& s) { return s.tp > 1 || s.pp > 1 || s.cp > 1; }

// (tp, pp) pairs to try on n GPUs: the scenario's own when it gives any degree, else megatron's search.
std::vector<std::pair<std::int64_t, std::int64_t>> model_parallel_for(const Scenario& base, std::int64_t n) {
    if (degrees_given(base) || base.framework != Framework::megatron) return {{base.tp, base.pp}};
    std::vector<std::pair<std::int64_t, std::int64_t>> mp;
    // Tensor parallelism stays within one node's NVLink domain: at most 8 GPUs (Narayanan et al.
    // 2021, the Megatron-LM scaling paper, takeaway 1: tensor parallelism up to the GPUs of a server).
    for (std::int64_t tp = 1; tp <= std::min<std::int64_t>(8, n); tp *= 2) {
        if (base.model.heads > 0 && base.model.heads % tp != 0) continue;
        for (std::int64_t pp = 1; tp * pp <= n && pp <= std::max<std::int64_t>(1, base.model.layers); pp *= 2)
            if ((n / (tp * pp)) % base.ep == 0) mp.push_back({tp, pp});
    }
    return mp;
}

// Whole bytes in the one formatter's GiB (a name of its own: in a unity batch an int64 overload named gib would
// take other files' calls).
std::string bytes_gib(std::int64_t bytes) { return detail::gib(static_cast<double>(bytes)); }

struct Search {
    bool found = false;
    PlanCandidate best;
    std::vector<PlanCandidate> tried;
    PlanCandidate least;     // the least loaded layout tried (nothing fits: what blocks)
    std::string least_line;  // its largest bill line
    std::int64_t least_line_bytes = 0;
};

// The fewest GPUs with checkpointing `ck` (u, 2u, 4u, ...).
Search search(const Scenario& base, Checkpointing ck, std::int64_t max_gpus) {
    Search out;
    const double budget = static_cast<double>(base.gpu.memory_bytes) * base.target_utilization;
    const std::int64_t unit = std::max<std::int64_t>(1, base.tp * base.pp * base.cp * base.ep);
    bool have_least = false;
    for (std::int64_t n = unit; n <= std::max(unit, max_gpus); n *= 2) {
        for (Sharding sh : shardings_for(base.framework)) {
            for (const auto& [tp, pp] : model_parallel_for(base, n)) {
                if (n / (tp * pp) == 1 && sh != Sharding::none) continue;  // no dp x cp ranks to shard over
                Scenario s = base;
                s.num_gpus = n;
                s.sharding = sh;
                s.tp = tp;
                s.pp = pp;
                s.checkpointing = ck;
                const Bill b = estimate_peak(s);  // the bill without the max-batch solvers: only its bytes are read
                PlanCandidate c;
                c.num_gpus = n;
                c.sharding = sh;
                c.offload = s.offload;
                c.tp = tp;
                c.pp = pp;
                c.cp = s.cp;
                c.checkpointing = ck;
                c.device_bytes = b.device_bytes;
                c.cpu_bytes = b.cpu_bytes;
                c.fits = static_cast<double>(b.needed_bytes) <= budget;
                out.tried.push_back(c);
                if (c.fits && (!out.found || c.device_bytes < out.best.device_bytes)) out.best = c;
                out.found = out.found || c.fits;
                if (!have_least || c.device_bytes < out.least.device_bytes) {
                    have_least = true;
                    out.least = c;
                    out.least_line.clear();
                    out.least_line_bytes = 0;
                    for (const auto& comp : b.components)
                        if (comp.bytes > out.least_line_bytes) {
                            out.least_line = comp.id;
                            out.least_line_bytes = comp.bytes;
                        }
                }
            }
        }
        if (out.found || n > max_gpus / 2) break;
    }
    return out;
}

std::string needs(const Search& s, std::int64_t max_gpus) {
    return s.found ? "it needs " + std::to_string(s.best.num_gpus) + " GPUs"
                   : "it does not fit on up to " + std::to_string(max_gpus) + " GPUs either";
}

}  // namespace

Plan plan_gpus(const Scenario& base, std::int64_t max_gpus) {
    Plan plan;
    if (base.workload != Workload::train) return plan;
    const Search own = search(base, base.checkpointing, max_gpus);
    const bool try_full = base.checkpointing != Checkpointing::full;
    const Search full = try_full ? search(base, Checkpointing::full, max_gpus) : Search{};
    plan.candidates = own.tried;
    plan.candidates.insert(plan.candidates.end(), full.tried.begin(), full.tried.end());
    std::stable_sort(plan.candidates.begin(), plan.candidates.end(),
                     [](const PlanCandidate& a, const PlanCandidate& b) { return a.num_gpus < b.num_gpus; });
    const char* own_ck = to_string(base.checkpointing);
    // Fewest GPUs; at the same count the scenario's own checkpointing.
    if (own.found && (!full.found || own.best.num_gpus <= full.best.num_gpus)) {
        plan.found = true;
        plan.best = own.best;
    } else if (full.found) {
        plan.found = true;
        plan.best = full.best;
        plan.blocker = std::string("with checkpointing ") + own_ck + " " + needs(own, max_gpus) +
                       " (largest line: " + own.least_line + ", " + bytes_gib(own.least_line_bytes) + " per GPU on " +
                       std::to_string(own.least.num_gpus) + "); full checkpointing fits on " +
                       std::to_string(full.best.num_gpus);
    } else {
        plan.blocker = own.least_line + " (" + bytes_gib(own.least_line_bytes) + " of " + bytes_gib(own.least.device_bytes) +
                       " per GPU on " + std::to_string(own.least.num_gpus) + " GPUs, the least loaded layout tried) with checkpointing " +
                       own_ck + (try_full ? "; with full checkpointing " + needs(full, max_gpus) : std::string()) +
                       "; the target is " + bytes_gib(static_cast<std::int64_t>(static_cast<double>(base.gpu.memory_bytes) * base.target_utilization)) + " per GPU";
    }
    return plan;
}

nlohmann::json plan_to_json(const Plan& p, const Scenario& s) {
    auto one = [](const PlanCandidate& c) {
        return nlohmann::json{{"num_gpus", c.num_gpus}, {"sharding", to_string(c.sharding)}, {"offload", to_string(c.offload)}, {"tp", c.tp}, {"pp", c.pp}, {"cp", c.cp}, {"checkpointing", to_string(c.checkpointing)}, {"fits", c.fits}, {"device_bytes", c.device_bytes}, {"cpu_bytes", c.cpu_bytes}};
    };
    nlohmann::json cands = nlohmann::json::array();
    for (const auto& c : p.candidates) cands.push_back(one(c));
    nlohmann::json j = {{"gpu", {{"id", s.gpu.id}, {"name", s.gpu.name}, {"memory_bytes", s.gpu.memory_bytes}}},
                        {"target_utilization", s.target_utilization},
                        {"found", p.found},
                        {"candidates", cands}};
    j["fewest_gpus"] = p.found ? nlohmann::json(p.best.num_gpus) : nlohmann::json(nullptr);
    j["layout"] = p.found ? one(p.best) : nlohmann::json(nullptr);
    j["blocker"] = p.blocker.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.blocker);
    return j;
}

}  // namespace vramcalc
