// Settings that are each legal but cannot run together: parallel layouts against the GPU count and the model,
// layer stacks and hybrid models against the workloads they are modelled for (scenario_from_json reads every key
// first, then calls this).
#include "rows.hpp"
#include "enums.hpp"
#include "io/json_reader.hpp"

namespace vramcalc::detail {
namespace {

std::string num(std::int64_t v) { return std::to_string(v); }

// Which ranks expert parallelism reuses is each engine's own rule (docs/architectures.md, "Expert parallelism").
// Megatron (arguments.py, expert_model_parallel_size): the experts split the data-parallel ranks, so ep divides
// num_gpus / (tp x pp x cp). vLLM: `--enable-expert-parallel` is a switch, not a degree; the MoE layers are then
// sharded over "the product of the tensor, prefill-context, and data parallel sizes" (vllm/config/parallel.py
// @00193b82, ParallelConfig.data_parallel_size; FusedMoE sets ep_size = tp_size x dp_size), so the only ep it
// can run is 1 or tp x dp: tp 8 with expert parallelism on 8 GPUs is ep 8.
void check_expert_groups(const Scenario& s, FieldReader& r) {
    if (s.ep <= 1) return;
    const std::int64_t model_parallel = s.tp * s.pp * s.cp, dp = s.num_gpus / model_parallel;
    if (s.framework == Framework::vllm && s.workload == Workload::infer) {
        if (s.ep != s.tp * dp)
            r.error("ep", num(s.ep) + " with tp " + num(s.tp) + " and " + num(dp) +
                              " data-parallel replica(s): vLLM's "
                              "--enable-expert-parallel spreads the experts over the tp x dp ranks (vllm/config/parallel.py), so "
                              "allowed ep is 1 (off) or tp x dp = " +
                              num(s.tp * dp));
        return;
    }
    if (dp % s.ep != 0)
        r.error("ep", num(s.ep) + " must divide num_gpus / (tp x pp x cp) = " + num(s.num_gpus) + " / " +
                          num(model_parallel) + " = " + num(dp) +
                          " (Megatron splits the experts across data-parallel "
                          "ranks): raise num_gpus to a multiple of " +
                          num(model_parallel * s.ep) + " or lower ep");
}

// Parallel degrees against each other and against the model: a layout no framework can run is an error
// (Megatron-LM's arguments.py and vLLM's config checks refuse the same), not a smaller bill.
void check_layout(const Scenario& s, FieldReader& r) {
    const std::int64_t model_parallel = s.tp * s.pp * s.cp;
    if (s.num_gpus % model_parallel != 0) {
        r.error("num_gpus", num(s.num_gpus) + " is not a multiple of tp x pp x cp = " + num(model_parallel));
        return;
    }
    const ModelSpec& m = s.model;
    check_expert_groups(s, r);
    if (m.count_only) return;
    if (m.stack) {  // a layer stack trains data parallel: Megatron's splits need transformer layers
        for (auto [key, v] : {std::pair<const char*, std::int64_t>{"tp", s.tp}, {"pp", s.pp}, {"cp", s.cp}, {"ep", s.ep}})
            if (v > 1)
                r.error(key, num(v) +
                                 " on a layer-stack model: tp, pp, cp and ep split transformer layers; a layer stack "
                                 "runs data parallel (num_gpus with sharding), allowed " +
                                 std::string(key) + " 1");
        return;
    }
    if (s.ep > 1 && m.moe.experts == 0)
        r.error("ep", num(s.ep) + " needs a mixture-of-experts model; model \"" + utf8_prefix(m.name, 60) + "\" has no experts (allowed: ep 1)");
    else if (s.ep > m.moe.experts && m.moe.experts > 0)
        r.error("ep", num(s.ep) + " is more than the model's " + num(m.moe.experts) + " experts: allowed ep 1 to " +
                          num(m.moe.experts));
    if (s.pp > 1 && m.layers > 0 && s.pp > m.layers)
        r.error("pp", num(s.pp) + " is more than the model's " + num(m.layers) +
                          " layers (model.num_hidden_layers): "
                          "each pipeline stage needs at least one layer; allowed pp 1 to " +
                          num(m.layers));
    if (s.tp > 1 && m.heads > 0 && s.tp > m.heads)
        r.error("tp", num(s.tp) + " is more than the model's " + num(m.heads) +
                          " attention heads (model.num_attention_heads): "
                          "tensor parallelism splits the heads; allowed tp 1 to " +
                          num(m.heads));
}

// What a layer-stack model cannot be run with: the settings below are defined on transformer layers.
void check_stack(const Scenario& s, FieldReader& r) {
    if (!s.model.stack) return;
    if (s.workload == Workload::train && s.method == Method::freeze)
        r.error("method",
                "\"freeze\" trains the last N transformer layers; a layer stack freezes with \"trainable\": false "
                "on its layers or blocks (allowed: full, lora, qlora)");
    if (s.framework == Framework::vllm || s.framework == Framework::llamacpp)
        r.error("framework", std::string("\"") + to_string(s.framework) +
                                 "\" serves transformer language models; a layer "
                                 "stack runs in plain PyTorch (allowed: hf, torchtune, litgpt, deepspeed, megatron)");
}

// A hybrid Mamba / attention model (Nemotron-H) is modelled for serving with vLLM and transformers: the
// training bill's saved tensors and llama.cpp's recurrent-state buffers of its Mamba-2 blocks are not.
void check_hybrid(const Scenario& s, FieldReader& r) {
    if (s.model.hybrid.pattern.empty()) return;
    if (s.workload != Workload::infer)
        r.error("workload", std::string("\"") + to_string(s.workload) + "\" with the hybrid Mamba model \"" + utf8_prefix(s.model.name, 60) +
                                "\": the saved tensors of its Mamba-2 blocks are not modelled yet (allowed: infer)");
    else if (s.framework != Framework::vllm && s.framework != Framework::hf)
        r.error("framework", std::string("\"") + to_string(s.framework) + "\" with the hybrid Mamba model \"" + utf8_prefix(s.model.name, 60) +
                                 "\": its recurrent state is modelled for vllm and hf only (allowed: vllm, hf)");
}

}  // namespace

void check_cross_fields(const Scenario& s, FieldReader& r) {
    check_stack(s, r);
    check_hybrid(s, r);
    if (s.method == Method::qlora && s.quantization == Quantization::none)
        r.error("quantization", "method \"qlora\" needs a quantized base: nf4, nf4-dq, int8, gptq-int4 or awq-int4");
    if (s.optimizer_in_backward && s.grad_accum > 1)
        r.error("optimizer_in_backward",
                "needs grad_accum 1: gradients are freed as soon as the optimizer has used "
                "them, so none are kept between micro-batches (torchtune raises the same error)");
    if (s.prompt_len + s.gen_len < 1 && s.workload == Workload::infer)
        r.error("prompt_len", "prompt_len + gen_len must be at least 1 token");
    check_layout(s, r);
    check_contradictions(s, r);
}

}  // namespace vramcalc::detail
