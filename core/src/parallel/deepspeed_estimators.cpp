// DeepSpeed's published memory estimators (stage_1_and_2.py estimate_zero2_model_states_mem_needs,
// stage3.py estimate_zero3_model_states_mem_needs), as they were when docs/code-docs/source/memory.rst
// printed their outputs: the validation reproduces those printed figures.
#include <algorithm>
#include <cmath>

#include "parallel/parallel.hpp"

namespace vramcalc::detail {

DsEstimate deepspeed_zero2_estimate(double P, std::int64_t gpus_per_node, std::int64_t nodes, bool offload) {
    // estimate_zero2_model_states_mem_needs as documented in DeepSpeed's memory.rst (@38327e07): GPU 4P + 16P/N
    // without offload (the code now says 2P + 18P/N), 2P with the optimizer offloaded; CPU with offload
    // P x max(4N, 16) x 1.5, without P x 4 x gpus_per_node x 1.5 (for loading the model).
    const double N = static_cast<double>(gpus_per_node * nodes);
    DsEstimate e;
    if (offload) {
        e.gpu = 2 * P;
        e.cpu = P * std::max(4 * N, 16.0) * kDsCpuBufferFactor;
    } else {
        e.gpu = 4 * P + std::floor(16 * P / N);
        e.cpu = P * 4 * static_cast<double>(gpus_per_node) * kDsCpuBufferFactor;
    }
    e.gpu = std::floor(e.gpu);
    e.cpu = std::floor(e.cpu);
    return e;
}

DsEstimate deepspeed_zero3_estimate(double P, double LL, std::int64_t gpus_per_node, std::int64_t nodes,
                                    bool offload_optimizer, bool offload_params, bool zero_init) {
    // estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage3.py): largest_layer_memory =
    // 4 x largest layer; GPU = that + 18P/N (no offload), + 2P/N (optimizer offload), alone (both offloaded).
    const double N = static_cast<double>(gpus_per_node * nodes), per_node = static_cast<double>(gpus_per_node);
    const double nodes_factor = 1.0 / static_cast<double>(nodes), f = kDsCpuBufferFactor;
    const double ll = 4 * LL;
    DsEstimate e;
    if (offload_optimizer && offload_params) {
        e.gpu = ll;
        e.cpu = zero_init ? P * 18 * nodes_factor * f : P * std::max(4 * per_node, 18 * nodes_factor) * f;
    } else if (offload_optimizer) {
        e.gpu = ll + std::floor(2 * P / N);
        e.cpu = zero_init ? P * 16 * nodes_factor * f : P * std::max(4 * per_node, 16 * nodes_factor) * f;
    } else {
        e.gpu = ll + std::floor(18 * P / N);
        e.cpu = zero_init ? LL * 4 * per_node * f : P * 4 * per_node * f;
    }
    e.gpu = std::floor(e.gpu);
    e.cpu = std::floor(e.cpu);
    return e;
}

}  // namespace vramcalc::detail
