// The serving importers' shared flags and values.
#include "serving.hpp"
#include "vramcalc/scenario_keys.hpp"

namespace vramcalc::imports {

namespace {
// The most data-parallel replicas counted, and the most GPUs: the scenario's num_gpus range (scenario/keys.cpp).
std::int64_t max_gpus() { return static_cast<std::int64_t>(find_scenario_key("num_gpus")->max); }
}  // namespace

std::optional<std::int64_t> token_count(Importer& im, const Entry& e) {
    Entry n = e;
    std::int64_t scale = 1;
    if (!n.value.empty()) {
        const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(n.value.back())));
        if (last == 'k') scale = 1000;  // vLLM's human-readable integers: 1k = 1000, 1K = 1024 (arg_utils.py)
        if (n.value.back() == 'K') scale = 1024;
        if (last == 'm') scale = n.value.back() == 'M' ? 1024 * 1024 : 1000 * 1000;
        if (scale > 1) n.value.pop_back();
    }
    const auto v = im.integer(n);
    if (!v) return std::nullopt;
    return *v * scale;
}

void read_kv_dtype(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "auto") im.set("kv_dtype", "auto", e);
    else if (v.rfind("fp8", 0) == 0) im.set("kv_dtype", "fp8", e);
    else if (v == "bfloat16" || v == "bf16") im.set("kv_dtype", "bf16", e);
    else if (v == "float16" || v == "half" || v == "fp16" || v == "f16") im.set("kv_dtype", "fp16", e);
    else if (v == "q8_0" || v == "q4_0") im.set("kv_dtype", v, e);
    else im.ignore(e, "a KV-cache type the bill does not model (allowed: auto, fp8, bf16, fp16, q8_0, q4_0)");
}

void read_quantization(Importer& im, const Entry& e) {
    const std::string v = lower(e.value);
    if (v == "awq" || v == "awq_marlin") im.set("weights", "awq-int4", e, "4-bit AWQ (an 8-bit checkpoint: set weights awq-int8)");
    else if (v == "gptq" || v == "gptq_marlin") im.set("weights", "gptq-int4", e, "4-bit GPTQ (an 8-bit checkpoint: set weights gptq-int8)");
    else if (v == "fp8") im.set("weights", "fp8", e);
    else if (v == "bitsandbytes") im.set("weights", "nf4", e, "bitsandbytes 4-bit (NF4)");
    else im.ignore(e, "a quantisation the bill does not model: set weights to the nearest format");
}

void read_dtype(Importer& im, const Entry& e) {
    if (im.has("weights")) return im.ignore(e, "the quantisation sets the weights' format");
    const std::string v = lower(e.value);
    if (v == "bfloat16" || v == "bf16") im.set("weights", "bf16", e);
    else if (v == "float16" || v == "half" || v == "fp16") im.set("weights", "fp16", e);
    else if (v == "float32" || v == "float" || v == "fp32") im.set("weights", "fp32", e);
    else if (v == "auto") im.ignore(e, "auto: the checkpoint's torch_dtype (bf16 for the presets)");
    else im.ignore(e, "a dtype the bill does not model");
}

void read_data_parallel(Importer& im, const Entry& e) {
    const auto v = im.integer(e);
    if (!v) return;
    if (*v < 1 || *v > max_gpus()) {
        im.ignore(e, "out of range for data-parallel replicas (allowed: 1 to " + std::to_string(max_gpus()) + "): not counted");
        return im.warn(e, std::to_string(*v) + " data-parallel replicas is out of range (allowed: 1 to " +
                              std::to_string(max_gpus()) + "): not counted in num_gpus");
    }
    im.ignore(e, "data-parallel replicas: each GPU holds one replica's bill; counted in num_gpus");
}

std::span<const Rule> server_common_rules() {
    static const Rule r[] = {
        {"--host", nullptr, kNoMemory},
        {"--port", nullptr, kNoMemory},
        {"--api-key", nullptr, kNoMemory},
        {"--uvicorn-log-level", nullptr, kNoMemory},
        {"--ssl-keyfile", nullptr, kNoMemory},
        {"--ssl-certfile", nullptr, kNoMemory},
        {"--log-level", nullptr, kNoMemory},
        {"--root-path", nullptr, kNoMemory},
    };
    return r;
}

std::int64_t imported_degree(Importer& im, const char* key) {
    const json& sc = im.current().scenario;
    return sc.contains(key) && sc[key].is_number_integer() ? sc[key].get<std::int64_t>() : 1;
}

void finish_gpu_count(Importer& im, std::span<const Entry> flags, std::initializer_list<std::string_view> dp_flags) {
    std::int64_t dp = 1;
    for (const auto& f : flags)
        for (auto name : dp_flags)
            if (f.key == name) {
                char* end = nullptr;
                const long long v = std::strtoll(f.value.c_str(), &end, 10);
                if (end && *end == '\0' && v > 0 && v <= max_gpus()) dp = v;
            }
    // tp and pp are in the scenario's range (at most 4096 each: Importer::set), dp at most max_gpus().
    const std::int64_t gpus = imported_degree(im, "tp") * imported_degree(im, "pp") * dp;
    if (gpus > max_gpus()) im.note("warning: tp x pp x data-parallel replicas = " + std::to_string(gpus) +
                                   " GPUs: more than the "
                                   "scenario takes (" +
                                   std::to_string(max_gpus()) + "); num_gpus not set");
    else if (gpus > 1) im.set_default("num_gpus", gpus, "tp x pp x data-parallel replicas");
}

}  // namespace vramcalc::imports
