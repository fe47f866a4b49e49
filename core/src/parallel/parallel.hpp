// Internal: what one GPU holds when a training step runs on several GPUs.
//
//  - data-parallel sharding of model states (ZeRO stages 1-3 / FSDP) over dp x cp, where dp = num_gpus /
//    (tp x pp x cp): context-parallel ranks hold the same parameters and shard them too,
//    with the buffers the frameworks allocate for it (DeepSpeed reduce and prefetch buckets, the gathered
//    parameters of the unit being computed, DDP's gradient buckets);
//  - CPU offload of optimizer states (and parameters): the bytes leave the GPU and appear in cpu_bytes;
//  - Megatron model parallelism: tp shards weights and activations (sp also the replicated parts), pp
//    splits the layers into stages (1F1B keeps up to pp micro-batches in flight on the first stage),
//    cp splits the sequence, ep the routed experts. The bill is for the most loaded rank.
// Sources are named next to each rule in parallel.cpp and in docs/methodology.md ("Multi-GPU").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "training/activations.hpp"
#include "training/training_step.hpp"
#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::detail {

// DeepSpeed's ZeRO defaults (deepspeed/runtime/zero/config.py, DeepSpeedZeroConfig): elements, not bytes.
inline constexpr double kDsReduceBucket = 5e8;          // reduce_bucket_size
inline constexpr double kDsAllgatherBucket = 5e8;       // allgather_bucket_size
inline constexpr double kDsPrefetchBucket = 5e7;        // stage3_prefetch_bucket_size
inline constexpr double kDsPersistenceThreshold = 1e5;  // stage3_param_persistence_threshold
inline constexpr double kDsMaxLiveParameters = 1e9;     // stage3_max_live_parameters
// DeepSpeed's memory estimators multiply host memory by additional_buffer_factor = 1.5 (pinned buffers
// and copies: stage_1_and_2.py estimate_zero2_model_states_mem_needs, stage3.py
// estimate_zero3_model_states_mem_needs).
inline constexpr double kDsCpuBufferFactor = 1.5;
// torch.nn.parallel.DistributedDataParallel(bucket_cap_mb=25): gradients are all-reduced in 25 MiB buckets.
inline constexpr double kDdpBucketBytes = 25.0 * kMiB;

// The data-parallel degree and the shares of one replica that the most loaded rank keeps.
struct Layout {
    std::int64_t dp = 1, tp = 1, pp = 1, cp = 1, ep = 1;
    // Ranks that shard the model states: context-parallel ranks hold the same parameters, so dp x cp.
    // torchtitan applies FSDP on its flattened "dp_shard_cp" mesh (parallelize_llama.py, "apply FSDP or
    // HSDP, potentially with Context Parallel"); Megatron's distributed optimizer uses the data-parallel
    // group with context parallel (parallel_state.get_data_parallel_group(with_context_parallel=True)).
    std::int64_t shard() const { return dp * cp; }
    bool sp = false;
    bool shard_optimizer = false, shard_grads = false, shard_weights = false;
    bool offload_optimizer = false, offload_params = false;
};
Layout layout_of(const Scenario& s);

// Static model states per GPU (no activations, no buffers): what the ZeRO paper's and DeepSpeed's
// model-state figures count. Bytes on the GPU and on the host for this rank.
struct ModelStates {
    double weights = 0, master = 0, gradients = 0, optimizer = 0;
    double gpu() const { return weights + master + gradients + optimizer; }
    double cpu = 0;
};
ModelStates model_states_per_gpu(const Scenario& s);

// Applies the layout to one training step: scales the model-state components already in `b`
// (weights, master_weights, lora), the optimizer bytes `opt`, the gradient and activation inputs of
// the step, adds the communication buffers and gathered parameters, and moves offloaded bytes to
// b.cpu_bytes. A no-op for one GPU without sharding or offload.
void apply_parallel_training(const Scenario& s, const ActivationSetup& a, Bill& b, StepInputs& in, double& opt,
                             double& opt_temp);

// DeepSpeed's published estimators, as they were when docs/code-docs/source/memory.rst printed their
// outputs (microsoft/DeepSpeed@38327e07): bytes per GPU and per CPU (node).
struct DsEstimate {
    double cpu = 0, gpu = 0;
};
DsEstimate deepspeed_zero2_estimate(double params, std::int64_t gpus_per_node, std::int64_t nodes, bool offload_optimizer);
DsEstimate deepspeed_zero3_estimate(double params, double largest_layer, std::int64_t gpus_per_node, std::int64_t nodes,
                                    bool offload_optimizer, bool offload_params, bool zero_init);

}  // namespace vramcalc::detail
