#include "enums.hpp"

namespace vramcalc {
namespace detail {

template <>
const EnumTable<Workload>& enum_table() {
    static const EnumTable<Workload> t{{Workload::train, "train"}, {Workload::infer, "infer"}};
    return t;
}
template <>
const EnumTable<Framework>& enum_table() {
    static const EnumTable<Framework> t{{Framework::hf, "hf"}, {Framework::torchtune, "torchtune"}, {Framework::litgpt, "litgpt"}, {Framework::deepspeed, "deepspeed"}, {Framework::megatron, "megatron"}, {Framework::vllm, "vllm"}, {Framework::llamacpp, "llama.cpp"}, {Framework::unsloth, "unsloth"}, {Framework::torchtitan, "torchtitan"}};
    return t;
}
template <>
const EnumTable<Method>& enum_table() {
    static const EnumTable<Method> t{{Method::full, "full"}, {Method::lora, "lora"}, {Method::qlora, "qlora"}, {Method::freeze, "freeze"}, {Method::llama_adapter, "llama-adapter"}, {Method::adapter_v2, "adapter-v2"}};
    return t;
}
template <>
const EnumTable<Precision>& enum_table() {
    static const EnumTable<Precision> t{{Precision::fp32, "fp32"}, {Precision::fp16_mixed, "fp16-mixed"}, {Precision::bf16_mixed, "bf16-mixed"}, {Precision::fp16, "fp16"}, {Precision::bf16, "bf16"}};
    return t;
}
template <>
const EnumTable<Optimizer>& enum_table() {
    static const EnumTable<Optimizer> t{{Optimizer::adamw, "adamw"}, {Optimizer::adamw_8bit, "adamw-8bit"}, {Optimizer::paged_adamw_8bit, "paged-adamw-8bit"}, {Optimizer::adafactor, "adafactor"}, {Optimizer::sgd, "sgd"}, {Optimizer::sgd_momentum, "sgd-momentum"}, {Optimizer::lion, "lion"}};
    return t;
}
template <>
const EnumTable<Quantization>& enum_table() {
    static const EnumTable<Quantization> t{{Quantization::none, "none"}, {Quantization::nf4, "nf4"}, {Quantization::nf4_dq, "nf4-dq"}, {Quantization::int8, "int8"}, {Quantization::gptq_int4, "gptq-int4"}, {Quantization::awq_int4, "awq-int4"}};
    return t;
}
template <>
const EnumTable<Checkpointing>& enum_table() {
    static const EnumTable<Checkpointing> t{{Checkpointing::none, "none"}, {Checkpointing::full, "full"}, {Checkpointing::selective, "selective"}, {Checkpointing::offload, "offload"}, {Checkpointing::selective_op, "selective-op"}};
    return t;
}
template <>
const EnumTable<Attention>& enum_table() {
    static const EnumTable<Attention> t{{Attention::eager, "eager"}, {Attention::sdpa, "sdpa"}, {Attention::flash, "flash"}};
    return t;
}
template <>
const EnumTable<Loss>& enum_table() {
    static const EnumTable<Loss> t{{Loss::standard, "standard"}, {Loss::chunked, "chunked"}, {Loss::fused, "fused"}, {Loss::cce, "cce"}, {Loss::liger_ce, "liger-ce"}, {Loss::chunked_nll, "chunked-nll"}};
    return t;
}
template <>
const EnumTable<Sharding>& enum_table() {
    static const EnumTable<Sharding> t{{Sharding::none, "none"}, {Sharding::zero1, "zero1"}, {Sharding::zero2, "zero2"}, {Sharding::zero3, "zero3"}, {Sharding::fsdp_full, "fsdp-full"}, {Sharding::fsdp_grad_op, "fsdp-grad-op"}};
    return t;
}
template <>
const EnumTable<Offload>& enum_table() {
    static const EnumTable<Offload> t{{Offload::none, "none"}, {Offload::optimizer, "optimizer"}, {Offload::optimizer_params, "optimizer+params"}};
    return t;
}
template <>
const EnumTable<KvDtype>& enum_table() {
    static const EnumTable<KvDtype> t{{KvDtype::automatic, "auto"}, {KvDtype::fp16, "fp16"}, {KvDtype::bf16, "bf16"}, {KvDtype::fp8, "fp8"}, {KvDtype::q8_0, "q8_0"}, {KvDtype::q4_0, "q4_0"}};
    return t;
}
template <>
const EnumTable<RlhfAlgorithm>& enum_table() {
    static const EnumTable<RlhfAlgorithm> t{{RlhfAlgorithm::none, "none"}, {RlhfAlgorithm::ppo, "ppo"}, {RlhfAlgorithm::dpo, "dpo"}, {RlhfAlgorithm::grpo, "grpo"}};
    return t;
}
template <>
const EnumTable<RolloutEngine>& enum_table() {
    static const EnumTable<RolloutEngine> t{{RolloutEngine::vllm, "vllm"}, {RolloutEngine::hf, "hf"}};
    return t;
}

template <>
const EnumTable<VllmSampler>& enum_table() {
    static const EnumTable<VllmSampler> t{{VllmSampler::triton, "triton"}, {VllmSampler::sort, "sort"}};
    return t;
}
template <>
const EnumTable<Float8>& enum_table() {
    static const EnumTable<Float8> t{{Float8::none, "none"}, {Float8::tensorwise, "tensorwise"}, {Float8::rowwise, "rowwise"}, {Float8::rowwise_with_gw_hp, "rowwise-with-gw-hp"}, {Float8::mxfp8, "mxfp8"}};
    return t;
}
template <>
const EnumTable<RocmLoadMeasure>& enum_table() {
    static const EnumTable<RocmLoadMeasure> t{{RocmLoadMeasure::allocated, "allocated"}, {RocmLoadMeasure::total_free, "total-free"}};
    return t;
}
template <>
const EnumTable<LoadDtype>& enum_table() {
    static const EnumTable<LoadDtype> t{{LoadDtype::automatic, "auto"}, {LoadDtype::float32, "float32"}, {LoadDtype::bfloat16, "bfloat16"}, {LoadDtype::float16, "float16"}};
    return t;
}
template <>
const EnumTable<HfCache>& enum_table() {
    static const EnumTable<HfCache> t{{HfCache::dynamic, "dynamic"}, {HfCache::tuple, "tuple"}};
    return t;
}
template <>
const EnumTable<AdamwImpl>& enum_table() {
    static const EnumTable<AdamwImpl> t{{AdamwImpl::foreach, "foreach"}, {AdamwImpl::for_loop, "for-loop"}, {AdamwImpl::fused, "fused"}};
    return t;
}

std::string join_names(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

}  // namespace detail

const char* to_string(Workload v) { return detail::enum_name(v); }
const char* to_string(Framework v) { return detail::enum_name(v); }
const char* to_string(Method v) { return detail::enum_name(v); }
const char* to_string(Precision v) { return detail::enum_name(v); }
const char* to_string(Optimizer v) { return detail::enum_name(v); }
const char* to_string(Quantization v) { return detail::enum_name(v); }
const char* to_string(Checkpointing v) { return detail::enum_name(v); }
const char* to_string(Attention v) { return detail::enum_name(v); }
const char* to_string(Loss v) { return detail::enum_name(v); }
const char* to_string(Sharding v) { return detail::enum_name(v); }
const char* to_string(Offload v) { return detail::enum_name(v); }
const char* to_string(KvDtype v) { return detail::enum_name(v); }
const char* to_string(RlhfAlgorithm v) { return detail::enum_name(v); }
const char* to_string(RolloutEngine v) { return detail::enum_name(v); }
const char* to_string(VllmSampler v) { return detail::enum_name(v); }
const char* to_string(RocmLoadMeasure v) { return detail::enum_name(v); }
const char* to_string(HfCache v) { return detail::enum_name(v); }
const char* to_string(LoadDtype v) { return detail::enum_name(v); }
const char* to_string(AdamwImpl v) { return detail::enum_name(v); }
const char* to_string(Float8 v) { return detail::enum_name(v); }

}  // namespace vramcalc
