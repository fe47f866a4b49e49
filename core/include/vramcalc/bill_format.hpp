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

// Text made safe for one Markdown table cell: '|' escaped, line breaks as spaces.
std::string markdown_cell(const std::string& text);

}  // namespace vramcalc
