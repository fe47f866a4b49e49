// Bill warnings about parallel layouts and sharding that a framework runs, but not as the settings say
// (layouts no framework runs are read errors: scenario/contradictions.cpp, scenario/read.cpp check_layout).
#include <string>

#include "bill/checks.hpp"

namespace vramcalc::detail {
namespace {

std::string fw(const Scenario& s) { return std::string("\"") + to_string(s.framework) + "\""; }

// tp against the attention heads. vLLM, Megatron and torchtitan refuse an uneven split when the scenario
// is read; a Scenario built in C++ (the planner, the advisor) still hears it here.
void head_checks(const Scenario& s, Bill& b) {
    const ModelSpec& m = s.model;
    if (s.tp <= 1 || m.heads <= 0 || s.tp > m.heads || m.heads % s.tp == 0 || m.count_only || m.stack) return;
    if (s.framework == Framework::vllm)
        b.warnings.push_back("tp " + std::to_string(s.tp) + " does not divide the model's " + std::to_string(m.heads) +
                             " attention heads: vLLM refuses this layout (\"Total number of attention heads must be "
                             "divisible by tensor parallel size\")");
    else
        b.warnings.push_back("tp " + std::to_string(s.tp) + " does not divide the model's " + std::to_string(m.heads) + " attention heads with framework " +
                             fw(s) +
                             ": DeepSpeed's AutoTP gives ranks uneven head counts, transformers' tp_plan and torch's "
                             "DTensor plans cut q, k and v between heads and fail to reshape them; the bill assumes an even "
                             "split (allowed: a tp that divides " +
                             std::to_string(m.heads) + ")");
}

void pipeline_checks(const Scenario& s, Bill& b) {
    const ModelSpec& m = s.model;
    // Megatron-LM arguments.py: without --decoder-first/last-pipeline-num-layers it asserts "Number of
    // layers should be divisible by the pipeline-model-parallel size"; torchtitan and DeepSpeed split unevenly.
    if (s.framework == Framework::megatron && s.pp > 1 && m.layers > 0 && s.pp <= m.layers && m.layers % s.pp != 0)
        b.warnings.push_back("pp " + std::to_string(s.pp) + " does not divide the model's " + std::to_string(m.layers) +
                             " layers: Megatron-LM refuses it (\"Number "
                             "of layers should be divisible by the pipeline-model-parallel size\") unless "
                             "--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers give the uneven stages; "
                             "the bill puts " +
                             std::to_string((m.layers + s.pp - 1) / s.pp) + " layers on the fullest stage");
    // Megatron-LM arguments.py: "Disabling sequence parallelism because tensor model parallelism is disabled".
    if (s.workload == Workload::train && s.sp && s.tp <= 1)
        b.warnings.push_back(
            "sp true with tp 1: sequence parallelism splits activations across the tensor-parallel ranks, so it "
            "changes nothing here (Megatron-LM turns it off: \"Disabling sequence parallelism because tensor model "
            "parallelism is disabled\"); it needs tp > 1");
}

// torchtitan shards with FSDP2 only (parallelize.py apply_fsdp; reshard_after_forward "never" is ZeRO-2-like)
// and trains whole models (its model converters are float8/MX; no LoRA or adapters). Warnings, as for a
// serving framework asked to train: the bill follows the settings.
void torchtitan_checks(const Scenario& s, Bill& b) {
    if (s.workload != Workload::train || s.framework != Framework::torchtitan) return;
    if (s.sharding == Sharding::zero1 || s.sharding == Sharding::zero2 || s.sharding == Sharding::zero3)
        b.warnings.push_back("sharding \"" + std::string(to_string(s.sharding)) +
                             "\" is DeepSpeed's ZeRO; framework \"torchtitan\" "
                             "shards with FSDP2 only (allowed: none, fsdp-full, or fsdp-grad-op for reshard_after_forward never): "
                             "the bill follows ZeRO's sharding");
    if (s.method != Method::full && s.method != Method::freeze)
        b.warnings.push_back("method \"" + std::string(to_string(s.method)) +
                             "\" with framework \"torchtitan\": torchtitan has no "
                             "LoRA or adapters (it trains whole models; allowed: full); the bill follows PEFT's " +
                             to_string(s.method) + " with torchtitan's other defaults");
}

void sharding_checks(const Scenario& s, Bill& b) {
    if (s.workload != Workload::train || s.framework != Framework::megatron) return;
    const std::string sh = to_string(s.sharding);
    // Megatron-LM shards optimizer states with --use-distributed-optimizer (ZeRO-1); FSDP arrived as
    // --use-torch-fsdp2 and Megatron-FSDP (--use-megatron-fsdp, Megatron Core 0.11+); ZeRO-2/3 are DeepSpeed's.
    if (s.sharding == Sharding::fsdp_full || s.sharding == Sharding::fsdp_grad_op)
        b.warnings.push_back("sharding \"" + sh +
                             "\" with framework \"megatron\": Megatron-LM's own sharding is the distributed "
                             "optimizer (--use-distributed-optimizer, sharding zero1); FSDP needs --use-torch-fsdp2 or "
                             "--use-megatron-fsdp (Megatron Core 0.11 and later) and the bill follows PyTorch FSDP");
    else if (s.sharding == Sharding::zero2 || s.sharding == Sharding::zero3)
        b.warnings.push_back("sharding \"" + sh +
                             "\" with framework \"megatron\": ZeRO stages 2 and 3 are DeepSpeed's (Megatron-DeepSpeed); "
                             "Megatron-LM itself shards only the optimizer states (--use-distributed-optimizer, sharding zero1)");
}

}  // namespace

void parallel_warnings(const Scenario& s, Bill& b) {
    head_checks(s, b);
    pipeline_checks(s, b);
    sharding_checks(s, b);
    torchtitan_checks(s, b);
}

}  // namespace vramcalc::detail
