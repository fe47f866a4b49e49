// Fuzz target: URL hash text -> scenario JSON. Any input gives JSON or errors (never a crash or a
// throw); decoded JSON can be dumped (valid UTF-8), re-encodes to a link that decodes to the same JSON,
// and goes through the scenario parser without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "vramcalc/url_state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace vramcalc;
    const std::string_view hash(reinterpret_cast<const char*>(data), size);
    const auto r = decode_url_state(hash);
    if (!r.ok()) {
        fuzz::require(!r.errors.empty(), "a rejected link reports no error");
        for (const auto& e : r.errors) (void)nlohmann::json(e.text()).dump();  // messages are UTF-8
        return 0;
    }
    const nlohmann::json& j = *r.value;
    (void)j.dump();
    const std::string again = encode_url_state(j);
    const auto back = decode_url_state(again);
    fuzz::require(back.ok(), "a re-encoded link does not decode: " + back.error_text() + "\n" + again);
    fuzz::require(*back.value == j, "a re-encoded link decodes to other JSON:\n" + again);
    fuzz::require(encode_url_state(*back.value) == again, "encoding is not stable");
    (void)scenario_from_json(j, fuzz::catalog());
    return 0;
}
