// The report of `vramcalc import` as text: what was read into which scenario key, what was ignored and
// why, what was not recognised, and what the scenario still needs.
#include <sstream>

#include "report.hpp"

namespace vramcalc::cli {

std::string render_import_report(const ImportReport& r) {
    std::ostringstream o;
    auto where = [](const ImportedKey& k) { return k.line > 0 ? "line " + std::to_string(k.line) + ": " : std::string(); };
    o << "format: " << r.format << "\n";
    o << "read (" << r.read.size() << "):\n";
    for (const auto& k : r.read)
        o << "  " << where(k) << k.key << (k.value.empty() ? "" : " " + k.value) << " -> " << k.target
          << (k.note.empty() ? "" : " (" + k.note + ")") << "\n";
    o << "ignored (" << r.ignored.size() << "):\n";
    for (const auto& k : r.ignored)
        o << "  " << where(k) << k.key << (k.value.empty() ? "" : " " + k.value) << ": " << k.note << "\n";
    o << "unknown (" << r.unknown.size() << "):\n";
    for (const auto& k : r.unknown) o << "  " << where(k) << k.key << (k.value.empty() ? "" : " " + k.value) << "\n";
    for (const auto& n : r.notes) o << "note: " << n << "\n";
    return o.str();
}

}  // namespace vramcalc::cli
