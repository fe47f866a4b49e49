// Internal: the parameters each rank of a multi-GPU layout holds (Megatron tp/pp/ep placement), and the
// share of a layer's activations tensor parallelism leaves on a rank.
#pragma once

#include "parallel/parallel.hpp"

namespace vramcalc::detail {

inline bool is_fsdp(Sharding s) { return s == Sharding::fsdp_full || s == Sharding::fsdp_grad_op; }
inline bool is_zero(Sharding s) { return s == Sharding::zero1 || s == Sharding::zero2 || s == Sharding::zero3; }

// Where each parameter tensor lives under tensor and pipeline parallelism (Megatron-LM):
//  - the word embedding sits on the first pipeline stage and the output layer on the last, both split
//    over tp along the vocabulary (VocabParallelEmbedding, ColumnParallelLinear); with tied embeddings
//    and pp > 1 the last stage keeps its own copy of the embedding for the output layer
//    (megatron/core/models/common/language_module: shared_embedding_or_output_weight);
//  - decoder layers are split evenly over the stages (ceil(L / pp) on the most loaded one); their
//    linear weights are split over tp (column/row parallel), norms are replicated; routed experts are
//    split over ep (and over tp inside an expert, Megatron's default expert tensor parallelism);
//  - what belongs to no layer (the final norm) sits on the last stage.
struct StageParams {
    double first = 0, last = 0;      // parameters held by one rank of the first / last stage
    double layer = 0;                // parameters of one decoder layer (all ranks of the tp group)
    double non_layer = 0;            // embeddings, output layer, final norm
    double largest_tensor = 0;       // the largest single module's parameters (DeepSpeed's "largest layer")
    double persistent_fraction = 0;  // share of parameters in tensors below ZeRO-3's persistence threshold
    double layers_per_stage = 0;
};
StageParams stage_params(const ModelSpec& m, const Layout& L);

// The share of one layer's saved activations a tp rank keeps (1 when tp = 1).
double tp_activation_share(const ModelSpec& m, const ActivationSetup& a, const Scenario& s, const Layout& L);

}  // namespace vramcalc::detail
