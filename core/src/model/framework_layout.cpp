#include "model/framework_layout.hpp"

#include <utility>

namespace vramcalc::detail {

// LitGPT builds its own module layout from a checkpoint (litgpt/model.py; scripts/convert_hf_checkpoint.py):
//  - lm_head is always its own nn.Linear, filled from the tied embedding when the checkpoint has no
//    lm_head.weight, so a tied model holds two copies;
//  - q, k and v are one fused `attn` linear whose LoRA (LoRAQKVLinear) adapts each slice on its own
//    (lora_query / lora_key / lora_value), so a fused HF projection is listed as its q, k, v slices;
//  - the gated MLP is fc_1 / fc_2 / proj (LLaMAMLP): Phi-3's fused gate_up_proj is split into fc_1 and fc_2.
// LitGPT's targets are roles, so the slices carry the Llama-style names the scenario's targets use.
ModelSpec litgpt_layout(const ModelSpec& src) {
    ModelSpec m = src;
    std::vector<ParamGroup> out;
    for (const auto& g : src.params) {
        auto part = [&](const char* name, Role role, i64 rows) {
            ParamGroup p = g;
            p.name = name;
            p.role = role;
            p.rows = rows;
            out.push_back(p);
        };
        if (g.role == Role::qkv && g.rows == (m.heads + 2 * m.kv_heads) * m.head_dim) {
            part("q_proj", Role::q, m.heads * m.head_dim);
            part("k_proj", Role::k, m.kv_heads * m.head_dim);
            part("v_proj", Role::v, m.kv_heads * m.head_dim);
        } else if (g.role == Role::gate_up) {
            part("gate_proj", Role::gate, g.rows / 2);
            part("up_proj", Role::up, g.rows - g.rows / 2);
        } else {
            out.push_back(g);
        }
    }
    m.params = std::move(out);
    if (m.tied_embeddings && m.arch == Arch::decoder) {
        m.tied_embeddings = false;
        ParamGroup g;
        g.name = "lm_head";
        g.category = ParamCategory::lm_head;
        g.role = Role::lm_head;
        g.rows = m.vocab;
        g.cols = m.hidden;
        g.is_linear = true;
        m.params.push_back(g);
    }
    return m;
}

}  // namespace vramcalc::detail
