// The summary every checkpoint reader fills, and the dispatch on the file's first bytes.
#include "vramcalc/checkpoint.hpp"

#include <algorithm>

#include "checkpoint/readers.hpp"
#include "common/checked.hpp"

namespace vramcalc {

// Every sum is checked: each tensor is bounded (2^50 elements) but a 40 KB header can list a thousand
// such tensors, and their total overflowed int64 into a negative checkpoint_bytes (issue 42, UBSan in
// this function). A sum that would pass 2^63 sets `overflowed` and adds nothing.
void CheckpointSummary::add(const CheckpointTensor& t) {
    using detail::Checked;
    double product = 1;  // in double: the readers bound each tensor to 2^50 elements, callers may not
    for (std::int64_t d : t.shape) product *= static_cast<double>(d);
    const auto elements = static_cast<std::int64_t>(std::min(product, 9.0e18));
    const Checked bytes = Checked(bytes_by_dtype[t.dtype]) + Checked(t.bytes);
    const Checked count = Checked(elements_by_dtype[t.dtype]) + Checked(elements);
    const Checked total = Checked(total_bytes) + Checked(t.bytes);
    if (t.bytes < 0 || bytes.overflow || count.overflow || total.overflow) {
        overflowed = true;
        return;
    }
    bytes_by_dtype[t.dtype] = bytes.value;
    elements_by_dtype[t.dtype] = count.value;
    total_bytes = total.value;
    tensors.push_back(t);
}

void CheckpointSummary::merge(const CheckpointSummary& other) {
    if (format.empty()) format = other.format;
    if (architecture.empty()) architecture = other.architecture;
    overflowed = overflowed || other.overflowed;
    for (const auto& t : other.tensors) add(t);
    const detail::Checked header = detail::Checked(header_bytes) + detail::Checked(other.header_bytes);
    overflowed = overflowed || header.overflow;
    header_bytes = header.value;
    files += other.files;
}

std::int64_t checkpoint_header_bytes_needed(std::string_view prefix) {
    if (detail::is_gguf_magic(prefix)) return detail::gguf_header_bytes_needed(prefix);
    return detail::safetensors_header_bytes_needed(prefix);
}

Result<CheckpointSummary> read_checkpoint_header(std::string_view bytes) {
    auto r = detail::is_gguf_magic(bytes) ? detail::read_gguf_header(bytes) : detail::read_safetensors_header(bytes);
    if (r.ok() && r->overflowed) {
        r.value.reset();
        r.errors.push_back({"checkpoint", std::string(detail::kSumOverflow)});
    }
    return r;
}

}  // namespace vramcalc
