// accelerate config YAML (`accelerate config` output; accelerate/commands/config/config_args.py): the
// process count, mixed precision, and the FSDP or DeepSpeed plugin settings.
#include "source.hpp"

namespace vramcalc::imports {
namespace {

void sharding_strategy(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "full_shard" || v == "1") im.set("sharding", "fsdp-full", e);
    else if (v == "shard_grad_op" || v == "2") im.set("sharding", "fsdp-grad-op", e);
    else if (v == "hybrid_shard" || v == "4") im.set("sharding", "fsdp-full", e, "hybrid: full sharding within a node");
    else if (v == "no_shard" || v == "3") im.set("sharding", "none", e);
    else im.ignore(e, "an FSDP strategy the bill does not model");
}
void reshard(Importer& im, const Entry& e) {  // FSDP2's fsdp_reshard_after_forward
    if (auto v = im.boolean(e)) im.set("sharding", *v ? "fsdp-full" : "fsdp-grad-op", e, "FSDP2: resharding after forward = full sharding");
}
void offload_params(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e); v && *v) im.set("offload", "optimizer+params", e, "FSDP's CPU offload moves parameters, gradients and optimizer states");
    else if (v) im.ignore(e, "false");
}
void mixed_precision(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "bf16") im.set("precision", "bf16-mixed", e);
    else if (v == "fp16") im.set("precision", "fp16-mixed", e);
    else if (v == "no") im.set("precision", "fp32", e);
    else im.ignore(e, "a precision the bill does not model (fp8)");
}
void zero_stage(Importer& im, const Entry& e) {
    const auto v = im.integer(e);
    static const char* kStages[] = {"none", "zero1", "zero2", "zero3"};
    if (v && *v >= 0 && *v <= 3) im.set("sharding", kStages[*v], e);
    else if (v) im.ignore(e, "allowed: 0 to 3");
}
void ds_offload(Importer& im, const Entry& e, const char* value) {
    const std::string v = lower(e.value);
    if (v == "cpu" || v == "nvme") im.set("offload", value, e);
    else im.ignore(e, "none: no offload");
}
void checkpointing(Importer& im, const Entry& e) {
    if (auto v = im.boolean(e)) im.set("checkpointing", *v ? "full" : "none", e);
}

const char* kLaunch = "how the job is launched: no effect on memory";

const Rule kAccelerate[] = {
    {"num_processes", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("num_gpus", *v, e, "one process per GPU"); }},
    {"mixed_precision", mixed_precision},
    {"distributed_type", nullptr, "the plugin's own keys say how the model is sharded"},
    {"fsdp_config.fsdp_sharding_strategy", sharding_strategy},
    {"fsdp_config.fsdp_reshard_after_forward", reshard},
    {"fsdp_config.fsdp_offload_params", offload_params},
    {"fsdp_config.fsdp_activation_checkpointing", checkpointing},
    {"fsdp_config.*", nullptr, kNotModelled},
    {"deepspeed_config.zero_stage", zero_stage},
    {"deepspeed_config.offload_optimizer_device", [](Importer& im, const Entry& e) { if (!im.has("offload")) ds_offload(im, e, "optimizer"); else im.ignore(e, "the parameter offload includes it"); }},
    {"deepspeed_config.offload_param_device", [](Importer& im, const Entry& e) { ds_offload(im, e, "optimizer+params"); }},
    {"deepspeed_config.gradient_accumulation_steps", [](Importer& im, const Entry& e) { if (auto v = im.integer(e)) im.set("grad_accum", *v, e); }},
    {"deepspeed_config.deepspeed_config_file", nullptr, "a path to a DeepSpeed JSON: import that file too"},
    {"deepspeed_config.*", nullptr, kNotModelled},
    {"downcast_bf16", nullptr, "TPU only"},
    {"compute_environment", nullptr, kLaunch},
    {"debug", nullptr, kLaunch},
    {"machine_rank", nullptr, kLaunch},
    {"main_training_function", nullptr, kLaunch},
    {"num_machines", nullptr, "num_processes counts every machine's GPUs"},
    {"rdzv_backend", nullptr, kLaunch},
    {"same_network", nullptr, kLaunch},
    {"tpu_env", nullptr, kLaunch},
    {"tpu_use_cluster", nullptr, kLaunch},
    {"tpu_use_sudo", nullptr, kLaunch},
    {"use_cpu", nullptr, kLaunch},
    {"gpu_ids", nullptr, kLaunch},
    {"main_process_ip", nullptr, kLaunch},
    {"main_process_port", nullptr, kLaunch},
    {"enable_cpu_affinity", nullptr, kLaunch},
    {"dynamo_config.*", nullptr, kNotModelled},
    {"parallelism_config.*", nullptr, kNotModelled},
};

}  // namespace

void import_accelerate(Importer& im, std::span<const Entry> entries) {
    im.set_default("framework", "hf", "accelerate runs the HF stack");
    im.apply(entries, {std::span<const Rule>(kAccelerate)});
}

}  // namespace vramcalc::imports
