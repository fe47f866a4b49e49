// What a read layer stack answers without its JSON (vramcalc/layer_stack.hpp): its saved bytes and FLOPs per
// sample, its parameter groups, and the ModelSpec that carries it. The reader is layer_stack.cpp.
#include "vramcalc/layer_stack.hpp"

#include <memory>

namespace vramcalc {

double LayerStack::saved_bytes_per_sample(double activation_bytes) const {
    double sum = 0;
    for (const auto& l : layers) sum += l.saved_bytes(activation_bytes);
    return sum;
}

double LayerStack::saved_bytes_per_batch() const {
    double sum = 0;
    for (const auto& l : layers) sum += l.saved_per_batch_bytes;
    return sum;
}

double LayerStack::flops_per_sample() const {
    double sum = 0;
    for (const auto& l : layers) sum += l.flops;
    return sum;
}

ModelSpec model_from_layer_stack(LayerStack stack, std::string name) {
    ModelSpec m;
    m.name = std::move(name);
    m.model_type = "layer_stack";
    m.arch = Arch::encoder;  // no causal decoding, no KV cache
    m.params = stack.param_groups();
    m.stack = std::make_shared<const LayerStack>(std::move(stack));
    return m;
}

std::vector<ParamGroup> LayerStack::param_groups() const {
    std::vector<ParamGroup> out;
    for (const auto& l : layers) out.insert(out.end(), l.params.begin(), l.params.end());
    return out;
}

}  // namespace vramcalc
