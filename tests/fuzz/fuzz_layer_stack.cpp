// Fuzz target: layer-stack JSON text -> LayerStack -> a training and an inference bill. Any input must give
// a stack or errors with messages (never a crash, an out-of-bounds read, UB or a wrapped count), and an
// accepted stack's bills must satisfy every bill invariant (fuzz_common.hpp). Issue 42's heap overflow was
// a stack whose only layer was an empty block.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/layer_stack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace vramcalc;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto r = layer_stack_from_text(text);
    if (!r.ok()) {
        fuzz::require(!r.errors.empty(), "a refused layer stack reports no error");
        for (const auto& e : r.errors) fuzz::require(!e.message.empty(), "an error without a message");
        return 0;
    }
    fuzz::require(!r->layers.empty(), "an accepted layer stack has no layer");
    fuzz::require(r->parameters >= 0 && r->trainable_parameters >= 0 && r->trainable_parameters <= r->parameters,
                  "parameter counts out of order");
    std::string why;
    const auto j = parse_json_text(text, why);
    fuzz::require(j.has_value(), "text accepted as a layer stack is not JSON: " + why);
    for (const char* workload : {"train", "infer"}) {
        const auto s = scenario_from_json({{"model", *j}, {"workload", workload}, {"micro_batch", 2}, {"batch", 2}}, fuzz::catalog());
        if (!s.ok()) continue;  // e.g. a stack the estimator refuses for this workload, with a message
        fuzz::check_bill(*s, estimate(*s));
    }
    return 0;
}
