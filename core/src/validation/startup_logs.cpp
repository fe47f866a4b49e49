// vLLM startup logs as a validation source: every record of tests/data/vllm_startup_logs.json gives two
// comparisons per GPU, the weights vLLM measured while loading and the KV-cache pool it sized.
#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/units.hpp"
#include "vramcalc/validate.hpp"

namespace vramcalc {

using nlohmann::json;

namespace {

// "v0.13.0+rhai5" -> "v0.13": Red Hat's builds (+rhai...) and dev snapshots are grouped with their release.
std::string version_group(const std::string& v) {
    const auto first = v.find('.');
    if (first == std::string::npos) return v;
    const auto second = v.find('.', first + 1);
    return second == std::string::npos ? v : v.substr(0, second);
}

EntryResult compared(const std::string& id, const char* metric, double expected_gib, double estimated_bytes) {
    EntryResult r;
    r.id = id;
    r.kind = "measured";
    r.metric = metric;
    r.status = "ok";
    r.expected = expected_gib * kGiB;
    r.estimated = estimated_bytes;
    r.abs_pct_error = r.expected > 0 ? std::fabs(r.estimated - r.expected) / r.expected * 100.0 : 0.0;
    return r;
}

EntryResult not_compared(const std::string& id, const char* metric, const std::string& status, const std::string& why) {
    EntryResult r;
    r.id = id;
    r.kind = "measured";
    r.metric = metric;
    r.status = status;
    r.message = why;
    return r;
}

double number_at(const json& o, const char* key) {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number())
        throw std::runtime_error(std::string("log_memory.") + key + " missing or not a number");
    return o[key].get<double>();
}

StartupLogRow run_record(const json& rec, std::size_t i, const Catalog& cat) {
    StartupLogRow row;
    row.id = rec.contains("id") && rec["id"].is_string() ? rec["id"].get<std::string>() : "record " + std::to_string(i);
    const json& meta = rec.value("csv_metadata", json::object());
    const json& cfg = rec.value("log_config", json::object());
    row.model_hub_id = meta.value("model", "");
    row.gpu = meta.value("accelerator", "");
    row.vllm_version = cfg.value("vllm_version", "");
    row.version_group = version_group(row.vllm_version);
    const json& mem = rec.value("log_memory", json::object());
    const json& sc = rec.contains("scenario") ? rec["scenario"] : json();
    auto skip = [&](const std::string& status, const std::string& why) {
        row.weights = not_compared(row.id, "weights", status, why);
        row.kv_pool = not_compared(row.id, "kv_pool", status, why);
        return row;
    };
    // The vendor from the catalog GPU: the scenario's, or else the accelerator's name as a preset id.
    std::string gpu_id = row.gpu;
    for (auto& ch : gpu_id) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (sc.is_object() && sc.contains("gpu") && sc["gpu"].is_string()) gpu_id = sc["gpu"].get<std::string>();
    if (const GpuSpec* g = cat.find_gpu(gpu_id)) row.vendor = g->vendor;
    if (!sc.is_object()) return skip("no-scenario", rec.value("why", "the record has no scenario"));
    // A record the data file keeps with its scenario but marks as not comparable, with the reason.
    if (rec.contains("not_compared") && rec["not_compared"].is_string()) return skip("excluded", rec["not_compared"].get<std::string>());
    auto read = scenario_from_json(sc, cat);
    if (!read.ok()) return skip("unsupported", read.error_text());
    const Bill b = estimate(*read.value);
    row.weights = compared(row.id, "weights", number_at(mem, "model_load_gib"), static_cast<double>(b.component("weights")));
    row.kv_pool = compared(row.id, "kv_pool", number_at(mem, "available_kv_cache_gib"),
                           b.kv_pool_bytes ? static_cast<double>(*b.kv_pool_bytes) : 0.0);
    return row;
}

}  // namespace

Result<std::vector<StartupLogRow>> validate_startup_logs(const json& file, const Catalog& cat) {
    Result<std::vector<StartupLogRow>> out;
    if (!file.is_object() || !file.contains("records") || !file["records"].is_array()) {
        out.errors.push_back({"records", "expected an object with a \"records\" array (tests/data/vllm_startup_logs.json)"});
        return out;
    }
    std::vector<StartupLogRow> rows;
    const json& list = file["records"];
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_object()) {
            out.errors.push_back({"records[" + std::to_string(i) + "]", "expected an object"});
            continue;
        }
        try {
            rows.push_back(run_record(list[i], i, cat));
        } catch (const std::exception& ex) {  // a raw field of the wrong JSON type
            out.errors.push_back({"records[" + std::to_string(i) + "]", std::string("malformed record: ") + ex.what()});
        }
    }
    if (out.errors.empty()) out.value = std::move(rows);
    return out;
}

}  // namespace vramcalc
