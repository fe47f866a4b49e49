// The validation report's figures (vramcalc/validate.hpp): each file's entries summed into counts, the median,
// p90 and largest |error| of the compared figures, and the report as JSON.
#include "vramcalc/validate.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace vramcalc {

using json = nlohmann::json;

namespace {

double percentile_nearest_rank(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

ValidationReport summarize(std::vector<EntryResult> entries) {
    ValidationReport rep;
    std::vector<double> errs;
    for (const auto& r : entries) {
        if (r.kind == "parameters") {
            ++rep.params_total;
            if (r.status == "exact") ++rep.params_exact;
        } else if (r.kind == "measured" || r.kind == "throughput") {
            if (r.metric == "oom") {
                ++rep.oom_total;
                if (r.status == "oom-correct") ++rep.oom_correct;
            }
            if (r.fits) {
                ++rep.fit_total;
                if (*r.fits) ++rep.fit_correct;
            }
            if (r.abs_pct_error) errs.push_back(*r.abs_pct_error);
        } else if (r.kind == "sweep" && r.status != "error") {
            ++rep.sweeps_total;
            if (r.status == "exact") ++rep.sweeps_exact;
            if (r.status == "over") ++rep.sweeps_over;
        } else if (r.kind == "formula") {
            ++rep.formulas_total;
            if (r.status == "matched") ++rep.formulas_matched;
        }
    }
    rep.entries = std::move(entries);
    rep.count = static_cast<int>(errs.size());
    rep.median_abs_pct_error = median(errs);
    rep.p90_abs_pct_error = percentile_nearest_rank(errs, 0.9);
    rep.max_abs_pct_error = errs.empty() ? 0 : *std::max_element(errs.begin(), errs.end());
    return rep;
}

json report_to_json(const ValidationReport& r) {
    json entries = json::array();
    for (const auto& e : r.entries) {
        json j = {{"id", e.id}, {"kind", e.kind}, {"status", e.status}};
        if (!e.metric.empty()) j["metric"] = e.metric;
        if (e.kind != "skipped" && e.status != "no-scenario" && e.status != "unsupported") {
            j["expected"] = e.expected;
            j["estimated"] = e.estimated;
        }
        if (e.abs_pct_error) j["abs_pct_error"] = *e.abs_pct_error;
        if (e.fits) j["fits"] = *e.fits;
        if (!e.message.empty()) j["message"] = e.message;
        entries.push_back(std::move(j));
    }
    return {{"count", r.count},
            {"median_abs_pct_error", r.median_abs_pct_error},
            {"p90_abs_pct_error", r.p90_abs_pct_error},
            {"max_abs_pct_error", r.max_abs_pct_error},
            {"params_exact", r.params_exact},
            {"params_total", r.params_total},
            {"oom_correct", r.oom_correct},
            {"oom_total", r.oom_total},
            {"fit_correct", r.fit_correct},
            {"fit_total", r.fit_total},
            {"sweeps_exact", r.sweeps_exact},
            {"sweeps_over", r.sweeps_over},
            {"sweeps_total", r.sweeps_total},
            {"formulas_matched", r.formulas_matched},
            {"formulas_total", r.formulas_total},
            {"entries", entries}};
}

}  // namespace vramcalc
