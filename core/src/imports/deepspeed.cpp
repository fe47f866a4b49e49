// DeepSpeed JSON (deepspeed/runtime/config.py, zero/config.py): ZeRO stage, offload, precision, batch.
// "auto" values are filled in by the HF Trainer from its own arguments, so they are reported, not read.
#include "source.hpp"

namespace vramcalc::imports {
namespace {

bool is_auto(Importer& im, const Entry& e) {
    if (lower(e.value) != "auto") return false;
    im.ignore(e, "auto: the HF Trainer fills it in from its own arguments");
    return true;
}
void stage(Importer& im, const Entry& e) {
    const auto v = im.integer(e);
    if (!v) return;
    static const char* kStages[] = {"none", "zero1", "zero2", "zero3"};
    if (*v < 0 || *v > 3) return im.ignore(e, "allowed: 0 to 3");
    im.set("sharding", kStages[*v], e);
}
void offload_optimizer(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "cpu" || v == "nvme") {
        if (!im.has("offload")) im.set("offload", "optimizer", e, v == "nvme" ? "NVMe: off the GPU like CPU offload" : "");
        else im.ignore(e, "the parameter offload already includes it");
    } else {
        im.ignore(e, "none: no offload");
    }
}
void offload_param(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "cpu" || v == "nvme") im.set("offload", "optimizer+params", e, "parameters offloaded (with the optimizer's states)");
    else im.ignore(e, "none: no offload");
}
void precision(Importer& im, const Entry& e, const char* value) {
    if (is_auto(im, e)) return;
    if (auto v = im.boolean(e); v && *v) im.set("precision", value, e, "DeepSpeed keeps fp32 master weights");
    else if (v) im.ignore(e, "false");
}
// DeepSpeedConfig._batch_assertion (deepspeed/runtime/config.py @029f12b) asserts both are above 0.
void micro_batch(Importer& im, const Entry& e) {
    if (is_auto(im, e)) return;
    if (auto v = im.integer(e); v && *v < 1) im.refuse(e, "DeepSpeed refuses it (\"Micro batch size per gpu: " + std::to_string(*v) + " has to be greater than 0\")");
    else if (v) im.set("micro_batch", *v, e);
}
void grad_accum(Importer& im, const Entry& e) {
    if (is_auto(im, e)) return;
    if (auto v = im.integer(e); v && *v < 1) im.refuse(e, "DeepSpeed refuses it (\"Gradient accumulation steps: " + std::to_string(*v) + " has to be greater than 0\")");
    else if (v) im.set("grad_accum", *v, e);
}
void bucket(Importer& im, const Entry& e) {
    if (is_auto(im, e)) return;
    if (im.integer(e)) im.ignore(e,
                                 "read, not modelled: the bill sizes DeepSpeed's buffers with its defaults "
                                 "(reduce_bucket_size 5e8, stage3_prefetch_bucket_size 5e7; docs/methodology.md)");
}

const Rule kDeepSpeed[] = {
    {"zero_optimization.stage", stage},
    {"zero_optimization.offload_optimizer.device", offload_optimizer},
    {"zero_optimization.offload_param.device", offload_param},
    {"zero_optimization.offload_optimizer.*", nullptr, "pinned host buffers: host memory"},
    {"zero_optimization.offload_param.*", nullptr, "pinned host buffers: host memory"},
    {"zero_optimization.reduce_bucket_size", bucket},
    {"zero_optimization.allgather_bucket_size", bucket},
    {"zero_optimization.stage3_prefetch_bucket_size", bucket},
    {"zero_optimization.stage3_max_live_parameters", bucket},
    {"zero_optimization.stage3_max_reuse_distance", bucket},
    {"zero_optimization.stage3_param_persistence_threshold", bucket},
    {"zero_optimization.sub_group_size", bucket},
    {"zero_optimization.overlap_comm", nullptr, kNotModelled},
    {"zero_optimization.contiguous_gradients", nullptr, kNotModelled},
    {"zero_optimization.allgather_partitions", nullptr, kNotModelled},
    {"zero_optimization.reduce_scatter", nullptr, kNotModelled},
    {"zero_optimization.round_robin_gradients", nullptr, kNotModelled},
    {"zero_optimization.stage3_gather_16bit_weights_on_model_save", nullptr, "saving: after training"},
    {"bf16.enabled", [](Importer& im, const Entry& e) { precision(im, e, "bf16-mixed"); }},
    {"bfloat16.enabled", [](Importer& im, const Entry& e) { precision(im, e, "bf16-mixed"); }},  // the older spelling
    {"fp16.enabled", [](Importer& im, const Entry& e) { precision(im, e, "fp16-mixed"); }},
    {"fp16.*", nullptr, "loss-scaler settings: no effect on memory"},
    {"bf16.*", nullptr, kNoMemory},
    {"bfloat16.*", nullptr, kNoMemory},
    {"train_micro_batch_size_per_gpu", micro_batch},
    {"gradient_accumulation_steps", grad_accum},
    {"train_batch_size", nullptr, "micro-batch x accumulation x GPUs: the first two set the bill"},
    {"gradient_clipping", nullptr, kNoMemory},
    {"zero_allow_untested_optimizer", nullptr, kNoMemory},
    {"steps_per_print", nullptr, kNoMemory},
    {"wall_clock_breakdown", nullptr, kNoMemory},
    {"optimizer.*", nullptr, "the HF Trainer's optimizer is read from its own arguments"},
    {"scheduler.*", nullptr, kNoMemory},
    {"activation_checkpointing.*", nullptr, kNotModelled},
};

// DeepSpeedConfig._initialize_params asserts 'bfloat16 and fp16 modes cannot be simultaneously enabled'
// (deepspeed/runtime/config.py @029f12b); "auto" is the HF Trainer's to fill in, from one of its flags.
void refuse_two_precisions(Importer& im, std::span<const Entry> entries) {
    const Entry* on[2] = {nullptr, nullptr};
    for (const Entry& e : entries) {
        const std::string v = lower(e.value);
        const bool enabled = e.repeated_at == 0 && (v == "true" || v == "1");
        if (enabled && (e.key == "bf16.enabled" || e.key == "bfloat16.enabled")) on[0] = &e;
        if (enabled && e.key == "fp16.enabled") on[1] = &e;
    }
    if (on[0] && on[1])
        im.refuse(*on[1], "DeepSpeed refuses bf16.enabled (line " + std::to_string(on[0]->line) +
                              ") with fp16.enabled (\"bfloat16 and fp16 modes cannot be simultaneously enabled\")");
}

}  // namespace

void import_deepspeed(Importer& im, std::span<const Entry> entries, const std::string& prefix) {
    if (prefix.empty()) im.set_default("framework", "deepspeed", "a DeepSpeed config");
    const auto sizes = im.report_sizes();
    refuse_two_precisions(im, entries);
    im.apply(entries, {std::span<const Rule>(kDeepSpeed)});
    if (!prefix.empty()) im.prefix_keys_since(sizes, prefix);  // report the keys as the file wrote them
}

}  // namespace vramcalc::imports
