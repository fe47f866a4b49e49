// vramcalc: the command-line tool. All file I/O and argument parsing live here; the estimation is
// vramcalc_core's. Exit codes: 0 ok, 2 bad input (message on stderr). Nothing crashes.
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.hpp"
#include "terminal.hpp"
#include "weights.hpp"
#include "vramcalc/advice.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/catalog_json.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/units.hpp"
#include "vramcalc/hf_config.hpp"
#include "vramcalc/import.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/planner.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/serving_matrix.hpp"
#include "vramcalc/validate.hpp"

using nlohmann::json;
namespace vc = vramcalc;

namespace {

constexpr int kOk = 0;
constexpr int kBadInput = 2;

const char* kUsage = R"(vramcalc - GPU memory calculator for training and serving LLMs

usage:
  vramcalc inspect MODEL [--json]             parameter breakdown (MODEL: preset id or config.json path)
  vramcalc estimate SCENARIO.json [--json]    memory bill for a scenario file
  vramcalc estimate --from FILE [--KEY VALUE ...] [--json]
                                              the same for a config imported as by `import`
  vramcalc import FILE|- [--json]            a vllm/sglang/llama.cpp command line, DeepSpeed JSON,
                                              accelerate/LLaMA-Factory/axolotl/torchtune/TRL YAML, HF
                                              TrainingArguments or PEFT adapter_config.json as scenario
                                              JSON (stdout) and what was read, ignored, unknown (stderr)
  vramcalc estimate --model MODEL [--KEY VALUE ...] [--json]
                                              the same from flags; KEY is any scenario key with - or _
                                              (--gpu a100-80gb --method lora --lora-rank 16
                                               --lora-targets all-linear --micro-batch 4 --seq-len 2048)
  vramcalc validate REFERENCE.json [--json]   run reference data (parameter counts, measured runs,
                                              formula cases, or vLLM startup logs: a file with
                                              "records") and summarise the errors
  vramcalc validate --markdown [REFERENCE.json ...]
                                              the same as the docs/validation.md page (default: the
                                              files in tests/data/, run from the repository root)
  vramcalc presets [--json]                   list model and GPU presets
  vramcalc weights FILE... [--json]           exact weight bytes per dtype from checkpoint headers
                                              (safetensors, model.safetensors.index.json, GGUF, a folder)
  vramcalc bench [SCENARIO.json] [--json]     time one estimate and a full-catalog solve
  vramcalc plan SCENARIO.json|--model MODEL [--KEY VALUE ...] [--max-gpus N] [--json]
                                              fewest GPUs of the scenario's type and the layout
  vramcalc --help | --version

Bytes are exact integers; GiB = 2^30 bytes, GB = 10^9 bytes.
)";

struct BadInput : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Every input the CLI reads (files, "-" for stdin, device files) stops at the core's one size limit:
// /dev/zero grew to GBs before std::bad_alloc, and 100 MB documents took seconds.
std::string read_file(const std::string& path) {
    std::error_code ec;
    if (path != "-" && std::filesystem::is_directory(path, ec))
        throw BadInput("'" + path + "' is a directory, expected a JSON file");
    std::ifstream file;
    if (path != "-") {
        file.open(path, std::ios::binary);
        if (!file) throw BadInput("cannot read file '" + path + "'");
    }
    std::istream& in = path == "-" ? std::cin : file;
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(in.gcount()));
        if (text.size() > vc::kMaxInputBytes)
            throw BadInput((path == "-" ? std::string("stdin") : "'" + path + "'") + " is over the input size limit, allowed: at most " +
                           std::to_string(vc::kMaxInputBytes) + " bytes (8 MiB)");
    }
    if (in.bad()) throw BadInput("cannot read '" + path + "' (a read error)");
    return text;
}

// JSON out: strings that came from the user are written even if they are not valid UTF-8.
std::string dump(const json& j, int indent = 2) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

// At most this many warnings and errors are printed, then "and K more" (1 M unknown keys printed 48 MB).
constexpr std::size_t kMaxPrinted = 20;

template <class List, class Text>
void print_capped(const List& list, const char* label, Text text) {
    const std::size_t shown = std::min(list.size(), kMaxPrinted);
    for (std::size_t i = 0; i < shown; ++i) std::cerr << label << ": " << text(list[i]) << "\n";
    if (list.size() > shown) std::cerr << label << ": ... and " << list.size() - shown << " more\n";
}

void print_warnings(const std::vector<std::string>& warnings) {
    print_capped(warnings, "warning", [](const std::string& w) { return w; });
}

bool file_exists(const std::string& path) {
    std::ifstream f(path);
    return path == "-" || f.good();
}

json parse_json_file(const std::string& path) {
    std::string why;
    auto j = vc::parse_json_text(read_file(path), why);  // depth-limited, says what is wrong
    if (!j) throw BadInput(path + ": " + why);
    return std::move(*j);
}

const vc::Catalog& catalog() {
    const auto& c = vc::builtin_catalog();
    if (!c.ok()) throw std::runtime_error("built-in presets are broken:\n" + c.error_text());
    return *c;
}

// A model argument: a preset id stays a string; a path becomes the config object it holds (a preset
// file's "config" or a bare config.json).
json resolve_model_arg(const json& model) {
    if (!model.is_string()) return model;
    const std::string s = model.get<std::string>();
    if (catalog().find_model(s) || !file_exists(s)) return model;
    json j = parse_json_file(s);
    if (j.is_object() && j.contains("config") && !j.contains("model_type")) return j["config"];
    return j;
}

void print_problems(const std::vector<vc::Problem>& errors) {
    print_capped(errors, "error", [](const vc::Problem& p) { return p.text(); });
}

int cmd_inspect(const std::vector<std::string>& args, bool as_json) {
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
json imported_scenario(const std::string& path, vc::ImportReport* report = nullptr) {
    const auto r = vc::import_config(read_file(path), catalog());
    if (!r.ok()) {
        std::string text;
        for (const auto& p : r.errors) text += (text.empty() ? "" : "\n") + p.text();
        throw BadInput(path + ": " + text);
    }
    if (report) *report = r->report;
    return r->scenario;
}
#endif

int cmd_import(const std::vector<std::string>& args, bool as_json) {
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
    (void)args, (void)as_json;
    throw BadInput("this vramcalc was built without yaml-cpp: import is not available (apt-get install libyaml-cpp-dev)");
#endif
}

// The scenario of `estimate` and `plan`: a SCENARIO.json (then flags override its keys) or flags alone.
// Warnings go to stderr; problems are printed and give std::nullopt.
std::optional<vc::Scenario> scenario_from_args(const std::vector<std::string>& args, const std::string& command,
                                               json* read = nullptr) {
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

int cmd_estimate(const std::vector<std::string>& args, bool as_json) {
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

int cmd_validate_markdown(std::vector<std::string> paths);

int cmd_validate(const std::vector<std::string>& args, bool as_json, bool as_markdown) {
    if (as_markdown) return cmd_validate_markdown(args);
    if (args.empty()) throw BadInput("validate needs a REFERENCE.json");
    const json ref = parse_json_file(args[0]);
    if (ref.is_object() && ref.contains("records")) {  // vLLM startup logs (tests/data/vllm_startup_logs.json)
        auto rows = vc::validate_startup_logs(ref, catalog());
        if (!rows.ok()) {
            print_problems(rows.errors);
            return kBadInput;
        }
        if (as_json) {
            json out = json::array();
            for (const auto& r : *rows.value)
                out.push_back({{"id", r.id}, {"vendor", r.vendor}, {"vllm", r.vllm_version},
                               {"weights", vc::report_to_json(vc::summarize({r.weights}))["entries"][0]},
                               {"kv_pool", vc::report_to_json(vc::summarize({r.kv_pool}))["entries"][0]}});
            std::cout << dump(out) << "\n";
        } else {
            std::cout << vc::cli::startup_logs_summary(*rows.value) << "\n\n" << vc::cli::render_startup_logs_markdown(*rows.value);
        }
        return kOk;
    }
    auto rep = vc::validate_reference(ref, catalog());
    if (!rep.ok()) {
        print_problems(rep.errors);
        return kBadInput;
    }
    if (as_json) std::cout << dump(vc::report_to_json(*rep)) << "\n";
    else std::cout << vc::cli::render_validation(*rep);
    return kOk;
}

// Reference-entry fields for the workload groups of `validate --markdown` (a scenario without a workload
// key is a training one, as scenario_from_json reads it).
// A reading right after the model was built ("measured": {"stage": "load"}) is its own group, "load".
std::string workload_of(const json& e) {
    if (!e.contains("scenario") || !e["scenario"].is_object()) return "";
    if (vc::measured_stage(e) == "load") return "load";
    const json& s = e["scenario"];
    return s.contains("workload") && s["workload"].is_string() ? s["workload"].get<std::string>() : "train";
}

// One line that says what a reference entry's scenario runs: "llama-3.1-8b lora, rtx-4090, mb 2 x 2048".
std::string scenario_summary(const json& e) {
    if (!e.contains("scenario") || !e["scenario"].is_object()) return "";
    const json& s = e["scenario"];
    auto text = [&s](const char* key) -> std::string {
        if (!s.contains(key)) return "";
        const json& v = s[key];
        if (v.is_string()) return v.get<std::string>();
        if (v.is_number_integer()) return std::to_string(v.get<long long>());
        if (v.is_object() && v.contains("name") && v["name"].is_string()) return v["name"].get<std::string>();
        return v.is_object() ? "(inline)" : dump(v, -1);
    };
    const bool infer = text("workload") == "infer";
    std::string o = text("model");
    if (infer) {
        o += " infer";
        if (!text("weights").empty()) o += " " + text("weights");
    } else {
        o += " " + (text("method").empty() ? std::string("full") : text("method"));
    }
    if (!text("framework").empty()) o += " (" + text("framework") + ")";
    o += ", " + (text("gpu").empty() ? std::string("h100-80gb") : text("gpu"));
    if (!text("num_gpus").empty() && text("num_gpus") != "1") o += " x" + text("num_gpus");
    if (infer) {
        if (!text("batch").empty()) o += ", batch " + text("batch");
        if (!text("prompt_len").empty()) o += ", " + text("prompt_len") + "+" + (text("gen_len").empty() ? "0" : text("gen_len"));
    } else if (workload_of(e) == "load") {
        o += ", after the model is built";
    } else {
        if (!text("micro_batch").empty()) o += ", mb " + text("micro_batch");
        if (!text("seq_len").empty()) o += " x " + text("seq_len");
    }
    return o;
}

long long gpus_of(const json& e) {
    const json& s = e["scenario"];
    return s.contains("num_gpus") && s["num_gpus"].is_number_integer() ? s["num_gpus"].get<long long>() : 1;
}
bool trusted(const json& e) {
    const std::string c = e.contains("confidence") && e["confidence"].is_string() ? e["confidence"].get<std::string>() : "";
    return c == "high" || c == "medium";
}

// `validate --markdown [FILE...]`: the docs/validation.md page. Without files it reads the project's
// reference data from tests/data/ (run from the repository root), so the regeneration command is one line.
int cmd_validate_markdown(std::vector<std::string> paths) {
    if (paths.empty()) {
        paths = {"tests/data/param_counts.json", "tests/data/param_counts_extra.json", "tests/data/formula_cases.json",
                 "tests/data/measured_runs.json", "tests/data/vllm_logs.json", "tests/data/vllm_startup_logs.json", "tests/data/llamacpp_buffers.json",
                 "tests/data/throughput_runs.json"};
        for (const auto& p : paths)
            if (!file_exists(p))
                throw BadInput("validate --markdown without files reads " + p +
                               ": run it from the repository root or name the reference files");
        // Our own measurements (tools/measure/), once the checkout has some.
        const std::string local = "tests/data/measured_local.json";
        if (file_exists(local) && !parse_json_file(local).empty()) paths.push_back(local);
    }
    std::vector<vc::cli::ValidationFile> files;
    for (const auto& path : paths) {
        const json ref = parse_json_file(path);
        if (ref.is_object() && ref.contains("records")) {  // vLLM startup logs: a section of their own
            auto rows = vc::validate_startup_logs(ref, catalog());
            if (!rows.ok()) {
                for (const auto& p : rows.errors) std::cerr << "error: " << path << ": " << p.text() << "\n";
                return kBadInput;
            }
            vc::cli::ValidationFile f;
            f.path = path;
            f.startup = std::move(*rows.value);
            files.push_back(std::move(f));
            continue;
        }
        auto rep = vc::validate_reference(ref, catalog());
        if (!rep.ok()) {
            for (const auto& p : rep.errors) std::cerr << "error: " << path << ": " << p.text() << "\n";
            return kBadInput;
        }
        const json* list = &ref;  // the same container rule as validate_reference
        if (ref.is_object())
            for (const char* k : {"entries", "runs", "cases"})
                if (ref.contains(k)) list = &ref[k];
        vc::cli::ValidationFile f;
        f.path = path;
        f.report = *rep;
        std::vector<std::vector<vc::EntryResult>> groups;  // entry results per source (one per entry, in order)
        std::size_t n = 0;
        for (const json& e : *list) {  // all objects: validate_reference rejected anything else
            const std::string src = e.contains("source") && e["source"].is_string() ? e["source"].get<std::string>()
                                                                                    : "(no source given)";
            int idx = -1;
            for (std::size_t i = 0; i < f.sources.size(); ++i)
                if (f.sources[i].source == src) idx = static_cast<int>(i);
            if (idx < 0) {
                idx = static_cast<int>(f.sources.size());
                f.sources.push_back({src, 0, {}});
                groups.emplace_back();
            }
            ++f.sources[static_cast<std::size_t>(idx)].entries;
            groups[static_cast<std::size_t>(idx)].push_back(rep->entries[n++]);
            f.entry_source.push_back(idx);
            f.entry_scenario.push_back(scenario_summary(e));
        }
        for (std::size_t i = 0; i < groups.size(); ++i) f.sources[i].report = vc::summarize(std::move(groups[i]));
        // The groups the issues' floors are stated for: training runs of confidence high or medium (one GPU,
        // several, both) and inference runs.
        struct Group {
            const char* label;
            bool (*in)(const json&);
        };
        static const Group kGroups[] = {
            {"training, confidence high or medium, any GPU count",
             [](const json& e) { return workload_of(e) == "train" && trusted(e); }},
            {"training, confidence high or medium, one GPU",
             [](const json& e) { return workload_of(e) == "train" && trusted(e) && gpus_of(e) == 1; }},
            {"training, confidence high or medium, several GPUs",
             [](const json& e) { return workload_of(e) == "train" && trusted(e) && gpus_of(e) > 1; }},
            {"inference, every confidence", [](const json& e) { return workload_of(e) == "infer"; }},
            {"right after the model is built (weights and adapters), every confidence",
             [](const json& e) { return workload_of(e) == "load"; }},
        };
        for (const auto& g : kGroups) {
            std::vector<vc::EntryResult> sel;
            for (std::size_t i = 0; i < list->size(); ++i)
                if ((*list)[i].contains("measured") && g.in((*list)[i])) sel.push_back(rep->entries[i]);
            const int entries = static_cast<int>(sel.size());
            const vc::ValidationReport grp = vc::summarize(std::move(sel));
            if (grp.count > 0 || grp.oom_total > 0) f.workloads.push_back({g.label, entries, grp});
        }
        files.push_back(std::move(f));
    }
    std::cout << vc::cli::render_validation_markdown(files);
    return kOk;
}

int cmd_presets(bool as_json) {
    const auto& c = catalog();
    if (!as_json) {
        std::cout << vc::cli::render_presets(c);
        return kOk;
    }
    std::cout << dump(vc::presets_to_json(c)) << "\n";
    return kOk;
}

// The GPU-count planner: the same scenario input as estimate, plus --max-gpus N (default 1024).
int cmd_plan(std::vector<std::string> args, bool as_json) {
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

// Times the estimator: one full bill (with its max-batch and max-context solvers) and a solve over the
// whole GPU catalog, each averaged over many repetitions.
int cmd_bench(const std::vector<std::string>& args, bool as_json) {
    json scenario = args.empty() ? json{{"model", "llama-3.1-8b"}, {"method", "lora"}, {"micro_batch", 4}}
                                 : parse_json_file(args[0]);
    auto sc = vc::scenario_from_json(scenario, catalog());
    if (!sc.ok()) {
        print_problems(sc.errors);
        return kBadInput;
    }
    using clock = std::chrono::steady_clock;
    auto time_us = [](auto&& fn, int reps) {
        const auto t0 = clock::now();
        for (int i = 0; i < reps; ++i) fn();
        return std::chrono::duration<double, std::micro>(clock::now() - t0).count() / reps;
    };
    volatile std::int64_t sink = 0;
    const double bill_us = time_us([&] { sink = sink + vc::estimate(*sc).device_bytes; }, 2000);
    vc::Scenario plain = *sc;
    const double once_us = time_us([&] { sink = sink + vc::solve_max_batch(plain, 1); }, 20000);
    const double catalog_us = time_us([&] { sink = sink + static_cast<std::int64_t>(vc::solve_catalog(*sc, catalog().gpus()).size()); }, 50);
    if (as_json) {
        std::cout << json{{"estimate_us", once_us}, {"bill_with_solvers_us", bill_us}, {"catalog_solve_ms", catalog_us / 1000},
                          {"catalog_gpus", catalog().gpus().size()}}.dump(2) << "\n";
    } else {
        std::printf("one estimate:                 %8.2f us\n", once_us);
        std::printf("bill with max-batch/max-len:  %8.2f us\n", bill_us);
        std::printf("full-catalog solve (%zu GPUs): %8.3f ms\n", catalog().gpus().size(), catalog_us / 1000);
    }
    return kOk;
}

int run(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    bool as_json = false, as_markdown = false;
    std::vector<std::string> rest;
    for (const auto& a : args) {
        if (a == "--json") as_json = true;
        else if (a == "--markdown") as_markdown = true;
        else rest.push_back(a);
    }
    if (rest.empty() || rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help") {
        std::cout << kUsage;
        return rest.empty() ? kBadInput : kOk;
    }
    if (rest[0] == "--version") {
        std::cout << "vramcalc 0.1.0\n";
        return kOk;
    }
    const std::string cmd = rest[0];
    std::vector<std::string> params(rest.begin() + 1, rest.end());
    if (as_markdown && cmd != "validate") throw BadInput("--markdown is an option of `validate` only");
    if (cmd == "inspect") return cmd_inspect(params, as_json);
    if (cmd == "estimate") return cmd_estimate(params, as_json);
    if (cmd == "validate") return cmd_validate(params, as_json, as_markdown);
    if (cmd == "presets") return cmd_presets(as_json);
    if (cmd == "bench") return cmd_bench(params, as_json);
    if (cmd == "plan") return cmd_plan(params, as_json);
    if (cmd == "weights") return vc::cli::cmd_weights(params, as_json);
    if (cmd == "import") return cmd_import(params, as_json);
    throw BadInput("unknown command '" + cmd + "' (allowed: inspect, estimate, import, validate, presets, bench, plan, weights; see --help)");
}

}  // namespace

int main(int argc, char** argv) {
    const vc::cli::TerminalSafe out(std::cout), err(std::cerr);  // names from the input may hold escape codes
    try {
        return run(argc, argv);
    } catch (const BadInput& e) {
        std::cerr << "error: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return kBadInput;
    }
}
