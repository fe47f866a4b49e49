#include "report.hpp"

#include <cstdio>

#include "vramcalc/units.hpp"

namespace vramcalc::cli {
namespace {

std::string line(const char* fmt, auto... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

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
    if (b.cpu_bytes > 0) o += line("host memory (offload):                       %s\n", format_gib(b.cpu_bytes).c_str());
    const std::int64_t diff = b.gpu.memory_bytes - b.device_bytes;
    if (b.fits) o += line("\nFITS on %s with %s to spare.\n", b.gpu.name.c_str(), format_gib(diff).c_str());
    else o += line("\nDOES NOT FIT on %s: %s over.\n", b.gpu.name.c_str(), format_gib(-diff).c_str());
    if (b.max_micro_batch) o += line("Largest micro-batch within the target utilisation: %lld\n", static_cast<long long>(*b.max_micro_batch));
    if (b.max_batch) o += line("Largest batch within the target utilisation: %lld\n", static_cast<long long>(*b.max_batch));
    if (b.max_seq_len) o += line("Longest seq_len at this micro-batch within the target utilisation: %lld\n", static_cast<long long>(*b.max_seq_len));
    if (!b.peak_phase.empty()) o += "Peak during: " + b.peak_phase + "\n";
    for (const auto& w : b.warnings) o += "warning: " + w + "\n";
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
    if (r.formulas_total) o += line("  formula cases reproduced: %d / %d\n", r.formulas_matched, r.formulas_total);
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
