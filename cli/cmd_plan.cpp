// `vramcalc plan`: the fewest GPUs of the scenario's type and the layout (core planner.hpp).
#include <cstdio>

#include "cli.hpp"
#include "vramcalc/planner.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::cli {

namespace vc = vramcalc;

// The GPU-count planner: the same scenario input as estimate, plus --max-gpus N (default 1024).
int cmd_plan(const std::vector<std::string>& given, const Options& o) {
    const bool as_json = o.json;
    std::vector<std::string> args = given;
    std::int64_t max_gpus = 1024;
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--max-gpus") {
            const json v = json::parse(args[i + 1], nullptr, false);
            if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 65536)
                throw BadInput("--max-gpus: got '" + args[i + 1] + "', expected an integer from 1 to 65536");
            max_gpus = v.get<std::int64_t>();
            args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
            break;
        }
    auto sc = scenario_from_args(args, "plan");
    if (!sc) return kBadInput;
    if (sc->workload != vc::Workload::train) throw BadInput("plan: workload must be \"train\"");
    const vc::Plan p = vc::plan_gpus(*sc, max_gpus);
    if (as_json) {
        std::cout << dump(vc::plan_to_json(p, *sc)) << "\n";
        return kOk;
    }
    std::printf("GPU: %s, %.2f GiB, target utilisation %.0f %%\n", sc->gpu.name.c_str(),
                static_cast<double>(sc->gpu.memory_bytes) / vc::kGiB, sc->target_utilization * 100);
    std::printf("%6s  %-13s  %-17s  %3s  %3s  %3s  %-13s  %14s  %12s  %s\n", "GPUs", "sharding", "offload", "tp", "pp", "cp",
                "checkpointing", "per GPU (GiB)", "CPU (GiB)", "fits");
    for (const auto& c : p.candidates)
        std::printf("%6lld  %-13s  %-17s  %3lld  %3lld  %3lld  %-13s  %14.2f  %12.2f  %s\n", static_cast<long long>(c.num_gpus),
                    vc::to_string(c.sharding), vc::to_string(c.offload), static_cast<long long>(c.tp),
                    static_cast<long long>(c.pp), static_cast<long long>(c.cp), vc::to_string(c.checkpointing),
                    static_cast<double>(c.device_bytes) / vc::kGiB, static_cast<double>(c.cpu_bytes) / vc::kGiB,
                    c.fits ? "yes" : "no");
    if (p.found)
        std::printf("\nFewest GPUs: %lld (sharding %s, tp %lld, pp %lld, cp %lld, checkpointing %s): %.2f GiB per GPU\n",
                    static_cast<long long>(p.best.num_gpus), vc::to_string(p.best.sharding),
                    static_cast<long long>(p.best.tp), static_cast<long long>(p.best.pp), static_cast<long long>(p.best.cp),
                    vc::to_string(p.best.checkpointing), static_cast<double>(p.best.device_bytes) / vc::kGiB);
    else
        std::printf("\nDoes not fit on up to %lld GPUs of this type.\n", static_cast<long long>(max_gpus));
    if (!p.blocker.empty()) std::printf("%s: %s\n", p.found ? "Note" : "What blocks", p.blocker.c_str());
    return kOk;
}

}  // namespace vramcalc::cli
