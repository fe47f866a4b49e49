// `validate --markdown` section for the vLLM startup logs (tests/data/vllm_startup_logs.json): the medians
// the floors are stated for (weights, KV pool, per GPU vendor), then per vLLM release and per
// model, every compared record, and every record not compared with the reason.
#include <cstdio>
#include <map>

#include "report.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::cli {
namespace {

struct Medians {
    int records = 0;
    ValidationReport weights, kv_pool;
};

Medians medians(const std::vector<StartupLogRow>& rows, auto&& in) {
    Medians m;
    std::vector<EntryResult> w, k;
    for (const auto& r : rows) {
        if (!in(r)) continue;
        ++m.records;
        w.push_back(r.weights);
        k.push_back(r.kv_pool);
    }
    m.weights = summarize(std::move(w));
    m.kv_pool = summarize(std::move(k));
    return m;
}

std::string pct(const ValidationReport& r, double v) { return r.count > 0 ? line("%.1f %%", v) : "–"; }

std::string median_row(const std::string& label, const Medians& m) {
    return "| " + markdown_cell(label) + line(" | %d | %d | ", m.records, m.weights.count) + pct(m.weights, m.weights.median_abs_pct_error) +
           " | " + pct(m.weights, m.weights.p90_abs_pct_error) + " | " + pct(m.kv_pool, m.kv_pool.median_abs_pct_error) + " | " +
           pct(m.kv_pool, m.kv_pool.p90_abs_pct_error) + " |\n";
}

const char* kMedianHead =
    " | records | compared | weights median \\|error\\| | weights p90 | KV pool median \\|error\\| | KV pool p90 |\n"
    "|---|---|---|---|---|---|---|\n";

std::string vendor_name(const std::string& v) { return v == "amd" ? "AMD" : v == "nvidia" ? "NVIDIA"
                                                                                          : "(unknown)"; }

std::string table_by(const std::vector<StartupLogRow>& rows, const char* head, auto&& key) {
    std::map<std::string, bool> keys;
    for (const auto& r : rows) keys[key(r)] = true;
    std::string o = std::string("| ") + head + kMedianHead;
    for (const auto& entry : keys) {
        const std::string& k = entry.first;  // a named reference: clang 14 (Emscripten) cannot capture a structured binding
        o += median_row(k, medians(rows, [&](const StartupLogRow& r) { return key(r) == k; }));
    }
    return o;
}

}  // namespace

std::string startup_logs_summary(const std::vector<StartupLogRow>& rows) {
    const Medians all = medians(rows, [](const StartupLogRow&) { return true; });
    std::string o = line("%d of %d vLLM startup logs compared: weights median |error| %.1f %%, KV pool median |error| %.1f %%",
                         all.weights.count, all.records, all.weights.median_abs_pct_error, all.kv_pool.median_abs_pct_error);
    for (const char* v : {"nvidia", "amd"}) {
        const Medians m = medians(rows, [&](const StartupLogRow& r) { return r.vendor == v; });
        if (m.weights.count > 0)
            o += line("; %s: %.1f %% / %.1f %%", vendor_name(v).c_str(), m.weights.median_abs_pct_error, m.kv_pool.median_abs_pct_error);
    }
    return o;
}

std::string render_startup_logs_markdown(const std::vector<StartupLogRow>& rows) {
    std::string o =
        "Each record gives two figures per GPU: `weights` = \"Model loading took X GiB\" and `kv_pool` = \"Available KV cache "
        "memory: X GiB\" (the first worker's line), each against the estimate for the record's `scenario`.\n\n"
        "### By GPU vendor\n\n";
    o += table_by(rows, "vendor", [](const StartupLogRow& r) { return vendor_name(r.vendor); });
    o += "\n### By vLLM release\n\n" + table_by(rows, "vLLM", [](const StartupLogRow& r) { return r.version_group; });
    o += "\n### By model and GPU vendor\n\n" +
         table_by(rows, "model", [](const StartupLogRow& r) { return r.model_hub_id + " (" + vendor_name(r.vendor) + ")"; });
    std::string runs, skipped;
    for (const auto& r : rows) {
        if (r.weights.status == "ok") {
            runs += "| " + markdown_cell(r.id) + " | " + markdown_cell(r.vllm_version) + line(" | %.2f | %.2f | %.1f %% | %.2f | %.2f | %.1f %% |\n", r.weights.expected / kGiB, r.weights.estimated / kGiB, *r.weights.abs_pct_error, r.kv_pool.expected / kGiB, r.kv_pool.estimated / kGiB, *r.kv_pool.abs_pct_error);
        } else {
            skipped += "| " + markdown_cell(r.id) + " | " + markdown_cell(r.model_hub_id) + " | " + r.weights.status + " | " + markdown_cell(r.weights.message) + " |\n";
        }
    }
    if (!runs.empty())
        o += "\n### Records\n\n| id | vLLM | weights logged GiB | estimated | \\|error\\| | KV pool logged GiB | estimated | \\|error\\| |\n"
             "|---|---|---|---|---|---|---|---|\n" +
             runs;
    if (!skipped.empty()) o += "\n### Not compared\n\n| id | model | status | why |\n|---|---|---|---|\n" + skipped;
    return o;
}

}  // namespace vramcalc::cli
