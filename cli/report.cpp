#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "vramcalc/bill_format.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::cli {

std::string line(const char* fmt, ...) {
    std::va_list args, again;
    va_start(args, fmt);
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, args);
    va_end(args);
    std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, again);
    va_end(again);
    return out;
}

namespace {

std::string pct_or_dash(int count, double pct) { return count > 0 ? line("%.1f %%", pct) : "–"; }

std::string oom_text(const ValidationReport& r) {
    return r.oom_total > 0 ? line("%d / %d", r.oom_correct, r.oom_total) : "–";
}
std::string fit_text(const ValidationReport& r) {
    return r.fit_total > 0 ? line("%d / %d", r.fit_correct, r.fit_total) : "–";
}

std::string gib_text(double bytes) { return line("%.2f", bytes / kGiB); }

}  // namespace

std::string render_bill(const Bill& b) {
    std::string o;
    o += line("Model: %s (%s params", b.model_name.c_str(), format_params_short(b.parameters).c_str());
    if (b.active_parameters != b.parameters) o += line(", %s active", format_params_short(b.active_parameters).c_str());
    if (b.trainable_parameters > 0) o += line(", %s trainable", format_params_short(b.trainable_parameters).c_str());
    o += ")\n";
    o += line("GPU:   %s, %s (%s)\n\n", b.gpu.name.c_str(), format_gib(b.gpu.memory_bytes).c_str(),
              format_gb(b.gpu.memory_bytes).c_str());
    o += line("%-16s %18s %12s %7s  %s\n", "component", "bytes", "GiB", "share", "how");
    const double dev = b.device_bytes > 0 ? static_cast<double>(b.device_bytes) : 1.0;
    for (const auto& c : b.components)
        o += line("%-16s %18s %12.3f %6.1f%%  %s\n", c.id.c_str(), format_count(c.bytes).c_str(),
                  static_cast<double>(c.bytes) / kGiB, 100.0 * static_cast<double>(c.bytes) / dev, c.detail.c_str());
    o += "\n";
    o += line("peak allocated (torch max_memory_allocated): %s  (%s)\n", format_gib(b.peak_allocated_bytes).c_str(),
              format_gb(b.peak_allocated_bytes).c_str());
    o += line("peak reserved  (torch max_memory_reserved):  %s  (%s)\n", format_gib(b.peak_reserved_bytes).c_str(),
              format_gb(b.peak_reserved_bytes).c_str());
    o += line("device         (nvidia-smi, per process):    %s  (%s)\n", format_gib(b.device_bytes).c_str(),
              format_gb(b.device_bytes).c_str());
    if (b.needed_bytes != b.device_bytes)
        o += line("needed         (allocated + reserve it cannot free + context): %s  (%s)\n", format_gib(b.needed_bytes).c_str(),
                  format_gb(b.needed_bytes).c_str());
    if (b.cpu_bytes > 0) o += line("host memory (offload):                       %s\n", format_gib(b.cpu_bytes).c_str());
    const char* state = verdict_of(b) == Verdict::fits ? "FITS" : verdict_of(b) == Verdict::fits_above_target ? "FITS (above target)"
                                                                                                              : "DOES NOT FIT";
    o += line("\n%s on %s: %s.\n", state, b.gpu.name.c_str(), verdict_sentence(b).c_str());
    if (b.max_micro_batch) o += "Largest micro-batch within the target utilisation: " + max_micro_batch_text(b) + "\n";
    if (b.max_micro_batch_runs && b.max_micro_batch && *b.max_micro_batch_runs != *b.max_micro_batch)
        o += "Largest micro-batch that runs (all of the GPU): " + count_text(*b.max_micro_batch_runs) + "\n";
    if (b.max_batch && b.serving_budget)  // vLLM: its pool's sequences, capped by its scheduler (max_num_seqs)
        o += "Largest batch vLLM runs at once (its KV pool, at most max_num_seqs): " + count_text(*b.max_batch) + "\n";
    else if (b.max_batch) o += "Largest batch within the target utilisation: " + count_text(*b.max_batch) + "\n";
    if (b.max_seq_len) o += "Longest seq_len at this micro-batch within the target utilisation: " + count_text(*b.max_seq_len) + "\n";
    if (b.max_concurrent_sequences && (!b.max_batch || *b.max_concurrent_sequences != *b.max_batch))
        o += "Most concurrent sequences (prompt + generated tokens each): " + count_text(*b.max_concurrent_sequences) + "\n";
    if (b.max_context)
        o += "Longest context (prompt + generated tokens) at this batch: " +
             (*b.max_context > 0 ? std::to_string(*b.max_context) + " tokens" : std::string("none fits, not even 1 token")) + "\n";
    if (b.kv_pool_bytes) {
        o += line("KV-cache pool: %s (%s)", format_gib(*b.kv_pool_bytes).c_str(), format_gb(*b.kv_pool_bytes).c_str());
        if (b.kv_pool_sequences) o += line(", room for %lld full-length sequences", static_cast<long long>(*b.kv_pool_sequences));
        o += "\n";
    }
    if (!b.layout.empty()) o += "Layout: " + b.layout + "\n";
    if (b.rule_of_thumb_bytes > 0)
        o += line("Rule of thumb, for comparison: %s, %s (%s)\n", format_gib(b.rule_of_thumb_bytes).c_str(),
                  rule_of_thumb_comparison(b).c_str(), b.rule_of_thumb_formula.c_str());
    if (!b.peak_phase.empty()) o += "Peak during: " + b.peak_phase + "\n";
    if (b.speed && b.speed->step_s > 0)
        o += line("Time: %.3g s per optimizer step, %.0f %s/s (%.0f per GPU), %s-bound (%s)\n", b.speed->step_s,
                  b.speed->tokens_per_s, b.speed->unit.c_str(), b.speed->tokens_per_s_per_gpu, b.speed->bound.c_str(),
                  b.speed->basis.c_str());
    if (b.speed && b.speed->decode_s_per_token > 0)
        o += line("Speed: prefill %.3g s, then %.1f tokens/s per sequence (%.0f for the batch), %s-bound (%s)\n",
                  b.speed->prefill_s, b.speed->tokens_per_s_per_sequence, b.speed->tokens_per_s, b.speed->bound.c_str(),
                  b.speed->basis.c_str());
    if (b.speed && b.speed->time_for_dataset_s > 0)
        o += line("Dataset: %.4g %s take %s at %.0f %s/s\n", b.speed->dataset_tokens, b.speed->unit.c_str(),
                  format_duration(b.speed->time_for_dataset_s).c_str(), b.speed->tokens_per_s, b.speed->unit.c_str());
    for (const auto& n : b.notes) o += "note: " + n + "\n";
    for (const auto& w : b.warnings) o += "warning: " + w + "\n";
    return o;
}

std::string render_advice(const AdvicePlan& plan, const Bill& before) {
    if (plan.ranked.empty() && plan.note.empty()) return "";
    std::string o = "\nWhat to change (each computed by the estimator; per GPU):\n";
    std::size_t shown = 0;
    for (const auto& a : plan.ranked) {
        if (++shown > 5) break;
        // vLLM fills its budget: "above target" there means its pool holds fewer sequences than the batch.
        const char* mark = a.within_target ? "fits" : !a.fits             ? "no"
                                                  : before.serving_budget ? "runs, queues"
                                                                          : "fits above target";
        std::string batch = before.max_batch || before.max_concurrent_sequences ? "batch" : "micro-batch";
        std::string price;
        if (a.speed_ratio > 0 && std::fabs(a.speed_ratio - 1) < 0.005) price = ", same speed";
        else if (a.speed_ratio > 0)
            price = a.speed_ratio >= 1 ? line(", %.0f %% faster", (a.speed_ratio - 1) * 100) : line(", %.0f %% slower", (1 - a.speed_ratio) * 100);
        const std::string most = a.max_batch > 0 ? "largest " + batch + " " + std::to_string(a.max_batch)
                                 : a.fits        ? "above the target even at " + batch + " 1"
                                                 : "does not fit at " + batch + " 1";
        o += line("  %-18s %s -> %s, %s%s\n", mark, a.title.c_str(), format_gib(a.device_bytes).c_str(), most.c_str(), price.c_str());
    }
    if (!plan.note.empty()) o += "  " + plan.note + "\n";
    return o;
}

std::string render_params(const std::string& name, const ModelSpec& m, const ParamBreakdown& p) {
    std::string o = line("%s  (model_type %s)\n", name.c_str(), m.model_type.c_str());
    auto row = [&](const char* what, std::int64_t n) {
        if (n > 0 || std::string(what) == "total") o += line("  %-12s %20s  (%s)\n", what, format_count(n).c_str(), format_params_short(n).c_str());
    };
    row("total", p.total);
    if (p.active != p.total) row("active", p.active);
    row("embeddings", p.embeddings);
    row("attention", p.attention);
    row("mlp", p.mlp);
    row("experts", p.experts);
    row("router", p.router);
    row("norms", p.norms);
    row("lm_head", p.lm_head);
    if (p.vision > 0) row("vision", p.vision);
    if (p.mamba > 0) row("mamba", p.mamba);
    if (m.stack) {  // a model given by its layers: its own per-sample figures (layer_stack.cpp)
        const LayerStack& st = *m.stack;
        o += line("  layer stack: %zu layers, input %s -> output %s, %s trainable, %s buffers\n", st.layers.size(),
                  nlohmann::json(st.input).dump().c_str(), nlohmann::json(st.output_shape()).dump().c_str(),
                  format_params_short(st.trainable_parameters).c_str(), format_params_short(st.buffers).c_str());
        o += line("  per sample: %.1f MiB saved for backward in bf16 (%.1f in fp32), %.3f GFLOPs forward\n",
                  st.saved_bytes_per_sample(2) / kMiB, st.saved_bytes_per_sample(4) / kMiB, st.flops_per_sample() / 1e9);
        return o;
    }
    o += line("  layers %lld, hidden %lld, heads %lld (kv %lld, head_dim %lld), vocab %lld, %s embeddings\n",
              static_cast<long long>(m.layers), static_cast<long long>(m.hidden), static_cast<long long>(m.heads),
              static_cast<long long>(m.kv_heads), static_cast<long long>(m.head_dim), static_cast<long long>(m.vocab),
              m.tied_embeddings ? "tied" : "untied");
    if (m.moe.experts > 0)
        o += line("  MoE: %lld experts, top-%lld, %lld MoE layers, %lld shared\n", static_cast<long long>(m.moe.experts),
                  static_cast<long long>(m.moe.top_k), static_cast<long long>(m.moe.moe_layers),
                  static_cast<long long>(m.moe.shared_experts));
    return o;
}

std::string render_validation(const ValidationReport& r) {
    std::string o = line("%-48s %-10s %-12s %16s %16s %9s\n", "id", "kind", "status", "expected", "estimated", "abs err");
    for (const auto& e : r.entries) {
        std::string err = e.abs_pct_error ? line("%8.1f%%", *e.abs_pct_error) : "";
        o += line("%-48.48s %-10s %-12s %16.6g %16.6g %9s\n", e.id.c_str(), e.kind.c_str(), e.status.c_str(), e.expected,
                  e.estimated, err.c_str());
        if (!e.message.empty() && e.status == "error") o += "    " + e.message + "\n";
    }
    o += "\nSummary\n";
    if (r.params_total) o += line("  parameter counts exact:   %d / %d\n", r.params_exact, r.params_total);
    if (r.count)
        o += line("  measured runs compared:   %d   median |err| %.1f%%   p90 %.1f%%   max %.1f%%\n", r.count,
                  r.median_abs_pct_error, r.p90_abs_pct_error, r.max_abs_pct_error);
    if (r.oom_total) o += line("  OOM runs predicted:       %d / %d\n", r.oom_correct, r.oom_total);
    if (r.fit_total) o += line("  runs that ran, predicted to fit: %d / %d\n", r.fit_correct, r.fit_total);
    if (r.formulas_total) o += line("  formula cases reproduced: %d / %d\n", r.formulas_matched, r.formulas_total);
    if (r.sweeps_total)
        o += line("  largest micro-batch (sweeps): %d / %d exact, %d over (an OOM at the printed batch)\n", r.sweeps_exact,
                  r.sweeps_total, r.sweeps_over);
    return o;
}

// The summary table: one row per reference file, its results in one cell.
static std::string summary_markdown(const std::vector<ValidationFile>& files) {
    std::string o =
        "# Validation results\n\n"
        "<!-- Generated by `vramcalc validate --markdown`; do not edit. Regenerate from the repository root with\n"
        "     build/native/cli/vramcalc validate --markdown > docs/validation.md\n"
        "     The CTest \"docs: validation.md is current\" fails when this file differs from what the CLI prints. -->\n\n"
        "Every entry of the reference files below comes from a public source named in the entry itself\n"
        "(`tests/data/README.md`). How each estimate is computed: [methodology.md](methodology.md).\n\n"
        "Error = |estimate − measured| / measured, for the statistic the source reports: `allocated`\n"
        "(torch `max_memory_allocated`; `active` is compared with it), `reserved` (`max_memory_reserved`) or\n"
        "`device` (nvidia-smi); for serving engines `kv_pool` (the KV-cache pool vLLM logs) or `weights` (the\n"
        "weight memory it logs). An OOM run counts as predicted when the estimate does not fit on the GPU; a run\n"
        "that ran (a peak reading of allocated, active, reserved or device bytes) counts as predicted to fit when\n"
        "the estimate fits its GPU.\n"
        "Percentiles use the nearest rank. Sizes in GiB (2^30 bytes).\n\n"
        "## Summary\n\n| reference file | result |\n|---|---|\n";
    for (const auto& f : files) {
        const auto& r = f.report;
        std::string res;
        auto add = [&res](const std::string& t) { res += (res.empty() ? "" : "; ") + t; };
        if (r.params_total) add(line("parameter counts exact: %d / %d", r.params_exact, r.params_total));
        if (r.formulas_total)
            add(line("formula cases reproduced: %d / %d (the others need parts not modelled yet)", r.formulas_matched,
                     r.formulas_total));
        if (r.count)
            add(line("%d measured runs compared: median |error| %.1f %%, p90 %.1f %%, max %.1f %%", r.count,
                     r.median_abs_pct_error, r.p90_abs_pct_error, r.max_abs_pct_error));
        if (r.oom_total) add(line("OOM runs predicted: %d / %d", r.oom_correct, r.oom_total));
        if (r.fit_total) add(line("runs that ran, predicted to fit: %d / %d", r.fit_correct, r.fit_total));
        if (r.sweeps_total)
            add(line("largest micro-batch that runs: %d / %d sweeps exact, %d over", r.sweeps_exact, r.sweeps_total, r.sweeps_over));
        if (f.startup) add(startup_logs_summary(*f.startup));
        if (res.empty()) res = "no entries";
        o += "| `" + markdown_cell(f.path) + "` | " + markdown_cell(res) + " |\n";
    }
    return o;
}

// A measured file's tables by source and by workload.
static std::string group_tables(const ValidationFile& f, bool measured) {
    std::string o;
    if (measured) {
        o += "### By source\n\n| # | source | entries | compared | median \\|error\\| | p90 \\|error\\| | OOM predicted |\n"
             "|---|---|---|---|---|---|---|\n";
        for (std::size_t i = 0; i < f.sources.size(); ++i) {
            const auto& g = f.sources[i];
            o += line("| S%zu | ", i + 1) + markdown_cell(g.source) + line(" | %d | %d | ", g.entries, g.report.count) +
                 pct_or_dash(g.report.count, g.report.median_abs_pct_error) + " | " +
                 pct_or_dash(g.report.count, g.report.p90_abs_pct_error) + " | " + oom_text(g.report) + " |\n";
        }
    }
    if (!f.workloads.empty()) {
        o += "\n### By workload\n\n| group | entries | compared | median \\|error\\| | p90 \\|error\\| | OOM predicted | ran, predicted to fit |\n"
             "|---|---|---|---|---|---|---|\n";
        for (const auto& g : f.workloads)
            o += "| " + markdown_cell(g.source) + line(" | %d | %d | ", g.entries, g.report.count) +
                 pct_or_dash(g.report.count, g.report.median_abs_pct_error) + " | " +
                 pct_or_dash(g.report.count, g.report.p90_abs_pct_error) + " | " + oom_text(g.report) + " | " +
                 fit_text(g.report) + " |\n";
    }
    return o;
}

// Per-entry rows: every compared run and every mismatch; skipped entries in a list of their own.
static void entry_rows(const ValidationFile& f, bool measured, std::string& rows, std::string& skipped) {
    const auto& r = f.report;
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
        const auto& e = r.entries[i];
        const bool has_src = i < f.entry_source.size() && f.entry_source[i] >= 0 &&
                             static_cast<std::size_t>(f.entry_source[i]) < f.sources.size();
        const std::string src = !has_src   ? ""
                                : measured ? line("S%d", f.entry_source[i] + 1)
                                           : markdown_cell(f.sources[static_cast<std::size_t>(f.entry_source[i])].source);
        const std::string scen = i < f.entry_scenario.size() ? f.entry_scenario[i] : "";
        if (e.kind == "throughput" && e.status == "ok") {
            rows += "| " + markdown_cell(e.id) + " | " + src + " | " + markdown_cell(scen) + " | " + e.metric + " | " +
                    line("%.4g", e.expected) + " | " + line("%.4g", e.estimated) + " | " +
                    line("%.1f %%", *e.abs_pct_error) + " |\n";
        } else if (e.kind == "measured" && e.status == "ok") {
            rows += "| " + markdown_cell(e.id) + " | " + src + " | " + markdown_cell(scen) + " | " + e.metric + " | " +
                    gib_text(e.expected) + " | " + gib_text(e.estimated) + " | " + line("%.1f %%", *e.abs_pct_error) +
                    (e.fits && !*e.fits ? " (predicted not to fit)" : "") + " |\n";
        } else if (e.kind == "measured" && e.metric == "oom") {
            rows += "| " + markdown_cell(e.id) + " | " + src + " | " + markdown_cell(scen) + " | OOM on " + gib_text(e.expected) +
                    " GiB | – | " + gib_text(e.estimated) + " (device) | " +
                    (e.status == "oom-correct" ? "predicted" : "missed") + " |\n";
        } else if (e.kind == "parameters" || e.kind == "formula") {
            if (e.status == "exact" || e.status == "unsupported") continue;
            rows += "| " + markdown_cell(e.id) + " | " + src + " | " + markdown_cell(e.metric) + " | " + e.status + " | " +
                    line("%.10g", e.expected) + " | " + line("%.10g", e.estimated) + " | " + markdown_cell(e.message) + " |\n";
        } else {
            skipped += "| " + markdown_cell(e.id) + " | " + src + " | " + e.status + " | " + markdown_cell(e.message) + " |\n";
        }
    }
}

std::string render_validation_markdown(const std::vector<ValidationFile>& files) {
    std::string o = summary_markdown(files);

    for (const auto& f : files) {
        const auto& r = f.report;
        o += "\n## `" + markdown_cell(f.path) + "`\n\n";
        if (f.startup) {
            o += render_startup_logs_markdown(*f.startup);
            continue;
        }
        const bool measured = r.count > 0 || r.oom_total > 0;
        const bool throughput = std::any_of(r.entries.begin(), r.entries.end(), [](const EntryResult& e) { return e.kind == "throughput"; });
        o += group_tables(f, measured);
        std::string rows, skipped;
        entry_rows(f, measured, rows, skipped);
        if (!rows.empty()) {
            if (measured)
                o += std::string("\n### Runs\n\n| id | source | scenario | metric | measured") +
                     (throughput ? " (tokens/s or s)" : " GiB") + " | estimated" + (throughput ? "" : " GiB") +
                     " | \\|error\\| |\n|---|---|---|---|---|---|---|\n";
            else
                o += "| id | source | metric | status | expected | computed | note |\n|---|---|---|---|---|---|---|\n";
            o += rows;
        } else if (r.entries.empty()) {
            o += "No entries yet.\n";
        } else if (!measured) {
            o += "Every entry reproduced exactly.\n";
        }
        if (!skipped.empty())
            o += "\n### Not compared\n\n| id | source | status | why |\n|---|---|---|---|\n" + skipped;
    }
    return o;
}

std::string render_presets(const Catalog& c) {
    std::string o = "Model presets (id, parameters, family, hub id):\n";
    for (const auto& m : c.models())
        o += line("  %-26s %9s  %-10s %s\n", m.id.c_str(), format_params_short(m.params.total).c_str(), m.family.c_str(),
                  m.hub_id.c_str());
    o += "\nGPU presets (id, memory as the driver reports it):\n";
    for (const auto& g : c.gpus())
        o += line("  %-18s %10s %10s  %s\n", g.id.c_str(), format_gib(g.memory_bytes).c_str(),
                  format_gb(g.memory_bytes).c_str(), g.name.c_str());
    return o;
}

}  // namespace vramcalc::cli
