// `vramcalc bench`: the estimator's timings (one bill, the solvers, the catalog, reading an input).
#include <chrono>
#include <cstdio>

#include "cli.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/scenario_json.hpp"

namespace vramcalc::cli {

namespace vc = vramcalc;

// Times the estimator: one full bill (with its max-batch and max-context solvers) and a solve over the
// whole GPU catalog, each averaged over repetitions for up to half a second.
int cmd_bench(const std::vector<std::string>& args, const Options& o) {
    const bool as_json = o.json;
    using clock = std::chrono::steady_clock;
    // Reading the input itself (issue 42: every input under 1 MB is read and estimated within 100 ms):
    // the file's text through the checked parser to a scenario and one bill.
    const std::string text = args.empty() ? std::string() : read_file(args[0]);
    (void)catalog();  // built once per process (the presets): not part of reading an input
    const auto read0 = clock::now();
    json scenario = {{"model", "llama-3.1-8b"}, {"method", "lora"}, {"micro_batch", 4}};
    if (!args.empty()) {
        std::string why;
        auto read = parse_json_text(text, why);  // the text read above: "-" (stdin) cannot be read twice
        if (!read) throw BadInput(args[0] + ": " + why);
        scenario = std::move(*read);
    }
    auto sc = vc::scenario_from_json(scenario, catalog());
    if (sc.ok()) (void)vc::estimate(*sc);
    const double read_ms = std::chrono::duration<double, std::milli>(clock::now() - read0).count();
    if (!sc.ok()) {
        print_problems(sc.errors);
        return kBadInput;
    }
    // Each figure averages up to `reps` repetitions, stopping after half a second (a sanitizer build is 20x slower).
    auto time_us = [](auto&& fn, int reps) {
        const auto t0 = clock::now();
        int done = 0;
        while (done < reps && (done == 0 || clock::now() - t0 < std::chrono::milliseconds(500))) {
            fn();
            ++done;
        }
        return std::chrono::duration<double, std::micro>(clock::now() - t0).count() / done;
    };
    volatile std::int64_t sink = 0;
    const double bill_us = time_us([&] { sink = sink + vc::estimate(*sc).device_bytes; }, 2000);
    vc::Scenario plain = *sc;
    const double once_us = time_us([&] { sink = sink + vc::solve_max_batch(plain, 1); }, 20000);
    const double catalog_us = time_us([&] { sink = sink + static_cast<std::int64_t>(vc::solve_catalog(*sc, catalog().gpus()).size()); }, 50);
    if (as_json) {
        std::cout << json{{"estimate_us", once_us}, {"bill_with_solvers_us", bill_us}, {"catalog_solve_ms", catalog_us / 1000}, {"catalog_gpus", catalog().gpus().size()}, {"input_bytes", text.size()}, {"read_and_estimate_ms", read_ms}}.dump(2)
                  << "\n";
    } else {
        std::printf("one estimate:                 %8.2f us\n", once_us);
        std::printf("bill with max-batch/max-len:  %8.2f us\n", bill_us);
        std::printf("full-catalog solve (%zu GPUs): %8.3f ms\n", catalog().gpus().size(), catalog_us / 1000);
        if (!args.empty()) std::printf("read %zu B and estimate once: %8.3f ms\n", text.size(), read_ms);
    }
    return kOk;
}

}  // namespace vramcalc::cli
