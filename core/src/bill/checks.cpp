#include "bill/checks.hpp"

#include <string>

#include "formats/weight_formats.hpp"

namespace vramcalc::detail {
namespace {

std::string n(std::int64_t v) { return std::to_string(v); }

// GPUs with FP8 tensor cores: Ada, Hopper, Blackwell (NVIDIA's Transformer Engine docs) and AMD CDNA3
// (MI300) and CDNA4 (MI350); vLLM's FP8 weights also run on older NVIDIA GPUs through its Marlin weight-only kernel.
bool fp8_native(const GpuSpec& g) {
    return g.arch == "ada" || g.arch == "hopper" || g.arch == "blackwell" || g.arch == "cdna3" || g.arch == "cdna4";
}

void precision_checks(const Scenario& s, Bill& b) {
    const bool bf16 = s.precision == Precision::bf16 || s.precision == Precision::bf16_mixed;
    if (s.workload == Workload::train && bf16 && !s.gpu.bf16)
        b.warnings.push_back("precision \"" + std::string(to_string(s.precision)) + "\" on " + s.gpu.name +
                             ", which has no bf16 support (the catalog's bf16: false; PyTorch's "
                             "torch.cuda.is_bf16_supported() is false before Ampere): use fp16-mixed");
    if (s.workload == Workload::infer && s.weights == "bf16" && !s.gpu.bf16)
        b.warnings.push_back("weights \"bf16\" on " + s.gpu.name + ", which has no bf16 support: engines load fp16 there");
    if (s.workload == Workload::infer && (is_fp8_format(s.weights) || s.kv_dtype == KvDtype::fp8) &&
        !fp8_native(s.gpu) && s.gpu.id != "custom")
        b.warnings.push_back("fp8 weights or KV cache on " + s.gpu.name + " (" + s.gpu.arch +
                             "): no FP8 tensor cores before Ada/Hopper; vLLM falls back to weight-only kernels or refuses");
    if (s.workload == Workload::train && s.float8 != Float8::none && !fp8_native(s.gpu) && s.gpu.id != "custom")
        b.warnings.push_back("float8 training on " + s.gpu.name + " (" + s.gpu.arch +
                             "): torchao's float8 matmuls need FP8 tensor "
                             "cores (Ada/Hopper or newer)");
    else if (s.workload == Workload::train && s.float8 == Float8::mxfp8 && s.gpu.arch != "blackwell" && s.gpu.id != "custom")
        b.warnings.push_back("float8 \"mxfp8\" on " + s.gpu.name + " (" + s.gpu.arch +
                             "): MX block-scaled matmuls need Blackwell "
                             "(SM100); torchao emulates them elsewhere, so it runs but is not faster");
    if (s.workload == Workload::train && !s.compile && !s.compile_loss)
        b.warnings.push_back("compile_loss false without compile: nothing is compiled, the setting changes nothing");
    if (s.workload == Workload::train && s.float8_all_gather &&
        (s.float8 != Float8::tensorwise || (s.sharding != Sharding::fsdp_full && s.sharding != Sharding::zero3)))
        b.warnings.push_back("float8_all_gather applies to float8 \"tensorwise\" with FSDP (sharding fsdp-full): ignored here");
}

void engine_checks(const Scenario& s, Bill& b) {
    const bool serving = s.framework == Framework::vllm || s.framework == Framework::llamacpp;
    if (s.workload == Workload::train && serving)
        b.warnings.push_back("framework \"" + std::string(to_string(s.framework)) +
                             "\" serves models, it does not train them: the bill follows transformers' training");
    if (s.workload != Workload::infer) return;
    // llama.cpp's GGUF types: F32, F16, BF16 and its block formats; no FP8, GPTQ, AWQ, bitsandbytes or int8 tensors.
    const bool gguf_type = is_gguf(s.weights) || is_float_format(s.weights);
    if (s.framework == Framework::llamacpp && !gguf_type)
        b.warnings.push_back("weights \"" + s.weights +
                             "\" with framework \"llama.cpp\": llama.cpp loads GGUF files "
                             "only (gguf-*, or fp32/fp16/bf16 as GGUF F32/F16/BF16); convert the checkpoint first");
    if (s.framework == Framework::vllm && s.gpu.vendor != "amd" &&
        (s.vllm_rocm_aiter || s.vllm_rocm_load_measure != RocmLoadMeasure::allocated))
        b.warnings.push_back("vllm_rocm_aiter and vllm_rocm_load_measure describe vLLM on AMD GPUs; ignored on " + s.gpu.name);
    if (s.framework != Framework::hf && s.hf_cache == HfCache::tuple)
        b.warnings.push_back("hf_cache \"tuple\" describes transformers' generate (framework \"hf\"); ignored with framework \"" +
                             std::string(to_string(s.framework)) + "\"");
    if (s.framework == Framework::vllm && (s.kv_dtype == KvDtype::q8_0 || s.kv_dtype == KvDtype::q4_0))
        b.warnings.push_back("kv_dtype \"" + std::string(to_string(s.kv_dtype)) +
                             "\" is a llama.cpp cache type; vLLM's kv_cache_dtype takes auto or fp8");
    const std::int64_t len = s.prompt_len + s.gen_len;
    if (s.framework == Framework::vllm && s.max_model_len > 0 && s.max_model_len < len)
        b.warnings.push_back("max_model_len " + n(s.max_model_len) + " is shorter than prompt_len + gen_len = " + n(len) +
                             ": vLLM rejects such a request");
    if (s.framework == Framework::llamacpp && s.batch * len > s.n_ctx)
        b.warnings.push_back("batch x (prompt_len + gen_len) = " + n(s.batch * len) + " exceeds n_ctx " + n(s.n_ctx) +
                             ": llama.cpp's cells are shared by all sequences, so they do not all fit at once");
}

void model_checks(const Scenario& s, Bill& b) {
    const ModelSpec& m = s.model;
    if (m.count_only) return;
    const std::int64_t limit = m.max_positions;
    const std::int64_t len = s.workload == Workload::train ? s.seq_len : s.prompt_len + s.gen_len;
    if (limit > 0 && len > limit)
        b.warnings.push_back(std::string(s.workload == Workload::train ? "seq_len " : "prompt_len + gen_len ") + n(len) +
                             " exceeds the model's max_position_embeddings " + n(limit) +
                             (m.traits.rope ? ": beyond it RoPE positions were never trained (quality drops)"
                                            : ": the learned position table has no entry for those positions (it fails)"));
    if (s.workload == Workload::train && s.method == Method::freeze && s.trainable_layers > m.layers)
        b.warnings.push_back("trainable_layers " + n(s.trainable_layers) + " exceeds the model's " + n(m.layers) +
                             " layers: every layer trains");
    if (s.workload == Workload::train && s.tp > 1 && m.kv_heads > 0 && s.tp > m.kv_heads)
        b.warnings.push_back("tp " + n(s.tp) + " exceeds the model's " + n(m.kv_heads) +
                             " KV heads: Megatron replicates KV heads across ranks (more memory than this split)");
}

void training_checks(const Scenario& s, Bill& b) {
    if (s.workload != Workload::train) return;
    const bool adapters = s.method == Method::lora || s.method == Method::qlora;
    if (s.sharding == Sharding::zero1 && adapters)
        b.warnings.push_back("ZeRO-1 with " + std::string(to_string(s.method)) +
                             ": DeepSpeed still allocates its reduce bucket (reduce_bucket_size 5e8 elements), which can "
                             "outweigh sharding the small adapter states; no sharding may need less memory");
}

// KV-cache types each engine has: llama.cpp's cache types (f16, bf16, q8_0, q4_0, ...: --cache-type-k) have
// no fp8; transformers and torchtune have no GGUF block formats (transformers' QuantizedCache is quanto/HQQ int4/int2).
void kv_checks(const Scenario& s, Bill& b) {
    if (s.workload != Workload::infer) return;
    const bool gguf_kv = s.kv_dtype == KvDtype::q8_0 || s.kv_dtype == KvDtype::q4_0;
    if (gguf_kv && (s.framework == Framework::hf || s.framework == Framework::torchtune))
        b.warnings.push_back("kv_dtype \"" + std::string(to_string(s.kv_dtype)) + "\" is a llama.cpp cache type; framework \"" +
                             to_string(s.framework) +
                             "\" has none (transformers' nearest is cache_implementation=\"quantized\", "
                             "quanto/HQQ int4 or int2): allowed auto, fp16, bf16; the bill counts llama.cpp's block format");
    if (s.kv_dtype == KvDtype::fp8 && s.framework == Framework::llamacpp)
        b.warnings.push_back(
            "kv_dtype \"fp8\" with framework \"llama.cpp\": its --cache-type-k/-v take f32, f16, bf16, q8_0, "
            "q4_0, q4_1, iq4_nl, q5_0 and q5_1, no fp8 (q8_0 is the same size)");
}

// Lengths and sizes an engine takes but that surprise: beyond the model's trained positions, odd group sizes.
void length_checks(const Scenario& s, Bill& b) {
    if (s.workload != Workload::infer || s.model.count_only || s.model.stack) return;
    const std::int64_t limit = s.model.max_positions;
    // llama.cpp llama-context.cpp: "n_ctx_seq (N) > n_ctx_train (M) -- possible training context overflow"
    // (n_ctx_per_seq in releases before 2025); llama-server then caps each slot at n_ctx_train.
    if (s.framework == Framework::llamacpp && limit > 0 && s.n_ctx > limit)
        b.warnings.push_back("n_ctx " + n(s.n_ctx) + " exceeds the model's max_position_embeddings " + n(limit) +
                             ": llama.cpp allocates "
                             "it but warns \"n_ctx_seq > n_ctx_train -- possible training context overflow\" (llama-server caps each "
                             "slot at " +
                             n(limit) + "); the bill keeps the full n_ctx cache");
    // vLLM config/model.py _get_and_verify_max_len: a max_model_len above the derived limit is a ValueError
    // unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (the derived limit is max_position_embeddings, times the rope
    // scaling factor for yarn, dynamic and linear scaling).
    if (s.framework == Framework::vllm && limit > 0 && s.max_model_len > limit)
        b.warnings.push_back("max_model_len " + n(s.max_model_len) + " is above the model's max_position_embeddings " + n(limit) +
                             ": vLLM refuses it (\"User-specified max_model_len is greater than the derived max_model_len\") "
                             "unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set, or the config's rope_scaling extends the limit");
    // GPTQ and AWQ checkpoints use -1, 32, 64 or 128; vLLM's Marlin kernels take only these
    // (MARLIN_SUPPORTED_GROUP_SIZES), its other kernels need the input size divisible by the group.
    const bool packed = is_packed(s.weights);
    const std::int64_t g = s.group_size;
    if (packed && g != -1 && g != 32 && g != 64 && g != 128)
        b.warnings.push_back("group_size " + n(g) + " with weights \"" + s.weights +
                             "\": GPTQ and AWQ checkpoints use -1 (per "
                             "channel), 32, 64 or 128, and vLLM's Marlin kernels take only these" +
                             (s.model.hidden > 0 && g > 0 && s.model.hidden % g != 0
                                  ? "; " + n(g) + " does not divide the hidden size " + n(s.model.hidden) +
                                        ", which vLLM refuses (\"The input size is not aligned with the quantized weight shape\")"
                                  : std::string()));
}

void setting_checks(const Scenario& s, Bill& b) {
    // A custom GPU declared with bf16 on an architecture without it (before Ampere; AMD from CDNA2 has it).
    const std::string& a = s.gpu.arch;
    if (s.gpu.id == "custom" && s.gpu.bf16 && (a == "pascal" || a == "volta" || a == "turing"))
        b.warnings.push_back("gpu.bf16 true with arch \"" + a +
                             "\": bf16 tensor cores start with Ampere "
                             "(torch.cuda.is_bf16_supported() is false before it; bf16 runs emulated, if at all): set \"bf16\": false");
    // LitGPT adapter_v2.py: blocks below adapter_start_layer get no prompt, but every linear keeps its
    // trainable bias and scale (llama-adapter with no adapted layer is a read error).
    if (s.workload == Workload::train && s.method == Method::adapter_v2 && s.model.layers > 0 && !s.model.stack &&
        s.adapter_start_layer >= s.model.layers)
        b.warnings.push_back("adapter_start_layer " + n(s.adapter_start_layer) + " is past the model's last layer (" + n(s.model.layers) +
                             " layers, numbered 0 to " + n(s.model.layers - 1) +
                             "): no layer gets an adapter prompt; only "
                             "adapter-v2's biases, scales and norms train");
}

}  // namespace

void contradiction_warnings(const Scenario& s, Bill& b) {
    precision_checks(s, b);
    engine_checks(s, b);
    model_checks(s, b);
    training_checks(s, b);
    kv_checks(s, b);
    length_checks(s, b);
    setting_checks(s, b);
    parallel_warnings(s, b);
}

}  // namespace vramcalc::detail
