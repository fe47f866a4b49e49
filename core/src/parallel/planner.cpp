#include "vramcalc/planner.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "vramcalc/estimate.hpp"

namespace vramcalc {

namespace {

std::vector<Sharding> shardings_for(Framework f) {
    switch (f) {
        case Framework::deepspeed: return {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3};
        case Framework::megatron: return {Sharding::none, Sharding::zero1};  // zero1 = distributed optimizer
        default: return {Sharding::none, Sharding::fsdp_grad_op, Sharding::fsdp_full};
    }
}

}  // namespace

Plan plan_gpus(const Scenario& base, std::int64_t max_gpus) {
    Plan plan;
    if (base.workload != Workload::train) return plan;
    const double budget = static_cast<double>(base.gpu.memory_bytes) * base.target_utilization;
    for (std::int64_t n = 1; n <= std::max<std::int64_t>(1, max_gpus); n *= 2) {
        bool any = false;
        for (Sharding sh : shardings_for(base.framework)) {
            std::vector<std::pair<std::int64_t, std::int64_t>> mp = {{1, 1}};
            if (base.framework == Framework::megatron) {
                mp.clear();
                // Tensor parallelism stays within one node's NVLink domain: at most 8 GPUs (Narayanan et al.
                // 2021, the Megatron-LM scaling paper, takeaway 1: tensor parallelism up to the GPUs of a server).
                for (std::int64_t tp = 1; tp <= std::min<std::int64_t>(8, n); tp *= 2) {
                    if (base.model.heads > 0 && base.model.heads % tp != 0) continue;
                    for (std::int64_t pp = 1; tp * pp <= n && pp <= std::max<std::int64_t>(1, base.model.layers); pp *= 2)
                        mp.push_back({tp, pp});
                }
            }
            for (const auto& [tp, pp] : mp) {
                if (n == 1 && sh != Sharding::none) continue;  // nothing to shard over
                Scenario s = base;
                s.num_gpus = n;
                s.sharding = sh;
                s.tp = tp;
                s.pp = pp;
                s.cp = 1;
                const Bill b = estimate_peak(s);  // the bill without the max-batch solvers: only its bytes are read
                PlanCandidate c;
                c.num_gpus = n;
                c.sharding = sh;
                c.offload = s.offload;
                c.tp = tp;
                c.pp = pp;
                c.device_bytes = b.device_bytes;
                c.cpu_bytes = b.cpu_bytes;
                c.fits = static_cast<double>(b.device_bytes) <= budget;
                plan.candidates.push_back(c);
                if (c.fits && (!any || c.device_bytes < plan.best.device_bytes)) plan.best = c;
                any = any || c.fits;
            }
        }
        if (any) {
            plan.found = true;
            break;
        }
        if (n > max_gpus / 2) break;
    }
    return plan;
}

nlohmann::json plan_to_json(const Plan& p, const Scenario& s) {
    auto one = [](const PlanCandidate& c) {
        return nlohmann::json{{"num_gpus", c.num_gpus}, {"sharding", to_string(c.sharding)}, {"offload", to_string(c.offload)},
                              {"tp", c.tp},          {"pp", c.pp},                       {"fits", c.fits},
                              {"device_bytes", c.device_bytes}, {"cpu_bytes", c.cpu_bytes}};
    };
    nlohmann::json cands = nlohmann::json::array();
    for (const auto& c : p.candidates) cands.push_back(one(c));
    nlohmann::json j = {{"gpu", {{"id", s.gpu.id}, {"name", s.gpu.name}, {"memory_bytes", s.gpu.memory_bytes}}},
                        {"target_utilization", s.target_utilization},
                        {"found", p.found},
                        {"candidates", cands}};
    j["fewest_gpus"] = p.found ? nlohmann::json(p.best.num_gpus) : nlohmann::json(nullptr);
    j["layout"] = p.found ? one(p.best) : nlohmann::json(nullptr);
    return j;
}

}  // namespace vramcalc
