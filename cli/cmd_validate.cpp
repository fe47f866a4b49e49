// `vramcalc validate`: reference data against the estimator, as a summary, JSON, or the Markdown page of
// docs/validation.md (entries grouped by source and by workload, GPU count and confidence).
#include "cli.hpp"
#include "report.hpp"
#include "vramcalc/validate.hpp"

namespace vramcalc::cli {

namespace vc = vramcalc;

namespace {

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
    } else if (vc::measured_stage(e) == "load") {
        o += ", after the model is built";
    } else {
        if (!text("micro_batch").empty()) o += ", mb " + text("micro_batch");
        if (!text("seq_len").empty()) o += " x " + text("seq_len");
    }
    return o;
}

// The reference files `validate --markdown` reads when none is named (run from the repository root).
std::vector<std::string> default_reference_files() {
    std::vector<std::string> paths = {"tests/data/param_counts.json", "tests/data/param_counts_extra.json", "tests/data/formula_cases.json",
                                      "tests/data/measured_runs.json", "tests/data/vllm_logs.json", "tests/data/vllm_startup_logs.json", "tests/data/llamacpp_buffers.json",
                                      "tests/data/throughput_runs.json", "tests/data/gpu_runs_h200.json"};
    for (const auto& p : paths)
        if (!file_exists(p))
            throw BadInput("validate --markdown without files reads " + p +
                           ": run it from the repository root or name the reference files");
    // Our own measurements (tools/measure/), once the checkout has some.
    const std::string local = "tests/data/measured_local.json";
    if (file_exists(local) && !parse_json_file(local).empty()) paths.push_back(local);
    return paths;
}

// `validate --markdown [FILE...]`: the docs/validation.md page. Without files it reads the project's
// reference data from tests/data/ (run from the repository root), so the regeneration command is one line.
int cmd_validate_markdown(std::vector<std::string> paths) {
    if (paths.empty()) paths = default_reference_files();
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
        vc::cli::ValidationFile f;
        f.path = path;
        f.report = *rep;
        vc::ValidationGroups groups = vc::group_reference(ref, *rep);
        f.sources = std::move(groups.sources);
        f.workloads = std::move(groups.workloads);
        f.entry_source = std::move(groups.entry_source);
        for (const json& e : vc::grouped_entries(ref)) f.entry_scenario.push_back(scenario_summary(e));
        files.push_back(std::move(f));
    }
    std::cout << vc::cli::render_validation_markdown(files);
    return kOk;
}

}  // namespace

int cmd_validate(const std::vector<std::string>& args, const Options& o) {
    const bool as_json = o.json;
    if (o.markdown) return cmd_validate_markdown(args);
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
                out.push_back({{"id", r.id}, {"vendor", r.vendor}, {"vllm", r.vllm_version}, {"weights", vc::report_to_json(vc::summarize({r.weights}))["entries"][0]}, {"kv_pool", vc::report_to_json(vc::summarize({r.kv_pool}))["entries"][0]}});
            std::cout << dump(out) << "\n";
        } else {
            std::cout << vc::cli::startup_logs_summary(*rows.value) << "\n\n"
                      << vc::cli::render_startup_logs_markdown(*rows.value);
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

}  // namespace vramcalc::cli
