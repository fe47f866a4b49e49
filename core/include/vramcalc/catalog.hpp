// Catalog: the model and GPU presets, parsed from JSON text handed in by the caller (the embedded
// presets, or files the CLI read). No file I/O here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/gpu.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

struct ModelPreset {
    std::string id, name, hub_id, family, source;
    std::string config_json;   // the config.json text (compact); a layer stack's JSON; empty in the page's presets (a spec)
    bool layer_stack = false;  // a model given by its layers (presets/layer_stacks)
    // The model as read. The page reads a layer-stack preset on first use (model/config_reader.hpp): until
    // then its spec has only the name, no stack, and `params` only the total it cites.
    ModelSpec spec;
    ParamBreakdown params;
};

class Catalog {
public:
    // `model_files`: one JSON text per model preset ({"id","name","hub_id","family","source","config"});
    // `gpus_json`: {"gpus": [...]}. Every problem is reported with the preset's id.
    static Result<Catalog> parse(const std::vector<std::string_view>& model_files, std::string_view gpus_json);

    const std::vector<ModelPreset>& models() const { return models_; }
    const std::vector<GpuSpec>& gpus() const { return gpus_; }
    const ModelPreset* find_model(std::string_view id) const;
    const GpuSpec* find_gpu(std::string_view id) const;

private:
    std::vector<ModelPreset> models_;
    std::vector<GpuSpec> gpus_;
};

}  // namespace vramcalc
