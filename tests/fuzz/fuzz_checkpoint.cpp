// Fuzz target: leading bytes of a checkpoint file -> its tensors. Any input gives a summary or errors
// (never a crash, a throw or an endless "read more"); a summary's totals are the sums of its tensors.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "vramcalc/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace vramcalc;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const std::int64_t need = checkpoint_header_bytes_needed(bytes);
    fuzz::require(need >= 0, "a negative byte count to read");
    const auto r = read_checkpoint_header(bytes);
    if (!r.ok()) {
        fuzz::require(!r.errors.empty(), "a rejected header reports no error");
        return 0;
    }
    std::int64_t sum = 0;
    for (const auto& t : r->tensors) {
        fuzz::require(t.bytes >= 0, "a tensor with negative bytes: " + t.name);
        sum += t.bytes;
    }
    fuzz::require(sum == r->total_bytes, "total_bytes is not the sum of the tensors");
    fuzz::require(r->header_bytes <= static_cast<std::int64_t>(size), "a header longer than the bytes read");
    (void)read_safetensors_index(bytes);
    return 0;
}
