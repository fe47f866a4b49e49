// config.json's quantization_config -> CheckpointQuant: which weight format a pre-quantised checkpoint stores
// its linears in, and which of them its exclusion list keeps in 16 bits (ParamGroup::checkpoint_16bit).
// Read for the four producers whose checkpoints vLLM loads from the config alone:
//  - transformers' FP8 / DeepSeek's native fp8 (quant_method "fp8"): weight_block_size [128, 128] gives one
//    fp32 weight_scale_inv per block (vLLM Fp8LinearMethod, block quant), null a per-tensor scale;
//    modules_to_not_convert.
//  - MXFP4 (quant_method "mxfp4", gpt-oss): 4-bit e2m1 in `_blocks` and one e8m0 byte per 32 weights in
//    `_scales` (transformers integrations/mxfp4.py; vLLM model_executor/layers/quantization/mxfp4.py);
//    modules_to_not_convert.
//  - NVIDIA ModelOpt (quant_method "modelopt", or a bare quant_algo): "FP8" one fp32 weight_scale and
//    input_scale per tensor; "NVFP4" e2m1 weights, one e4m3 weight_scale per 16 inputs, fp32 weight_scale_2
//    and input_scale (vLLM quantization/modelopt.py ModelOptFp8Config / ModelOptNvFp4Config); exclude_modules
//    (or ignore).
//  - compressed-tensors (quant_method "compressed-tensors"): config_groups' weights {num_bits, type,
//    strategy, group_size, block_structure, symmetric} and targets, ignore (compressed-tensors
//    quantization/quant_scheme.py; vLLM quantization/compressed_tensors/compressed_tensors.py).
// GPTQ / AWQ (bits, group_size) and bitsandbytes (load_in_4bit / load_in_8bit) map onto their formats.
// Read at a commit in this work: vLLM compressed_tensors/schemes/compressed_tensors_w4a4_nvfp4.py @0094cb9b (NVFP4
// tensors), compressed-tensors pack_quantized.py (W4A16 tensors, weight_formats.cpp); the other files are named
// for where each key is read, their byte layouts checked against published checkpoint sizes
// (tests/unit-checkpoint-quant.cpp).
#include <algorithm>
#include <cctype>
#include <map>

#include "model/families.hpp"
#include "model/module_patterns.hpp"
#include "model/quant_config.hpp"

namespace vramcalc::detail {
namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
std::string str(const json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}
i64 integer(const json& o, const char* key, i64 fallback) {
    const auto it = o.find(key);
    return it != o.end() && it->is_number_integer() ? it->get<i64>() : fallback;
}
const json& member(const json& o, const char* key) {
    static const json null;
    const auto it = o.find(key);
    return it != o.end() ? *it : null;
}

// One config group of a checkpoint that stores its linears in more than one format (compressed-tensors config_groups,
// ModelOpt MIXED_PRECISION's config_groups or quantized_layers): the format and the modules it names.
struct Scheme {
    std::string format;
    ModuleList targets{json()};
    bool every_linear = false;  // targets "Linear"
    i64 group_size = 0;
    bool asymmetric = false;
};

struct Reading {
    std::string format, note;
    i64 group_size = 0;
    bool asymmetric = false;
    ModuleList keep{json()};      // the exclusion list
    ModuleList targets{json()};   // compressed-tensors targets other than "Linear" (empty: every linear)
    std::vector<Scheme> schemes;  // two formats or more: each linear takes its scheme's (read_quantization_config)
};

// ModelOpt's quant_algo (vLLM quantization/modelopt.py: QUANT_ALGOS "FP8", "FP8_PER_CHANNEL_PER_TOKEN",
// "FP8_PB_WO", "NVFP4"; W4A16_NVFP4 stores the same NVFP4 weights and leaves the activations 16-bit,
// ModelOptNvFp4W4A16LinearMethod). MIXED_PRECISION names a format per module (mixed_precision() below).
std::string modelopt_format(const std::string& algo) {
    if (algo == "FP8") return "fp8";
    if (algo == "FP8_PER_CHANNEL_PER_TOKEN") return "fp8-channel";
    if (algo == "FP8_PB_WO") return "fp8-block";
    if (algo == "NVFP4" || algo == "W4A16_NVFP4") return "nvfp4";
    return "";
}

// The formats a linear can be stored in beside the checkpoint's main one: those whose bytes need no group size
// (formats/recipes.cpp quantized_linear_bytes; ParamGroup::checkpoint_format).
bool secondary_format(const std::string& f) {
    return f == "fp8" || f == "fp8-channel" || f == "fp8-block" || f == "nvfp4" || f == "mxfp4";
}

// compressed-tensors: one config group's weights scheme -> a format (quant_scheme.py QuantizationArgs:
// num_bits, type int|float, strategy tensor|channel|group|block|tensor_group, group_size, block_structure).
// ModelOpt's config_groups (MIXED_PRECISION) give no strategy: its FP8 is per tensor (ModelOptFp8Config).
bool compressed_tensors(const json& q, Reading& r, std::string& why, bool modelopt = false) {
    const json& groups = member(q, "config_groups");
    if (!groups.is_object() || groups.empty()) {
        why = "compressed-tensors without config_groups";
        return false;
    }
    std::string first;
    for (const auto& [name, grp] : groups.items()) {
        if (!grp.is_object()) continue;
        const json& w = member(grp, "weights");
        if (!w.is_object()) continue;
        const i64 bits = integer(w, "num_bits", 0);
        const std::string type = str(w, "type");
        const std::string strategy = modelopt && str(w, "strategy").empty() ? "tensor" : str(w, "strategy");
        std::string f;
        if (type == "float" && bits == 8) {
            if (strategy == "tensor") f = "fp8";
            else if (strategy == "channel") f = "fp8-channel";
            else if (strategy == "block") {
                const json& b = member(w, "block_structure");
                if (b.is_array() && b.size() == 2 && b[0] == 128 && b[1] == 128) f = "fp8-block";
            }
        } else if (type == "float" && bits == 4) {
            const i64 g = integer(w, "group_size", 0);
            if (g == 16) f = "nvfp4";
            else if (g == 32) f = "mxfp4";
        } else if (type == "int" && bits == 4 && (strategy == "group" || strategy == "channel")) {
            f = "w4a16";
            r.group_size = strategy == "group" ? integer(w, "group_size", 128) : -1;
            const auto sym = w.find("symmetric");
            r.asymmetric = sym != w.end() && sym->is_boolean() && !sym->get<bool>();
        }
        if (f.empty()) {
            why = "compressed-tensors group \"" + name + "\" (" + type + " " + std::to_string(bits) + "-bit, strategy " + strategy +
                  ") has no byte rule yet";
            return false;
        }
        Scheme sc;
        sc.format = f;
        sc.group_size = r.group_size;
        sc.asymmetric = r.asymmetric;
        if (first.empty()) first = f;
        const json& t = member(grp, "targets");
        sc.every_linear = !t.is_array();
        if (t.is_array())
            for (const auto& e : t) {
                if (e.is_string() && e.get<std::string>() != "Linear") r.targets = ModuleList(t);
                sc.every_linear = sc.every_linear || (e.is_string() && e.get<std::string>() == "Linear");
            }
        sc.targets = ModuleList(sc.every_linear ? json() : t);
        r.schemes.push_back(std::move(sc));
    }
    if (first.empty()) {
        why = "compressed-tensors config_groups without weights";
        return false;
    }
    r.format = first;
    const bool mixed = std::any_of(r.schemes.begin(), r.schemes.end(), [&](const Scheme& sc) { return sc.format != first; });
    if (!mixed) r.schemes.clear();  // one format: the targets and the exclusion list say it all
    return true;
}

// ModelOpt MIXED_PRECISION (vLLM quantization/modelopt.py ModelOptMixedPrecisionConfig): a format per module, as
// config.json's config_groups (weights and targets, like compressed-tensors) or hf_quant_config.json's
// quantized_layers ({module: {quant_algo}}), whose modules are grouped here by format.
bool mixed_precision(const json& q, Reading& r, std::string& why) {
    if (member(q, "config_groups").is_object()) return compressed_tensors(q, r, why, true);
    const json& layers = member(q, "quantized_layers");
    if (!layers.is_object() || layers.empty()) {
        why = "ModelOpt MIXED_PRECISION without config_groups or quantized_layers";
        return false;
    }
    std::vector<std::pair<std::string, json>> by_format;
    for (const auto& [module, v] : layers.items()) {
        const std::string algo = v.is_object() ? str(v, "quant_algo") : "";
        const std::string f = modelopt_format(algo);
        if (f.empty()) {
            why = "ModelOpt MIXED_PRECISION module \"" + module + "\" with quant_algo \"" + algo + "\"";
            return false;
        }
        auto it = std::find_if(by_format.begin(), by_format.end(), [&](const auto& e) { return e.first == f; });
        if (it == by_format.end()) it = by_format.insert(by_format.end(), {f, json::array()});
        it->second.push_back(module);
    }
    for (const auto& [f, modules] : by_format) {
        Scheme sc;
        sc.format = f;
        sc.targets = ModuleList(modules);
        r.schemes.push_back(std::move(sc));
    }
    r.format = by_format.front().first;
    json all = json::array();  // a module quantized_layers does not list stays 16-bit
    for (const auto& [module, v] : layers.items()) all.push_back(module);
    r.targets = ModuleList(all);
    if (by_format.size() == 1) r.schemes.clear();
    return true;
}

bool read_reading(const json& q, Reading& r, std::string& why) {
    std::string method = lower(str(q, "quant_method"));
    if (method.empty() && q.contains("quant_algo")) method = "modelopt";  // ModelOpt's hf_quant_config shape
    if (method == "fp8") {
        // transformers FineGrainedFP8Config / DeepSeek's native fp8: weight_block_size [128, 128] or per-tensor.
        const json& b = member(q, "weight_block_size");
        if (b.is_array() && b.size() == 2 && b[0] == 128 && b[1] == 128) r.format = "fp8-block";
        else if (b.is_null()) r.format = "fp8";
        else {
            why = "fp8 weight_block_size " + b.dump() + " (only [128, 128] has a byte rule)";
            return false;
        }
        r.keep = ModuleList(member(q, "modules_to_not_convert"));
    } else if (method == "mxfp4") {
        r.format = "mxfp4";
        r.keep = ModuleList(member(q, "modules_to_not_convert"));
    } else if (method == "modelopt" || method == "modelopt_fp4") {
        const std::string algo = str(q, "quant_algo");
        r.format = modelopt_format(algo);
        if (algo == "MIXED_PRECISION") {
            if (!mixed_precision(q, r, why)) return false;
        } else if (r.format.empty()) {
            why = "ModelOpt quant_algo \"" + algo + "\"";
            return false;
        }
        r.keep = ModuleList(q.contains("exclude_modules") ? member(q, "exclude_modules") : member(q, "ignore"));
    } else if (method == "compressed-tensors") {
        if (!compressed_tensors(q, r, why)) return false;
        r.keep = ModuleList(member(q, "ignore"));
    } else if (method == "gptq" || method == "awq") {
        const i64 bits = integer(q, "bits", integer(q, "w_bit", 4));
        if (bits != 4 && bits != 8) {
            why = method + " with " + std::to_string(bits) + " bits";
            return false;
        }
        r.format = method + "-int" + std::to_string(bits);
        r.group_size = integer(q, "group_size", integer(q, "q_group_size", 128));
        r.keep = ModuleList(member(q, "modules_to_not_convert"));
    } else if (method == "bitsandbytes") {
        const auto flag = [&](const char* k) { return q.contains(k) && q[k].is_boolean() && q[k].get<bool>(); };
        if (flag("load_in_4bit")) r.format = flag("bnb_4bit_use_double_quant") ? "nf4-dq" : "nf4";
        else if (flag("load_in_8bit")) r.format = "int8";
        else {
            why = "bitsandbytes without load_in_4bit / load_in_8bit";
            return false;
        }
        r.keep = ModuleList(member(q, "llm_int8_skip_modules"));
    } else {
        why = "quant_method \"" + method + "\"";
        return false;
    }
    return true;
}

// Two formats or more (Reading::schemes): each linear group takes the scheme that names most of its tensors (what none
// names stays 16-bit); the checkpoint's format is the one holding the most parameters, the others are stored per group
// (ParamGroup::checkpoint_format) and must be formats without a group size.
bool assign_schemes(ModelSpec& m, Reading& r, std::string& why) {
    std::map<std::string, double> params;
    std::vector<const Scheme*> chosen(m.params.size(), nullptr);
    for (std::size_t i = 0; i < m.params.size(); ++i) {
        ParamGroup& g = m.params[i];
        if (!g.is_linear) continue;
        i64 best = 0, covered = 0;
        for (const Scheme& sc : r.schemes) {
            const i64 k = sc.every_linear ? g.count : sc.targets.count(g, m.moe.experts);
            covered += k;
            if (k > best) best = k, chosen[i] = &sc;
        }
        g.checkpoint_16bit = std::max<i64>(0, g.count - std::min(covered, g.count));
        if (chosen[i]) params[chosen[i]->format] += static_cast<double>(g.numel_each()) * static_cast<double>(g.count - g.checkpoint_16bit);
    }
    if (params.empty()) {
        why = "a mixed-format config whose groups name no linear";
        return false;
    }
    const auto main = std::max_element(params.begin(), params.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    r.format = main->first;
    for (const Scheme& sc : r.schemes)
        if (sc.format == r.format) r.group_size = sc.group_size, r.asymmetric = sc.asymmetric;
    for (const auto& [f, n] : params)
        if (f != r.format && !secondary_format(f)) {
            why = "a mixed-format config storing " + f + " beside " + r.format;
            return false;
        }
    for (std::size_t i = 0; i < m.params.size(); ++i)
        if (chosen[i] && chosen[i]->format != r.format) m.params[i].checkpoint_format = chosen[i]->format;
    r.targets = ModuleList(json());  // the schemes said what is quantised
    return true;
}

}  // namespace

void read_quantization_config(ModelSpec& m, const json& config, std::vector<std::string>& warnings) {
    const json* q = nullptr;
    for (const json* o : {&config, &member(config, "text_config")}) {
        const json& v = member(*o, "quantization_config");
        if (v.is_object() && !v.empty()) {
            q = &v;
            break;
        }
    }
    if (!q) return;
    Reading r;
    std::string why;
    if (!read_reading(*q, r, why)) {
        warnings.push_back("quantization_config: " + why +
                           " is not read; the weights follow the scenario's `weights` (16-bit by "
                           "default), so a pre-quantised checkpoint's size may be off: set weights, or checkpoint_bytes from its headers");
        return;
    }
    if (!r.schemes.empty() && !assign_schemes(m, r, why)) {
        warnings.push_back("quantization_config: " + why +
                           " is not read; the weights follow the scenario's `weights` (16-bit by "
                           "default), so a pre-quantised checkpoint's size may be off: set weights, or checkpoint_bytes from its headers");
        return;
    }
    m.quant.format = r.format;
    m.quant.method = lower(str(*q, "quant_method"));
    if (m.quant.method.empty()) m.quant.method = "modelopt";
    m.quant.group_size = r.group_size;
    m.quant.asymmetric = r.asymmetric;
    i64 kept = 0;
    for (const bool marked : {true, false})
        for (auto& g : m.params) {
            if (!g.is_linear || g.fp8_keeps_16bit != marked) continue;
            const i64 unnamed = r.schemes.empty() ? 0 : g.checkpoint_16bit;  // no scheme names them (assign_schemes)
            g.checkpoint_16bit = std::max(r.keep.take(g, m.moe.experts), unnamed);
            if (!r.targets.empty()) g.checkpoint_16bit = std::max(g.checkpoint_16bit, g.count - r.targets.count(g, m.moe.experts));
            if (g.category != ParamCategory::lm_head && g.category != ParamCategory::router && g.category != ParamCategory::vision)
                kept += g.checkpoint_16bit;
        }
    std::string mix;  // a checkpoint of several formats (its config groups, or a family's own: DeepSeek-V4's FP4 experts)
    if (std::any_of(m.params.begin(), m.params.end(), [](const ParamGroup& g) { return !g.checkpoint_format.empty(); })) {
        std::map<std::string, i64> n;
        for (const auto& g : m.params)
            if (g.is_linear && g.category != ParamCategory::lm_head) n[g.checkpoint_format.empty() ? r.format : g.checkpoint_format] += g.count - g.checkpoint_16bit;
        for (const auto& [f, k] : n) mix += (mix.empty() ? ", " : " + ") + std::to_string(k) + " linears " + f;
    }
    m.quant.note = m.quant.method + " quantization_config" + mix + (kept > 0 ? ", " + std::to_string(kept) + " linears kept 16-bit by its list" : "");
}

}  // namespace vramcalc::detail
