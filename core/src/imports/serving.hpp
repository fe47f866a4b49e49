// Internal: what the serving importers (vllm, sglang, llama.cpp) share.
#pragma once

#include "source.hpp"

namespace vramcalc::imports {

// "16384", "16k", "1M": vLLM and llama.cpp take human-readable token counts.
std::optional<std::int64_t> token_count(Importer& im, const Entry& e);
void read_kv_dtype(Importer& im, const Entry& e);       // auto, fp8*, bfloat16, float16
void read_quantization(Importer& im, const Entry& e);   // awq, gptq, fp8, bitsandbytes -> weights
void read_dtype(Importer& im, const Entry& e);          // bfloat16, float16, float32 -> weights (unquantised)
void read_data_parallel(Importer& im, const Entry& e);  // replicas: each GPU's bill is one replica's
// Flags of any server with no effect on memory: --host, --port, --api-key, ...
std::span<const Rule> server_common_rules();
// num_gpus = tp x pp x data-parallel replicas (the flags named `dp_flags`).
// A parallel degree the import has set (tp, pp, num_gpus), 1 when it has not.
std::int64_t imported_degree(Importer& im, const char* key);
void finish_gpu_count(Importer& im, std::span<const Entry> flags, std::initializer_list<std::string_view> dp_flags);

}  // namespace vramcalc::imports
