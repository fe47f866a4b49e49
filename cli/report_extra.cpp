// Two text renderings of the CLI: the report of `vramcalc import` (what was read into which scenario key,
// what was ignored and why, what was not recognised, what the scenario still needs) and the serving
// matrix of `vramcalc estimate` (context length x concurrency).
#include <cstdio>
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

std::string render_serving_matrix(const ServingMatrix& m) {
    if (m.empty()) return "";
    std::ostringstream o;
    o << "\nServing: concurrent sequences per context length (yes = fits; most = the largest that fits)\n";
    char cell[32];
    std::snprintf(cell, sizeof cell, "%10s", "context");
    o << cell;
    for (const auto n : m.concurrency) {
        std::snprintf(cell, sizeof cell, "%5lld", static_cast<long long>(n));
        o << cell;
    }
    o << "     most\n";
    for (std::size_t i = 0; i < m.contexts.size(); ++i) {
        std::snprintf(cell, sizeof cell, "%10lld", static_cast<long long>(m.contexts[i]));
        o << cell;
        for (const auto n : m.concurrency) o << (n <= m.max_concurrency[i] ? "  yes" : "    -");
        std::snprintf(cell, sizeof cell, "%9lld", static_cast<long long>(m.max_concurrency[i]));
        o << cell << "\n";
    }
    return o.str();
}

}  // namespace vramcalc::cli
