// `vramcalc inspect MODEL`: a model's exact parameter breakdown; `vramcalc presets`: the catalog.
#include "cli.hpp"
#include "report.hpp"
#include "vramcalc/catalog_json.hpp"
#include "vramcalc/hf_config.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/model_spec_json.hpp"
#include "vramcalc/presets.hpp"

namespace vramcalc::cli {

namespace vc = vramcalc;

int cmd_inspect(const std::vector<std::string>& args, const Options& o) {
    const bool as_json = o.json;
    if (args.empty()) throw BadInput("inspect needs a MODEL (preset id or config.json path)");
    const std::string& arg = args[0];
    vc::ModelSpec spec;
    std::vector<std::string> warnings;
    if (const auto* p = catalog().find_model(arg)) {
        spec = p->spec;
    } else if (file_exists(arg) && vc::is_layer_stack_json(resolve_model_arg(json(arg)))) {
        auto r = vc::layer_stack_from_json(resolve_model_arg(json(arg)));
        if (!r.ok()) {
            print_problems(r.errors);
            return kBadInput;
        }
        spec = vc::model_from_layer_stack(std::move(*r.value), arg);
    } else if (file_exists(arg)) {
        auto r = vc::model_from_config(resolve_model_arg(json(arg)), arg);
        if (!r.ok()) {
            print_problems(r.errors);
            return kBadInput;
        }
        spec = *r.value;
        warnings = r.warnings;
    } else {
        throw BadInput("'" + arg + "' is neither a preset id (see `vramcalc presets`) nor a readable file");
    }
    const vc::ParamBreakdown p = vc::count_parameters(spec);
    print_warnings(warnings);
    if (as_json) {
        std::cout << dump(vc::model_to_json(spec, warnings)) << "\n";
    } else {
        std::cout << vc::cli::render_params(spec.name, spec, p);
    }
    return kOk;
}

int cmd_presets(const std::vector<std::string>& args, const Options& o) {
    const auto& c = catalog();
    if (args.size() == 1 && args[0] == "--specs") {
        // {"id": spec} of each config.json preset, as the page's presets carry them (cmake/embed_presets_page.py):
        // the page's wasm then needs no config.json reader to start (model_spec_json.hpp).
        json specs = json::object();
        for (const auto& m : c.models())
            if (!m.spec.stack) specs[m.id] = vc::model_spec_to_json(m.spec);
        std::cout << specs.dump() << "\n";
        return kOk;
    }
    if (!args.empty()) throw BadInput("presets takes no argument but --specs, got '" + args[0] + "'");
    const bool as_json = o.json;
    if (!as_json) {
        std::cout << vc::cli::render_presets(c);
        return kOk;
    }
    std::cout << dump(vc::presets_to_json(c)) << "\n";
    return kOk;
}

}  // namespace vramcalc::cli
