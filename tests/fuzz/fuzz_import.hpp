// Shared by the import fuzz targets: what every import answer must satisfy.
#pragma once

#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "vramcalc/import.hpp"

namespace vramcalc::fuzz {

inline void check_import(const Result<Imported>& r) {
    const nlohmann::json answer = import_answer(r);
    (void)answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!r.ok()) {
        require(!r.errors.empty(), "a failed import reports no error");
        for (const auto& e : r.errors) require(!e.message.empty(), "an error without a message");
        return;
    }
    require(r->scenario.is_object(), "an imported scenario that is not an object");
    require(!r->report.format.empty(), "an import without a format");
    for (const auto& k : r->report.read) require(!k.target.empty(), "a read key without its scenario key: " + k.key);
    for (const auto& k : r->report.ignored) require(!k.note.empty(), "an ignored key without a reason: " + k.key);
    // Every warning is also a note (the notes are what every front end shows).
    for (const auto& w : r.warnings) {
        bool noted = false;
        for (const auto& n : r->report.notes) noted = noted || n == "warning: " + w;
        require(noted, "a warning that is not in the notes: " + w);
    }
}

}  // namespace vramcalc::fuzz
