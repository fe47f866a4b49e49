// The scenario of `estimate` and `plan` from the command line: a SCENARIO.json, a config imported with
// --from (docs/imports.md), or --KEY VALUE flags (cli.hpp).
#include <sstream>

#include "cli.hpp"
#include "vramcalc/scenario_json.hpp"
#ifdef VRAMCALC_HAS_IMPORTS
#include "vramcalc/import.hpp"
#endif

namespace vramcalc::cli {

namespace vc = vramcalc;

// "--micro-batch 4" -> scenario["micro_batch"] = 4; "--lora-rank 16" -> scenario["lora"]["rank"] = 16.
json scenario_from_flags(const std::vector<std::string>& args) {
    json s = json::object();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0) throw BadInput("unexpected argument '" + a + "' (flags are --key value)");
        if (i + 1 >= args.size()) throw BadInput("flag " + a + " needs a value");
        std::string key = a.substr(2);
        for (auto& c : key)
            if (c == '-') c = '_';
        const std::string& text = args[++i];
        json value = json::parse(text, nullptr, false);
        if (value.is_discarded() || value.is_object() || value.is_array()) value = text;  // plain strings
        if (key.rfind("lora_", 0) == 0) {
            std::string sub = key.substr(5);
            if (sub == "targets" && text != "all-linear") {
                json list = json::array();
                std::stringstream ss(text);
                for (std::string t; std::getline(ss, t, ',');) list.push_back(t);
                value = list;
            }
            s["lora"][sub] = value;
        } else if (key == "gpu_memory_gib") {
            s["gpu"] = {{"name", "custom GPU"}, {"memory_gib", value}};
        } else {
            s[key] = value;
        }
    }
    return s;
}

#ifdef VRAMCALC_HAS_IMPORTS
// A config file imported (docs/imports.md); the report's unknown keys and notes go to stderr.
namespace {
json imported_scenario(const std::string& path, vc::ImportReport* report = nullptr) {
    const auto r = vc::import_config(read_file(path), catalog());
    if (!r.ok()) {
        std::string text;
        for (const auto& p : r.errors) {
            if (!text.empty()) text += '\n';
            text += p.text();
        }
        throw BadInput(path + ": " + text);
    }
    if (report) *report = r->report;
    return r->scenario;
}
}  // namespace
#endif

// The scenario of `estimate` and `plan`: a SCENARIO.json (then flags override its keys) or flags alone.
// Warnings go to stderr; problems are printed and give std::nullopt.
std::optional<vc::Scenario> scenario_from_args(const std::vector<std::string>& args, const std::string& command, json* read) {
    if (args.empty()) throw BadInput(command + " needs a SCENARIO.json or --model MODEL");
    const bool from = args[0] == "--from";
    if (from && args.size() < 2) throw BadInput("--from needs a FILE (a config to import, see `vramcalc import`)");
    json scenario;
    if (from) {
#ifdef VRAMCALC_HAS_IMPORTS
        vc::ImportReport rep;
        scenario = imported_scenario(args[1], &rep);
        std::cerr << "imported " << rep.format << ": " << rep.read.size() << " keys read, " << rep.ignored.size()
                  << " ignored, " << rep.unknown.size() << " unknown (vramcalc import " << args[1] << " lists them)\n";
        for (const auto& k : rep.unknown) std::cerr << "warning: unknown key " << k.key << " (line " << k.line << ") not imported\n";
        for (const auto& n : rep.notes) std::cerr << "note: " << n << "\n";
#else
        throw BadInput("this vramcalc was built without yaml-cpp: --from is not available");
#endif
    } else {
        scenario = args[0].rfind("--", 0) == 0 ? scenario_from_flags(args) : parse_json_file(args[0]);
    }
    const std::size_t first_flag = from ? 2 : 1;
    if ((from || args[0].rfind("--", 0) != 0) && args.size() > first_flag) {
        json overrides = scenario_from_flags({args.begin() + static_cast<std::ptrdiff_t>(first_flag), args.end()});
        if (scenario.is_object()) scenario.merge_patch(overrides);
    }
    if (scenario.is_object() && scenario.contains("model")) scenario["model"] = resolve_model_arg(scenario["model"]);
    if (command == "plan" && scenario.is_object() && !scenario.contains("num_gpus")) {
        // plan searches num_gpus: start from the GPUs the given degrees need (--tp 2 alone is a layout, not an error).
        std::int64_t unit = 1;
        for (const char* k : {"tp", "pp", "cp", "ep"})
            if (scenario.contains(k) && scenario[k].is_number_integer() && scenario[k].get<std::int64_t>() > 1 &&
                scenario[k].get<std::int64_t>() <= 4096)
                unit *= scenario[k].get<std::int64_t>();
        if (unit > 1 && unit <= (std::int64_t{1} << 20)) scenario["num_gpus"] = unit;
    }
    if (read) *read = scenario;
    auto sc = vc::scenario_from_json(scenario, catalog());
    print_warnings(sc.warnings);
    if (!sc.ok()) {
        print_problems(sc.errors);
        return std::nullopt;
    }
    return *sc.value;
}

}  // namespace vramcalc::cli
