// The summary every checkpoint reader fills, and the dispatch on the file's first bytes.
#include "vramcalc/checkpoint.hpp"

#include <algorithm>

#include "checkpoint/readers.hpp"

namespace vramcalc {

void CheckpointSummary::add(const CheckpointTensor& t) {
    double product = 1;  // in double: the readers bound each tensor to 2^50 elements, callers may not
    for (std::int64_t d : t.shape) product *= static_cast<double>(d);
    const auto elements = static_cast<std::int64_t>(std::min(product, 9.0e18));
    bytes_by_dtype[t.dtype] += t.bytes;
    elements_by_dtype[t.dtype] += elements;
    total_bytes += t.bytes;
    tensors.push_back(t);
}

void CheckpointSummary::merge(const CheckpointSummary& other) {
    if (format.empty()) format = other.format;
    if (architecture.empty()) architecture = other.architecture;
    for (const auto& t : other.tensors) add(t);
    header_bytes += other.header_bytes;
    files += other.files;
}

std::int64_t checkpoint_header_bytes_needed(std::string_view prefix) {
    if (detail::is_gguf_magic(prefix)) return detail::gguf_header_bytes_needed(prefix);
    return detail::safetensors_header_bytes_needed(prefix);
}

Result<CheckpointSummary> read_checkpoint_header(std::string_view bytes) {
    if (detail::is_gguf_magic(bytes)) return detail::read_gguf_header(bytes);
    return detail::read_safetensors_header(bytes);
}

}  // namespace vramcalc
