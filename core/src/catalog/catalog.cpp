#include "vramcalc/catalog.hpp"

#include <optional>
#include <set>

#include "catalog/catalog_gpu.hpp"
#include "io/json_reader.hpp"
#include "model/config_reader.hpp"
#include "vramcalc/model_spec_json.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc {

using detail::FieldReader;
using detail::json;

const ModelPreset* Catalog::find_model(std::string_view id) const {
    for (const auto& m : models_)
        if (m.id == id) return &m;
    return nullptr;
}

const GpuSpec* Catalog::find_gpu(std::string_view id) const {
    for (const auto& g : gpus_)
        if (g.id == id) return &g;
    return nullptr;
}

namespace {

// A card in two ECC states is two entries naming each other, one with ECC on and one with it off.
void check_ecc_pairs(const std::vector<GpuSpec>& gpus, Problems& errors) {
    auto find = [&](const std::string& id) -> const GpuSpec* {
        for (const auto& g : gpus)
            if (g.id == id) return &g;
        return nullptr;
    };
    for (const auto& g : gpus) {
        if (g.ecc_other_id.empty()) continue;
        const std::string where = "presets.gpus." + g.id + ".ecc_other_id";
        const GpuSpec* other = find(g.ecc_other_id);
        if (!other) errors.push_back({where, "no GPU preset \"" + g.ecc_other_id + "\""});
        else if (other->ecc_other_id != g.id || other->ecc_on == g.ecc_on)
            errors.push_back({where, "\"" + g.ecc_other_id + "\" must name \"" + g.id + "\" back and be in the other ECC state"});
    }
}

// A layer-stack preset (presets/layer_stacks): {"id", "name", "family", "source", "num_params", "gflops"}
// and the stack's own keys ("input", "inputs", "loss", "layers"). Its parameter count must equal the published num_params it cites.
// The page reads it on first use instead (its model reader module: model/config_reader.hpp), so that it
// starts without the layer-stack reader; the native builds check the count it then shows.
std::optional<ModelPreset> stack_preset(const json& j, ModelPreset p, Problems& errors) {
    // The stack as a scenario's inline model: the stack's own keys (layer_stack_from_json reads these), not
    // the preset's metadata, whatever metadata a preset file grows.
    json stack = json::object();
    for (const char* key : {"input", "inputs", "loss", "layers"})
        if (j.contains(key)) stack[key] = j.at(key);
    p.config_json = stack.dump();
    p.layer_stack = true;
    const i64 published = j.value("num_params", i64{0});
    if (!detail::reads_models_itself()) {
        p.spec.name = p.name;
        p.params.total = p.params.active = published;
        return p;
    }
    auto spec = detail::read_layer_stack_model(j, p.name, "presets." + p.id);
    if (!spec.ok()) {
        for (auto& e : spec.errors) errors.push_back(e);
        return std::nullopt;
    }
    if (published != spec.value->stack->parameters) {
        errors.push_back({"presets." + p.id + ".num_params", "the layers count " + std::to_string(spec.value->stack->parameters) +
                                                                 " parameters, the preset cites " + std::to_string(published)});
        return std::nullopt;
    }
    p.spec = std::move(*spec.value);
    p.params = count_parameters(p.spec);
    return p;
}

}  // namespace

// The compute peaks and links of a GPU (catalog entry or a scenario's custom `gpu` object): dense TFLOPS
// per precision, memory bandwidth, the GPU-to-GPU fabric and the host's PCIe link (vramcalc/gpu.hpp).
void read_compute_and_links(FieldReader& r, GpuSpec& s) {
    s.peak_fp32_tflops = r.number_or("peak_fp32_tflops", 0, 0, 1e6);
    s.peak_tf32_tflops = r.number_or("peak_tf32_tflops", 0, 0, 1e6);
    s.peak_bf16_tflops = r.number_or("peak_bf16_tflops", 0, 0, 1e6);
    s.peak_fp16_tflops = r.number_or("peak_fp16_tflops", 0, 0, 1e6);
    s.peak_fp8_tflops = r.number_or("peak_fp8_tflops", 0, 0, 1e6);
    s.peak_fp4_tflops = r.number_or("peak_fp4_tflops", 0, 0, 1e6);
    s.memory_bandwidth_gbps = r.number_or("memory_bandwidth_gbps", 0, 0, 1e7);
    s.gpu_link_gbps = r.number_or("gpu_link_gbps", 0, 0, 1e5);
    s.pcie_gen = static_cast<int>(r.integer_or({"pcie_gen"}, 0, 3, 6));
    s.pcie_lanes = static_cast<int>(r.integer_or({"pcie_lanes"}, 16, 1, 16));
    s.sm_count = static_cast<int>(r.integer_or({"sm_count"}, 0, 1, 1024));
    s.max_threads_per_sm = static_cast<int>(r.integer_or({"max_threads_per_sm"}, 0, 32, 4096));
}

void write_compute_and_links(const GpuSpec& g, json& out) {
    auto put = [&out](const char* k, double v) {
        if (v > 0) out[k] = v;
    };
    put("peak_fp32_tflops", g.peak_fp32_tflops);
    put("peak_tf32_tflops", g.peak_tf32_tflops);
    put("peak_bf16_tflops", g.peak_bf16_tflops);
    put("peak_fp16_tflops", g.peak_fp16_tflops);
    put("peak_fp8_tflops", g.peak_fp8_tflops);
    put("peak_fp4_tflops", g.peak_fp4_tflops);
    put("memory_bandwidth_gbps", g.memory_bandwidth_gbps);
    put("gpu_link_gbps", g.gpu_link_gbps);
    if (g.pcie_gen > 0) out["pcie_gen"] = g.pcie_gen;
    if (g.pcie_lanes != 16) out["pcie_lanes"] = g.pcie_lanes;
    if (g.sm_count > 0) out["sm_count"] = g.sm_count;
    if (g.max_threads_per_sm > 0) out["max_threads_per_sm"] = g.max_threads_per_sm;
}

Result<Catalog> Catalog::parse(const std::vector<std::string_view>& model_files, std::string_view gpus_json) {
    Result<Catalog> out;
    Catalog cat;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < model_files.size(); ++i) {
        json j = parse_json_or_discarded(model_files[i]);
        const std::string where = "presets.models[" + std::to_string(i) + "]";
        if (j.is_discarded() || !j.is_object()) {
            out.errors.push_back({where, "not a JSON object"});
            continue;
        }
        FieldReader r(j, where, out.errors);
        ModelPreset p;
        p.id = r.string_or("id", "");
        p.name = r.string_or("name", p.id);
        p.hub_id = r.string_or("hub_id", "");
        p.family = r.string_or("family", "Other");
        p.source = r.string_or("source", "");
        const bool stack = is_layer_stack_json(j);
        // The page's presets carry the spec the native CLI read from their config.json at build time
        // ("spec": model_spec_json.hpp, cmake/embed_presets_page.py) instead of the config itself.
        const bool read_already = !stack && j.contains("spec");
        if (p.id.empty() || (!stack && !read_already && !j.contains("config"))) {
            out.errors.push_back({where, "a model preset needs \"id\" and \"config\" (or \"input\" and \"layers\")"});
            continue;
        }
        if (!ids.insert(p.id).second) out.errors.push_back({where, "duplicate preset id \"" + p.id + "\""});
        if (stack) {
            if (auto sp = stack_preset(j, p, out.errors)) cat.models_.push_back(std::move(*sp));
            continue;
        }
        auto spec = read_already ? model_spec_from_json(j["spec"]) : detail::read_model_config(j["config"], p.name, "presets." + p.id + ".config");
        if (!spec.ok()) {
            for (auto& e : spec.errors) out.errors.push_back(e);
            continue;
        }
        if (!read_already) p.config_json = j["config"].dump();
        p.spec = std::move(*spec.value);
        p.params = count_parameters(p.spec);
        cat.models_.push_back(std::move(p));
    }

    json g = parse_json_or_discarded(gpus_json);
    if (g.is_discarded() || !g.is_object() || !g.contains("gpus") || !g["gpus"].is_array()) {
        out.errors.push_back({"presets.gpus", "expected {\"gpus\": [...]}"});
    } else {
        std::set<std::string> gpu_ids;
        for (std::size_t i = 0; i < g["gpus"].size(); ++i) {
            const json& e = g["gpus"][i];
            FieldReader r(e, "presets.gpus[" + std::to_string(i) + "]", out.errors);
            GpuSpec s;
            s.id = r.string_or("id", "");
            s.name = r.string_or("name", s.id);
            s.vendor = r.string_or("vendor", "");
            s.arch = r.string_or("arch", "");
            s.memory_bytes = r.integer({"memory_bytes"}, 1, std::int64_t{1} << 50).value_or(0);
            s.memory_basis = r.string_or("memory_basis", "nvidia-smi");
            if (s.memory_basis != "nvidia-smi" && s.memory_basis != "rocm-smi" && s.memory_basis != "datasheet")
                r.error("memory_basis", "got \"" + s.memory_basis + "\", expected \"nvidia-smi\", \"rocm-smi\" or \"datasheet\"");
            s.memory_torch_bytes = r.integer_or({"memory_torch_bytes"}, 0, 0, std::int64_t{1} << 50);
            if (s.memory_torch_bytes > s.memory_bytes)
                r.error("memory_torch_bytes", "larger than memory_bytes: the allocator never sees more than the driver reports");
            s.bf16 = r.boolean_or("bf16", true);
            read_compute_and_links(r, s);
            s.ecc_reserves = r.boolean_or("ecc_reserves", false);
            s.ecc_on = r.boolean_or("ecc_on", false);
            s.ecc_other_id = r.string_or("ecc_other_id", "");
            if (!s.ecc_other_id.empty() && !s.ecc_reserves)
                r.error("ecc_other_id", "only a card whose ECC reserves memory (\"ecc_reserves\": true) has a second ECC entry");
            s.source = r.string_or("source", "");
            if (s.id.empty()) r.error("id", "missing required key");
            if (!gpu_ids.insert(s.id).second) r.error("id", "duplicate GPU id \"" + s.id + "\"");
            cat.gpus_.push_back(std::move(s));
        }
        check_ecc_pairs(cat.gpus_, out.errors);
    }
    if (out.errors.empty()) out.value = std::move(cat);
    return out;
}

}  // namespace vramcalc
