#include "vramcalc/bill_format.hpp"

#include <algorithm>
#include <cstdio>

#include "vramcalc/units.hpp"

namespace vramcalc {
namespace {

std::string gib3(std::int64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(bytes) / kGiB);
    return buf;
}

// RFC 4180: quote a field when it holds a comma, quote or line break; double the quotes inside.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

std::string share(std::int64_t part, std::int64_t whole) {
    if (whole <= 0) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
    return buf;
}

}  // namespace

Verdict verdict_for(std::int64_t device_bytes, std::int64_t capacity_bytes, double target_utilization) {
    if (capacity_bytes <= 0 || device_bytes > capacity_bytes) return Verdict::does_not_fit;
    const double target = static_cast<double>(capacity_bytes) * target_utilization;
    return static_cast<double>(device_bytes) <= target ? Verdict::fits : Verdict::fits_above_target;
}

Verdict verdict_of(const Bill& b) {
    if (!b.fits) return Verdict::does_not_fit;  // an engine may refuse what fits in bytes (vLLM's pool)
    // An engine that fills its own budget (vLLM) is as full as it was told to be: the question is how many
    // sequences its pool holds, against the batch asked for, not the target utilisation.
    if (const auto& sb = b.serving_budget)
        return b.kv_pool_sequences.value_or(0) >= sb->requested_sequences ? Verdict::fits : Verdict::fits_above_target;
    return verdict_for(b.needed_bytes, b.gpu.memory_bytes, b.target_utilization);
}

const char* verdict_name(Verdict v) {
    return v == Verdict::fits ? "fits" : v == Verdict::fits_above_target ? "fits_above_target"
                                                                         : "does_not_fit";
}

namespace {

// vLLM's verdict: what its budget holds, and what lies outside it.
std::string serving_budget_sentence(const Bill& b, const ServingBudget& sb) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f %%", 100.0 * sb.fraction);
    const std::int64_t room = b.gpu.memory_bytes - b.device_bytes;
    const std::int64_t seqs = b.kv_pool_sequences.value_or(0);
    const std::string of_len = (seqs == 1 ? " sequence of " : " sequences of ") + std::to_string(sb.sequence_tokens) + " tokens";
    switch (verdict_of(b)) {
        case Verdict::fits:
            return "fits: the weights and overheads leave vLLM's " + std::string(pct) + " budget (" + format_gib(sb.budget_bytes) +
                   ", which it fills by design) a KV pool for " + std::to_string(seqs) + of_len + "; " + format_gib(room) +
                   " free outside it";
        case Verdict::fits_above_target:
            return "runs, but vLLM's KV pool holds only " + std::to_string(seqs) + of_len + " at once, fewer than the batch's " +
                   std::to_string(sb.requested_sequences) + ": the rest wait in its queue";
        case Verdict::does_not_fit:
            break;
    }
    if (room < 0) return "does not fit: " + format_gib(-room) + " over";
    if (seqs < 1) return "does not run: the weights and overheads leave vLLM's " + std::string(pct) + " budget no room for one sequence of " +
                         std::to_string(sb.sequence_tokens) + " tokens";
    return "does not run: vLLM's KV pool cannot hold one sequence of max_model_len " + std::to_string(sb.max_model_len) +
           " tokens, and vLLM refuses to start";
}

}  // namespace

std::string verdict_sentence(const Bill& b) {
    if (b.serving_budget) return serving_budget_sentence(b, *b.serving_budget);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f %%", 100.0 * b.target_utilization);
    const std::int64_t room = b.gpu.memory_bytes - b.needed_bytes;
    switch (verdict_of(b)) {
        case Verdict::fits:
            return "fits within the " + std::string(pct) + " target, " + format_gib(room) + " free";
        case Verdict::fits_above_target:
            return "fits, but above the " + std::string(pct) + " target: only " + format_gib(room) + " free";
        case Verdict::does_not_fit:
            break;
    }
    if (room >= 0) return "does not run: the engine's own limits refuse it (see the warnings)";
    return "does not fit: " + format_gib(-room) + " over";
}

std::string max_micro_batch_text(const Bill& b) {
    if (!b.max_micro_batch) return "";
    std::string out = count_text(*b.max_micro_batch);
    if (b.max_micro_batch_checkpointing.empty()) return out;
    const std::string& ck = b.max_micro_batch_checkpointing;
    out += " (seq_len " + std::to_string(b.max_micro_batch_seq_len) + ", " + (ck == "none" ? "no" : ck) + " checkpointing";
    if (b.max_micro_batch_full_checkpointing)
        out += "; " + (*b.max_micro_batch_full_checkpointing > 0 ? std::to_string(*b.max_micro_batch_full_checkpointing) : "not even 1") +
               " with full checkpointing";
    return out + ")";
}

std::string count_text(std::int64_t n) { return n > 0 ? std::to_string(n) : std::string("none, not even 1"); }

std::int64_t rule_of_thumb_basis_bytes(const Bill& b) {
    if (!b.serving_budget || !b.kv_pool_bytes || b.kv_pool_sequences.value_or(0) <= 0) return b.device_bytes;
    const double used = std::min(1.0, static_cast<double>(std::max<std::int64_t>(1, b.serving_budget->requested_sequences)) /
                                          static_cast<double>(*b.kv_pool_sequences));
    return b.device_bytes - static_cast<std::int64_t>(static_cast<double>(*b.kv_pool_bytes) * (1.0 - used));
}

std::string rule_of_thumb_comparison(const Bill& b) {
    const std::int64_t basis = rule_of_thumb_basis_bytes(b);
    if (b.rule_of_thumb_bytes <= 0 || basis <= 0) return "";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%+.0f %%", 100.0 * (static_cast<double>(b.rule_of_thumb_bytes) - static_cast<double>(basis)) / static_cast<double>(basis));
    return std::string(buf) + (basis != b.device_bytes ? " against this bill without the KV blocks vLLM reserves beyond the batch"
                                                       : " against this bill");
}

std::string markdown_cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n' || c == '\r') out += ' ';
        else out += c;
    }
    return out;
}

std::string bill_to_csv(const Bill& b) {
    std::string out = "component,bytes,GiB,share_of_device,detail\r\n";
    auto row = [&](const std::string& id, std::int64_t bytes, const std::string& detail) {
        out += csv_field(id) + ',' + std::to_string(bytes) + ',' + gib3(bytes) + ',' +
               csv_field(share(bytes, b.device_bytes)) + ',' + csv_field(detail) + "\r\n";
    };
    for (const auto& c : b.components) row(c.id, c.bytes, c.detail);
    row("peak_allocated", b.peak_allocated_bytes, "torch.cuda.max_memory_allocated()");
    row("peak_reserved", b.peak_reserved_bytes, "torch.cuda.max_memory_reserved()");
    row("device", b.device_bytes, "what nvidia-smi shows for the process");
    row("gpu_capacity", b.gpu.memory_bytes, b.gpu.name);
    if (b.cpu_bytes > 0) row("cpu", b.cpu_bytes, "host memory");
    return out;
}

std::string bill_to_markdown(const Bill& b) {
    std::string out = "## " + markdown_cell(b.model_name) + " on " + markdown_cell(b.gpu.name) + "\n\n";
    out += "**" + format_gib(b.device_bytes) + " of " + format_gib(b.gpu.memory_bytes) + " per GPU: " + verdict_sentence(b) +
           ".** (GiB = 2^30 bytes)\n\n";
    out += "| component | GiB | bytes | share | how |\n|---|---:|---:|---:|---|\n";
    for (const auto& c : b.components)
        out += "| " + markdown_cell(c.id) + " | " + gib3(c.bytes) + " | " + std::to_string(c.bytes) + " | " +
               share(c.bytes, b.device_bytes) + " | " + markdown_cell(c.detail) + " |\n";
    out += "\n| peak | GiB | bytes |\n|---|---:|---:|\n";
    out += "| allocated (max_memory_allocated) | " + gib3(b.peak_allocated_bytes) + " | " +
           std::to_string(b.peak_allocated_bytes) + " |\n";
    out += "| reserved (max_memory_reserved) | " + gib3(b.peak_reserved_bytes) + " | " +
           std::to_string(b.peak_reserved_bytes) + " |\n";
    out += "| device (nvidia-smi) | " + gib3(b.device_bytes) + " | " + std::to_string(b.device_bytes) + " |\n";
    if (b.cpu_bytes > 0) out += "| host (CPU) | " + gib3(b.cpu_bytes) + " | " + std::to_string(b.cpu_bytes) + " |\n";
    if (b.max_micro_batch) out += "\nLargest micro-batch that fits: " + max_micro_batch_text(b) + "\n";
    if (b.max_batch) out += "\nLargest batch that fits: " + count_text(*b.max_batch) + "\n";
    if (b.max_seq_len) out += "\nLongest sequence at this micro-batch: " + std::to_string(*b.max_seq_len) + " tokens\n";
    for (const auto& w : b.warnings) out += "\n> warning: " + markdown_cell(w) + "\n";
    return out;
}

std::string bill_summary(const Bill& b) {
    return b.model_name + " on " + b.gpu.name + ": " + format_gib(b.device_bytes) + " of " +
           format_gib(b.gpu.memory_bytes) + " per GPU, " + verdict_sentence(b) + ".";
}

}  // namespace vramcalc
