#include "vramcalc/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "io/json_reader.hpp"
#include "validation/parallel_cases.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/hf_config.hpp"
#include "vramcalc/scenario_json.hpp"

namespace vramcalc {

using detail::json;

namespace detail {

std::optional<Bill> estimate_entry(const json& scenario, const Catalog& cat, EntryResult& r, Scenario* sc) {
    auto read = scenario_from_json(scenario, cat);
    if (!read.ok()) {
        r.status = "error";
        r.message = read.error_text();
        return std::nullopt;
    }
    if (sc) *sc = *read.value;
    return estimate(*read.value);
}

}  // namespace detail

namespace {

// Compare at the precision the source printed: round both to the decimals of the expected figure.
bool matches_printed(double estimated, const json& expected) {
    if (expected.is_number_integer() || expected.is_number_unsigned())
        return std::llround(estimated) == expected.get<std::int64_t>();
    std::string s = expected.dump();
    auto dot = s.find('.');
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(s.size() - dot - 1);
    const double scale = std::pow(10.0, decimals);
    return std::llround(estimated * scale) == std::llround(expected.get<double>() * scale);
}

EntryResult run_parameters(const json& e, const std::string& id) {
    EntryResult r;
    r.id = id;
    r.kind = "parameters";
    r.metric = "parameters";
    r.expected = static_cast<double>(e["parameters"].get<std::int64_t>());
    auto spec = model_from_config(e["config"], id, id + ".config");
    if (!spec.ok()) {
        r.status = "error";
        r.message = spec.error_text();
        return r;
    }
    r.estimated = static_cast<double>(count_parameters(*spec).total);
    r.status = r.estimated == r.expected ? "exact" : "mismatch";
    if (r.status == "mismatch") r.message = "off by " + std::to_string(static_cast<long long>(r.estimated - r.expected));
    return r;
}

// Published speed (tests/data/throughput_runs.json): the estimate's `speed` against the measurement.
EntryResult run_throughput(const json& m, const Bill& b, const Scenario& s, EntryResult r) {
    r.kind = "throughput";
    r.metric = m.value("metric", "");
    r.expected = m["value"].get<double>();
    const Speed* sp = b.speed ? &*b.speed : nullptr;
    double est = 0;
    if (!sp) {
        r.status = "unsupported";
        r.message = "no speed estimate for this scenario";
        return r;
    }
    if (r.metric == "train_tokens_per_s_per_gpu") {
        est = sp->tokens_per_s_per_gpu;
    } else if (r.metric == "train_time" && m.value("unit", "") == "s" && m.contains("iterations")) {
        // Seconds per iteration (one optimizer step of the scenario).
        est = sp->step_s * m["iterations"].get<double>();
    } else if (r.metric == "generate_tokens_per_s") {
        est = sp->generate_tokens_per_s;
    } else if (r.metric == "prompt_plus_generated_tokens_per_s") {
        const double total = sp->prefill_s + static_cast<double>(s.gen_len) * sp->decode_s_per_token;
        est = total > 0 ? static_cast<double>(s.prompt_len + s.gen_len) / total : 0;
    } else {
        r.status = "unsupported";
        r.message = "metric \"" + r.metric + "\" (" + m.value("unit", "") +
                    ") is not compared: the source gives no token count per step, or it is a utilisation";
        return r;
    }
    r.estimated = est;
    r.abs_pct_error = r.expected > 0 ? std::fabs(r.estimated - r.expected) / r.expected * 100.0 : 0.0;
    r.status = "ok";
    return r;
}

}  // namespace

std::string measured_stage(const json& entry) {
    const auto m = entry.find("measured");
    if (m == entry.end() || !m->is_object()) return "peak";
    const auto st = m->find("stage");
    return st != m->end() && st->is_string() ? st->get<std::string>() : "peak";
}

namespace {

// One measured figure against its estimate, or (no estimate) an error naming the metrics `allowed`.
EntryResult compared(EntryResult r, std::optional<double> estimate, const std::string& allowed) {
    if (!estimate) {
        r.status = "error";
        r.message = "measured.metric \"" + r.metric + "\" unknown " + allowed;
        return r;
    }
    r.estimated = *estimate;
    r.abs_pct_error = r.expected > 0 ? std::fabs(r.estimated - r.expected) / r.expected * 100.0 : 0.0;
    r.status = "ok";
    return r;
}

// A reading taken right after the training job built its model ("stage": "load"), before the optimizer or
// any step: the bill's weights in the method's format plus the adapters (its `weights` and `lora` lines;
// master copies and optimizer states come with the optimizer). The allocator reserves what it allocated
// (each tensor is allocated once; no step has freed anything to cache), and nvidia-smi adds the CUDA
// context. Not modelled: construction transients of a particular release (torchtune 2024-04 kept a
// template layer while it deep-copied the others; its NF4 quantisation's temporaries), docs/methodology.md.
EntryResult compare_load(const Bill& b, double gpus, EntryResult r) {
    double est = static_cast<double>(b.component("weights") + b.component("lora"));
    if (r.metric == "device") est += static_cast<double>(b.component("cuda_context"));
    else if (r.metric != "allocated" && r.metric != "active" && r.metric != "reserved")
        return compared(std::move(r), std::nullopt, "for stage \"load\" (allowed: allocated, active, reserved, device)");
    return compared(std::move(r), est * gpus, "");
}

EntryResult run_measured(const json& e, const std::string& id, const Catalog& cat) {
    EntryResult r;
    r.id = id;
    r.kind = "measured";
    if (!e.contains("scenario") || e["scenario"].is_null()) {
        r.status = "no-scenario";
        r.message = e.value("why", "the source does not give enough settings");
        return r;
    }
    Scenario scenario;
    const auto estimated = detail::estimate_entry(e["scenario"], cat, r, &scenario);
    if (!estimated) return r;
    const Bill& b = *estimated;
    const json& m = e["measured"];
    if (m.is_object() && m.contains("value") && m["value"].is_number()) return run_throughput(m, b, scenario, r);
    const bool per_gpu = e.value("per_gpu", true);
    const double gpus = per_gpu ? 1.0 : static_cast<double>(scenario.num_gpus);
    if (m.is_object() && m.value("oom", false)) {
        r.metric = "oom";
        r.estimated = static_cast<double>(b.device_bytes);
        r.expected = static_cast<double>(b.gpu.memory_bytes);
        r.status = b.fits ? "oom-missed" : "oom-correct";
        return r;
    }
    if (!m.is_object() || !m.contains("bytes") || !m["bytes"].is_number()) {
        r.status = "error";
        r.message = "measured.bytes missing";
        return r;
    }
    r.metric = m.value("metric", "allocated");
    r.expected = m["bytes"].get<double>();
    const std::string stage = measured_stage(e);
    if (stage == "load") return compare_load(b, gpus, r);
    if (stage != "peak") {
        r.status = "error";
        r.message = "measured.stage \"" + stage + "\" unknown (allowed: peak, load)";
        return r;
    }
    double est = static_cast<double>(b.peak_allocated_bytes);
    if (r.metric == "reserved") est = static_cast<double>(b.peak_reserved_bytes);
    else if (r.metric == "device") est = static_cast<double>(b.device_bytes);
    // Serving-engine log figures (vLLM's startup log): its KV-cache block pool and its weights per GPU.
    else if (r.metric == "kv_pool") est = b.kv_pool_bytes ? static_cast<double>(*b.kv_pool_bytes) : 0.0;
    else if (r.metric == "weights") est = static_cast<double>(b.component("weights"));
    // llama.cpp's per-device buffers (its load log and memory-breakdown print): the KV cache and the
    // graph allocator's compute buffer.
    else if (r.metric == "kv_cache") est = static_cast<double>(b.component("kv_cache"));
    else if (r.metric == "compute_buffer") est = static_cast<double>(b.component("compute_buffer"));
    else if (r.metric != "allocated" && r.metric != "active")
        return compared(std::move(r), std::nullopt, "(allowed: allocated, active, reserved, device, kv_pool, weights, kv_cache, compute_buffer)");
    if (r.metric == "allocated" || r.metric == "active" || r.metric == "reserved" || r.metric == "device") r.fits = b.fits;
    return compared(std::move(r), est * gpus, "");
}

// A sweep (tests/data/gpu_runs_h200.json "sweeps"): the largest micro-batch that ran on a GPU, found by bisection
// under an allocator cap, against the largest the estimator says runs (needed_bytes within all of the GPU).
// "over" is the harmful miss: a user who sets it gets an OOM.
EntryResult run_sweep(const json& e, const std::string& id, const Catalog& cat) {
    EntryResult r;
    r.id = id;
    r.kind = "sweep";
    r.metric = "max_micro_batch";
    const auto b = detail::estimate_entry(e["scenario"], cat, r);
    if (!b) return r;
    r.expected = e["max_micro_batch"].get<double>();
    r.estimated = static_cast<double>(b->max_micro_batch_runs.value_or(1 << 16));  // estimate()'s own solve
    r.status = r.estimated == r.expected ? "exact" : r.estimated > r.expected ? "over"
                                                                              : "under";
    return r;
}

// Formula cases we can reproduce today: KV-cache bytes per token (GQA and MLA latent).
EntryResult run_formula(const json& e, const std::string& id, const Catalog& cat) {
    // Sharding, DeepSpeed-estimator and RLHF cases (parallel.cpp).
    if (auto pr = detail::run_parallel_formula(e, id, cat)) return *pr;
    EntryResult r;
    r.id = id;
    r.kind = "formula";
    r.status = "unsupported";
    const json& in = e.value("inputs", json::object());
    const json& ex = e.value("expected", json::object());
    if (!in.is_object() || !ex.is_object()) return r;
    ModelSpec m;
    const double bytes = in.value("dtype_bytes", 2.0);
    if (in.contains("kv_lora_rank") && in.contains("qk_rope_head_dim") && in.contains("layers")) {
        m.attention = AttentionKind::mla;
        m.mla.kv_lora_rank = in["kv_lora_rank"].get<std::int64_t>();
        m.mla.qk_rope_head_dim = in["qk_rope_head_dim"].get<std::int64_t>();
        m.layers = in["layers"].get<std::int64_t>();
        if (ex.contains("bf16_bytes_per_token")) {
            r.metric = "bf16_bytes_per_token";
            r.estimated = kv_bytes_per_token(m, bytes, true);
        }
    } else if (in.contains("layers") && in.contains("head_dim") &&
               (in.contains("num_key_value_heads") || in.contains("kv_heads"))) {
        m.layers = in["layers"].get<std::int64_t>();
        m.head_dim = in["head_dim"].get<std::int64_t>();
        m.kv_heads = in.contains("num_key_value_heads") ? in["num_key_value_heads"].get<std::int64_t>()
                                                        : in["kv_heads"].get<std::int64_t>();
        if (ex.contains("bytes_per_token") && !in.contains("tp")) {
            r.metric = "bytes_per_token";
            r.estimated = kv_bytes_per_token(m, bytes, false);
        }
    }
    if (r.metric.empty()) return r;
    r.expected = ex[r.metric].get<double>();
    r.status = matches_printed(r.estimated, ex[r.metric]) ? "matched" : "mismatch";
    return r;
}

// The transformers release a reference file's runs used: its "env" names it (gpu_runs_h200.json: "5.17.0");
// otherwise 4, the release of every published run (they predate transformers 5.0, 2026). Scenarios that do
// not name their own release get it, so their absent keys keep the defaults of the stack that ran them.
std::int64_t reference_release(const json& reference) {
    if (!reference.is_object() || !reference.contains("env") || !reference["env"].is_object()) return 4;
    const json& v = reference["env"].value("transformers", json());
    if (!v.is_string()) return 4;
    const std::string text = v.get<std::string>();  // "5.17.0": the major version before the first dot
    const long major = std::strtol(text.c_str(), nullptr, 10);
    return major >= 5 ? 5 : 4;
}

void pin_release(json& scenario, std::int64_t release) {
    if (!scenario.is_object() || scenario.contains("transformers")) return;
    const json& f = scenario.value("framework", json("hf"));
    if (f == "hf" && scenario.value("workload", json("train")) == "train") scenario["transformers"] = release;
}

// A copy of the entries with each scenario (and each scenario variant) pinned to the file's release.
json pinned_entries(const json& list, std::int64_t release) {
    json out = list;
    for (json& e : out) {
        if (!e.is_object()) continue;
        if (e.contains("scenario")) pin_release(e["scenario"], release);
        if (e.contains("scenario_variants") && e["scenario_variants"].is_object())
            for (auto& [key, v] : e["scenario_variants"].items()) pin_release(v, release);
    }
    return out;
}

}  // namespace

Result<ValidationReport> validate_reference(const json& reference, const Catalog& cat) {
    Result<ValidationReport> out;
    const json* list = &reference;
    json joined = json::array();  // an object may hold runs and sweeps side by side (gpu_runs_h200.json)
    if (reference.is_object()) {
        for (const char* k : {"entries", "runs", "cases", "sweeps"})
            if (reference.contains(k) && reference[k].is_array())
                for (const json& e : reference[k]) joined.push_back(e);
        if (!joined.empty()) list = &joined;
    }
    if (!list->is_array()) {
        out.errors.push_back({"reference", "expected a JSON array of entries (the format of shared/reference/)"});
        return out;
    }
    const json entries = pinned_entries(*list, reference_release(reference));
    list = &entries;
    std::vector<EntryResult> results;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& e = (*list)[i];
        if (!e.is_object()) {
            out.errors.push_back({"reference[" + std::to_string(i) + "]", "expected an object"});
            continue;
        }
        const std::string id = e.contains("id") && e["id"].is_string() ? e["id"].get<std::string>()
                                                                       : "entry " + std::to_string(i);
        EntryResult r;
        try {
            if (e.contains("parameters") && e["parameters"].is_number_integer() && e.contains("config")) {
                r = run_parameters(e, id);
            } else if (e.contains("measured")) {
                r = run_measured(e, id, cat);
            } else if (e.contains("max_micro_batch") && e["max_micro_batch"].is_number_integer() && e.contains("scenario")) {
                r = run_sweep(e, id, cat);
            } else if (e.contains("expected")) {
                r = run_formula(e, id, cat);
            } else {
                r = {id, "skipped", "skipped", "", 0, 0, std::nullopt, "no parameters, measurement or expected figure", std::nullopt};
            }
        } catch (const std::exception& ex) {  // a field of the wrong JSON type deep in an entry
            r = {id, "error", "error", "", 0, 0, std::nullopt, std::string("malformed entry: ") + ex.what(), std::nullopt};
        }
        results.push_back(std::move(r));
    }
    out.value = summarize(std::move(results));
    return out;
}

}  // namespace vramcalc
