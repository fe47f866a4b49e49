// The bill as text for people: CSV and Markdown (the JSON form is bill_to_json). Used by the page's
// and desktop app's export buttons and by the CLI.
#pragma once

#include <string>

#include "vramcalc/bill.hpp"

namespace vramcalc {

// One row per component plus the peak figures; bytes exact, GiB (2^30 bytes) to 3 decimals.
std::string bill_to_csv(const Bill& b);
// A small Markdown report: verdict, the component table, peak figures, warnings.
std::string bill_to_markdown(const Bill& b);
// One line a screen reader (or a test) can read: "Llama 3.1 8B on H100 80GB: 45.2 GiB of 79.6 GiB, fits".
std::string bill_summary(const Bill& b);

// The verdict in three states: within the target utilisation, fits but above it, does not fit.
enum class Verdict { fits,
                     fits_above_target,
                     does_not_fit };
Verdict verdict_of(const Bill& b);
// The same rule for any device figure (catalog rows, advice rows): capacity first, then the target.
Verdict verdict_for(std::int64_t device_bytes, std::int64_t capacity_bytes, double target_utilization);
// The JSON name of a verdict: "fits", "fits_above_target", "does_not_fit".
const char* verdict_name(Verdict v);
// "fits within the 90 % target, 18.40 GiB free", "fits, but above the 90 % target: only 3.10 GiB free",
// "does not fit: 12.30 GiB over". One phrasing for the CLI, the UI and the exports.
std::string verdict_sentence(const Bill& b);

// The largest micro-batch with what it rests on and the full-checkpointing figure beside it:
// "1 (seq_len 2048, no checkpointing; 8 with full checkpointing)"; "none, not even 1 (...)" for 0.
// Empty when the bill has no max_micro_batch.
std::string max_micro_batch_text(const Bill& b);

// A count the solvers found, said plainly: "8", or "none, not even 1" for 0 (never "largest batch 0").
std::string count_text(std::int64_t n);

// The part of the bill the rule of thumb speaks for (Bill::rule_of_thumb_bytes): device_bytes, less the KV
// blocks of vLLM's pool beyond the sequences the batch asks for (the rule's 20 % covers those; the pool
// fills gpu_memory_utilization whatever the batch).
std::int64_t rule_of_thumb_basis_bytes(const Bill& b);
// "+12 % against this bill" (or "... against this bill without vLLM's unused KV blocks"), or "" when the bill has
// no rule of thumb.
std::string rule_of_thumb_comparison(const Bill& b);

// Text made safe for one Markdown table cell: '|' escaped, line breaks as spaces.
std::string markdown_cell(const std::string& text);

}  // namespace vramcalc
