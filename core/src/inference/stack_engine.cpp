// Inference of a layer-stack model (CNNs, ViTs, custom networks) in plain PyTorch: the weights and, under
// torch.no_grad(), the tensors alive at once in the forward (model/layer_stack.cpp forward_peak_elements:
// each tensor from the layer that makes it to its last reader) times the batch. No KV cache, no logits
// beyond the stack's output (counted among the live tensors). docs/methodology.md, "Layer stacks".
#include "inference/engines.hpp"

#include <string>

#include "bill/lines.hpp"
#include "common/format.hpp"
#include "formats/weight_format_table.hpp"
#include "inference/placement.hpp"
#include "runtime/runtime.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::detail {

void stack_engine(const Scenario& s, Bill& b) {
    const ModelSpec& m = s.model;
    const LayerStack& st = *m.stack;
    const double per_param = nominal_bytes_per_param(s.weights);
    if (!is_float_format(s.weights))
        b.warnings.push_back("weights \"" + s.weights + "\" on a layer stack: every parameter counted at " + bytes_per(per_param) +
                             " (no per-layer quantisation rule for convs)");
    const double params = static_cast<double>(st.parameters), buffers = static_cast<double>(st.buffers);
    // Buffers (batch norm running statistics) are cast with the module (module.to(dtype)).
    add_line(b, "weights", (params + buffers) * per_param,
             count_short(params) + " params + " + count_short(buffers) + " buffers x " + bytes_per(per_param));
    const double c = compute_bytes(s);
    add_line(b, "activations", st.forward_peak_elements * c * static_cast<double>(s.batch),
             printf_string("%.1f MiB", st.forward_peak_elements * c / kMiB) + " live at once per sample x " +
                 std::to_string(s.batch) + " (no_grad forward)");
    b.peak_phase = "forward";
    close_torch_bill(b);
}

}  // namespace vramcalc::detail
