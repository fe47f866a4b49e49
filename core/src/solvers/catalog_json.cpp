#include "vramcalc/catalog_json.hpp"

#include "catalog/catalog_gpu.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc {

using nlohmann::json;

json presets_to_json(const Catalog& c) {
    json models = json::array(), gpus = json::array();
    for (const auto& m : c.models()) {
        json row = {{"id", m.id}, {"name", m.name}, {"hub_id", m.hub_id}, {"family", m.family}, {"parameters", m.params.total}, {"active_parameters", m.params.active}};
        if (m.layer_stack) row["layer_stack"] = true;  // docs/scenario-extensions.md: a model given by its layers
        models.push_back(std::move(row));
    }
    for (const auto& g : c.gpus()) {
        json row = {{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"arch", g.arch}, {"memory_bytes", g.memory_bytes}, {"memory_basis", g.memory_basis}, {"bf16", g.bf16}, {"peak_bf16_tflops", g.peak_bf16_tflops}, {"memory_bandwidth_gbps", g.memory_bandwidth_gbps}};
        if (g.memory_torch_bytes > 0) row["memory_torch_bytes"] = g.memory_torch_bytes;
        write_compute_and_links(g, row);  // the other peaks and the links, where the catalog gives them
        if (!g.ecc_other_id.empty()) row["ecc_other_id"] = g.ecc_other_id;
        gpus.push_back(std::move(row));
    }
    return {{"models", models}, {"gpus", gpus}};
}

json model_to_json(const ModelSpec& m, const std::vector<std::string>& warnings) {
    const ParamBreakdown p = count_parameters(m);
    json out = {{"name", m.name},
                {"model_type", m.model_type},
                {"parameters", p.total},
                {"active_parameters", p.active},
                {"breakdown",
                 {{"embeddings", p.embeddings}, {"attention", p.attention}, {"mlp", p.mlp}, {"experts", p.experts}, {"router", p.router}, {"norms", p.norms}, {"lm_head", p.lm_head}, {"vision", p.vision}, {"mamba", p.mamba}}},
                {"layers", m.layers},
                {"hidden", m.hidden},
                {"heads", m.heads},
                {"kv_heads", m.kv_heads},
                {"head_dim", m.head_dim},
                {"vocab", m.vocab},
                {"tied_embeddings", m.tied_embeddings},
                {"warnings", warnings}};
    if (m.stack) {  // the stack's own figures (model/layer_stack.cpp), per sample
        const LayerStack& st = *m.stack;
        out["layer_stack"] = {{"input", st.input},
                              {"output", st.output_shape()},
                              {"layers", st.layers.size()},
                              {"trainable_parameters", st.trainable_parameters},
                              {"buffers", st.buffers},
                              {"saved_bytes_per_sample_bf16", st.saved_bytes_per_sample(2)},
                              {"saved_bytes_per_batch", st.saved_bytes_per_batch()},
                              {"forward_peak_elements", st.forward_peak_elements},
                              {"flops_per_sample", st.flops_per_sample()}};
    }
    return out;
}

json catalog_fits_to_json(const std::vector<CatalogFit>& fits) {
    json rows = json::array();
    for (const auto& f : fits)
        rows.push_back({{"gpu", f.gpu.id},
                        {"name", f.gpu.name},
                        {"memory_bytes", f.gpu.memory_bytes},
                        {"fits", f.fits},
                        {"verdict", verdict_name(f.verdict)},
                        {"device_bytes", f.device_bytes},
                        {"max_batch", f.max_batch},
                        {"max_seq_len", f.max_seq_len},
                        {"max_concurrent_sequences", f.max_concurrent_sequences},
                        {"max_context", f.max_context},
                        {"tokens_per_s", f.tokens_per_s},
                        {"time_for_dataset_s", f.time_for_dataset_s}});
    return rows;
}

}  // namespace vramcalc
