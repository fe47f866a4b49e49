// Fuzz target: scenario JSON text -> validated Scenario -> bill. Any input gives a scenario or errors;
// an accepted scenario writes back (scenario_to_json) to JSON that reads again to the same scenario, its
// URL link round-trips, and its bill keeps the invariants of fuzz_common.hpp.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "vramcalc/url_state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace vramcalc;
    using nlohmann::json;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto r = scenario_from_text(text, fuzz::catalog());
    if (!r.ok()) {
        fuzz::require(!r.errors.empty(), "a rejected scenario reports no error");
        return 0;
    }
    const Scenario& s = *r.value;
    const json written = scenario_to_json(s);
    // Every model (preset, inline config, parameter count) and GPU is written as given: the writer is the
    // reader's inverse.
    const auto again = scenario_from_json(written, fuzz::catalog());
    fuzz::require(again.ok(), "scenario_to_json wrote a scenario that does not read back: " + again.error_text(), &s);
    fuzz::require(scenario_to_json(*again.value) == written, "scenario_to_json is not a fixed point", &s);
    const auto link = decode_url_state(encode_url_state(written));
    fuzz::require(link.ok() && *link.value == written, "the URL link does not round-trip", &s);
    fuzz::check_bill(s, estimate(s));
    return 0;
}
