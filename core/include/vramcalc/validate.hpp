// Validation against reference data in the format of shared/reference/ (copied to tests/data/):
// exact parameter counts, measured runs (peak memory, OOM) and published formula cases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/catalog.hpp"
#include "vramcalc/diagnostics.hpp"

namespace vramcalc {

struct EntryResult {
    std::string id;
    std::string kind;    // "parameters", "measured", "formula", "sweep", "skipped"
    std::string status;  // "exact", "over", "under" (sweeps), "mismatch", "ok", "oom-correct", "oom-missed", "matched", "unsupported", "error", "no-scenario"
    std::string metric;  // measured: allocated | reserved | active | device; formula: the expected key
    double expected = 0;
    double estimated = 0;
    std::optional<double> abs_pct_error;  // measured runs with a byte figure
    std::string message;
    // A run that ran (a peak reading of allocated, active, reserved or device bytes): whether the estimate
    // says it fits its GPU (issue 23: runs reported as fitting must fit).
    std::optional<bool> fits;
};

struct ValidationReport {
    std::vector<EntryResult> entries;
    int count = 0;  // measured runs with an error figure
    double median_abs_pct_error = 0, p90_abs_pct_error = 0, max_abs_pct_error = 0;
    int params_exact = 0, params_total = 0;
    int oom_correct = 0, oom_total = 0;
    int fit_correct = 0, fit_total = 0;  // runs that ran (EntryResult::fits set) and those predicted to fit
    int formulas_matched = 0, formulas_total = 0;
    int sweeps_exact = 0, sweeps_over = 0, sweeps_total = 0;  // largest micro-batch: exact, too high, all
};

// `reference` is a JSON array of entries (or an object holding one under "entries"/"runs"/"cases").
Result<ValidationReport> validate_reference(const nlohmann::json& reference, const Catalog& catalog);

// A measured entry's stage (`measured.stage`): "peak" when absent (the run's peak), "load" for a reading
// right after the model was built, or another name, which validate_reference reports as an error.
std::string measured_stage(const nlohmann::json& entry);

// The summary figures (counts, median, p90, max) of a set of entry results: validate_reference's report,
// or the same for any subset of its entries (by source, by workload) without estimating them again.
ValidationReport summarize(std::vector<EntryResult> entries);

nlohmann::json report_to_json(const ValidationReport& r);

// The groups docs/validation.md shows of one reference file's entries (groups.cpp): by the public source each
// entry names (in order of first appearance; entry_source gives each entry's), and the groups the issues'
// accuracy floors are stated for (training runs of confidence high or medium on one GPU, several, either;
// inference; readings right after the model is built), those with a comparison only. `source` is the
// source's text or the group's label.
struct ValidationGroup {
    std::string source;
    int entries = 0;
    ValidationReport report;
};
struct ValidationGroups {
    std::vector<ValidationGroup> sources, workloads;
    std::vector<int> entry_source;  // parallel to report.entries
};
// `reference` as validate_reference read it, `report` what it returned.
ValidationGroups group_reference(const nlohmann::json& reference, const ValidationReport& report);
// The entries group_reference groups, the first of validate_reference's report in the same order: the reference
// array, or the last of an object's "entries", "runs" and "cases". A file's "sweeps" (gpu_runs_h200.json), which
// validate_reference reports after its runs, are in no group.
const nlohmann::json& grouped_entries(const nlohmann::json& reference);

// vLLM startup logs (tests/data/vllm_startup_logs.json: {"source", "records": [...]}, each record with the
// raw log fields and a `scenario`): per record, the weights vLLM logged ("Model loading took X GiB") and
// its KV-cache pool ("Available KV cache memory: X GiB"), both per GPU, against the estimate.
struct StartupLogRow {
    std::string id, model_hub_id, gpu, vendor, vllm_version;
    std::string version_group;     // "v0.11", "v0.18", ...: the minor release, local builds (+rhai...) folded in
    EntryResult weights, kv_pool;  // metric "weights" / "kv_pool"; status "ok", or why it is not compared
};
Result<std::vector<StartupLogRow>> validate_startup_logs(const nlohmann::json& file, const Catalog& catalog);

}  // namespace vramcalc
