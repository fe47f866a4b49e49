// Text rendering of bills, parameter breakdowns and validation reports for the terminal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vramcalc/advice.hpp"
#include "vramcalc/bill.hpp"
#include "vramcalc/catalog.hpp"
#include "vramcalc/validate.hpp"

#include "vramcalc/import.hpp"
#include "vramcalc/serving_matrix.hpp"

namespace vramcalc::cli {

// printf into a string of any length: the one formatter of the CLI's reports.
std::string line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

std::string render_bill(const Bill& b);
// "What to change": the advisor's ranked changes (at most 5) with their computed result.
std::string render_advice(const AdvicePlan& plan, const Bill& before);
std::string render_params(const std::string& name, const ModelSpec& m, const ParamBreakdown& p);
std::string render_validation(const ValidationReport& r);
std::string render_presets(const Catalog& c);
// `vramcalc import`: the report (report_extra.cpp).
std::string render_import_report(const ImportReport& r);
// `vramcalc estimate` of a serving scenario: the context x concurrency table (report_extra.cpp).
std::string render_serving_matrix(const ServingMatrix& m);

// One reference file for `vramcalc validate --markdown`: the whole file's report, one report per
// public source (entries grouped by their "source" field) and, per entry, its source index and a
// one-line scenario summary (both read from the file by the CLI; the core report does not carry them).
using ValidationSourceGroup = ValidationGroup;  // the core's groups (vramcalc/validate.hpp)
struct ValidationFile {
    std::string path;
    ValidationReport report;
    std::vector<ValidationSourceGroup> sources;
    std::vector<ValidationSourceGroup> workloads;  // the same entries grouped by workload, GPU count, confidence
    std::vector<int> entry_source;                 // index into sources, parallel to report.entries
    std::vector<std::string> entry_scenario;       // "llama-3.1-8b lora, rtx-4090, mb 2 x 2048", parallel too
    // A vLLM startup-log file ({"source", "records"}) instead of reference entries: its rows.
    std::optional<std::vector<StartupLogRow>> startup;
};
std::string render_validation_markdown(const std::vector<ValidationFile>& files);
// The startup-log summary line and section (report_startup.cpp).
std::string startup_logs_summary(const std::vector<StartupLogRow>& rows);
std::string render_startup_logs_markdown(const std::vector<StartupLogRow>& rows);

}  // namespace vramcalc::cli
