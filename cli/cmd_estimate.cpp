// `vramcalc estimate`: a scenario's bill, with the advisor's changes when it does not fit and a serving
// scenario's context x concurrency table; `vramcalc import`: another tool's config as a scenario.
#include "cli.hpp"
#include "report.hpp"
#include "vramcalc/advice.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/serving_matrix.hpp"
#ifdef VRAMCALC_HAS_IMPORTS
#include "vramcalc/import.hpp"
#endif

namespace vramcalc::cli {

namespace vc = vramcalc;

int cmd_import(const std::vector<std::string>& args, const Options& o) {
    const bool as_json = o.json;
#ifdef VRAMCALC_HAS_IMPORTS
    if (args.empty()) throw BadInput("import needs a FILE (or - for stdin)");
    const auto r = vc::import_config(read_file(args[0]), catalog());
    if (!r.ok()) {
        print_problems(r.errors);
        return kBadInput;
    }
    if (as_json) {
        std::cout << dump(vc::import_to_json(*r)) << "\n";
    } else {
        std::cout << dump(r->scenario) << "\n";
        std::cerr << vc::cli::render_import_report(r->report);
    }
    return kOk;
#else
    (void)args, (void)as_json, (void)o;
    throw BadInput("this vramcalc was built without yaml-cpp: import is not available (apt-get install libyaml-cpp-dev)");
#endif
}

int cmd_estimate(const std::vector<std::string>& args, const Options& o) {
    const bool as_json = o.json;
    json read;
    auto sc = scenario_from_args(args, "estimate", &read);
    if (!sc) return kBadInput;
    const vc::Bill bill = vc::estimate(*sc);
    // What to change when the run does not fit within its target (the core's advisor, as in the page).
    const bool needs_advice = vc::verdict_of(bill) != vc::Verdict::fits;
    const vc::AdvicePlan plan = needs_advice ? vc::plan_changes(read, catalog()) : vc::AdvicePlan{};
    // Serving: the context x concurrency matrix (vramcalc/serving_matrix.hpp).
    const vc::ServingMatrix matrix = vc::serving_matrix(*sc);
    if (as_json) {
        json j = vc::bill_to_json(bill);
        if (needs_advice) j["advice"] = vc::advice_to_json(plan);
        if (!matrix.empty()) j["serving_matrix"] = vc::serving_matrix_to_json(matrix);
        std::cout << dump(j) << "\n";
    } else {
        std::cout << vc::cli::render_bill(bill) << vc::cli::render_serving_matrix(matrix) << vc::cli::render_advice(plan, bill);
    }
    return kOk;
}

}  // namespace vramcalc::cli
