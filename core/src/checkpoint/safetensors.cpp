// safetensors (huggingface/safetensors, docs "Format"): an 8-byte little-endian header length N, then N
// bytes of JSON {"__metadata__": {...}, "<tensor>": {"dtype", "shape", "data_offsets": [begin, end]}},
// then the data. A tensor's stored bytes are end - begin; the dtype's width times the shape must agree.
#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checkpoint/readers.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc::detail {
namespace {

// safetensors' own limit on the header (safetensors/src/tensor.rs MAX_HEADER_SIZE = 100_000_000).
constexpr std::uint64_t kMaxHeader = 100'000'000;
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 50;  // per tensor: 10^15 weights is no checkpoint

// Bits per element of each safetensors dtype (safetensors/src/tensor.rs Dtype::bitsize); 0 = unknown.
int dtype_bits(const std::string& d) {
    if (d == "BOOL" || d == "U8" || d == "I8" || d == "F8_E4M3" || d == "F8_E5M2" || d == "F8_E8M0") return 8;
    if (d == "U16" || d == "I16" || d == "F16" || d == "BF16") return 16;
    if (d == "U32" || d == "I32" || d == "F32") return 32;
    if (d == "U64" || d == "I64" || d == "F64") return 64;
    if (d == "F4") return 4;  // float4 e2m1, two per byte
    if (d == "F6_E2M3" || d == "F6_E3M2") return 6;
    return 0;
}

struct Span {
    std::uint64_t begin, end;
    std::string name;
};

// safetensors refuses a header whose tensors do not tile the data exactly: sorted by offset, each begins
// where the one before ended, the first at 0 (safetensors/src/tensor.rs Metadata::validate,
// SafeTensorError::InvalidOffset). Overlapping or gapped offsets were summed as given (issue 42).
std::string tiling_error(std::vector<Span>& spans) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
    std::uint64_t at = 0;
    for (const auto& s : spans) {
        if (s.begin != at)
            return "tensor " + s.name + " starts at byte " + std::to_string(s.begin) + " of the data, expected " + std::to_string(at) +
                   (s.begin < at ? " (it overlaps the tensor before)" : " (a gap after the tensor before)") +
                   ": safetensors refuses such a header (InvalidOffset)";
        at = s.end;
    }
    return "";
}

}  // namespace

std::int64_t safetensors_header_bytes_needed(std::string_view prefix) {
    if (prefix.size() < 8) return 8;
    const std::uint64_t n = read_le(prefix, 0, 8);
    if (n > kMaxHeader) return 0;
    return static_cast<std::int64_t>(8 + n);
}

Result<CheckpointSummary> read_safetensors_header(std::string_view bytes) {
    Result<CheckpointSummary> r;
    auto fail = [&](std::string field, std::string message) {
        r.errors.push_back({"checkpoint" + (field.empty() ? "" : "." + field), std::move(message)});
        return r;
    };
    if (bytes.size() < 8) return fail("", "not a safetensors or GGUF file: " + std::to_string(bytes.size()) + " bytes, a header needs at least 8");
    const std::uint64_t n = read_le(bytes, 0, 8);
    if (n > kMaxHeader || n < 2)
        return fail("", "not a safetensors or GGUF file: the first 8 bytes give a header length of " + std::to_string(n) +
                            " (safetensors allows 2 to 100,000,000) and the file does not start with 'GGUF'");
    if (bytes.size() < 8 + n)
        return fail("", "header is " + std::to_string(n) + " bytes but only " + std::to_string(bytes.size() - 8) +
                            " were read: read the first " + std::to_string(8 + n) + " bytes of the file");
    const auto j = parse_json_or_discarded(bytes.substr(8, n));
    if (j.is_discarded() || !j.is_object()) return fail("", "the safetensors header is not a JSON object");
    CheckpointSummary s;
    s.format = "safetensors";
    s.header_bytes = static_cast<std::int64_t>(8 + n);
    s.files = 1;
    std::vector<Span> spans;
    for (const auto& [name, t] : j.items()) {
        if (name == "__metadata__") continue;
        if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") || !t["shape"].is_array() ||
            !t.contains("data_offsets") || !t["data_offsets"].is_array() || t["data_offsets"].size() != 2)
            return fail(name, "a tensor entry needs \"dtype\" (string), \"shape\" (array) and \"data_offsets\" ([begin, end])");
        CheckpointTensor x{name, t["dtype"].get<std::string>(), {}, 0};
        double elements = 1;
        for (const auto& d : t["shape"]) {
            if (!d.is_number_unsigned()) return fail(name + ".shape", "dimensions must be non-negative integers, got " + d.dump());
            if (d.get<std::uint64_t>() > kMaxElements) return fail(name + ".shape", "a dimension of " + d.dump() + " (at most 2^50)");
            x.shape.push_back(d.get<std::int64_t>());
            elements *= static_cast<double>(x.shape.back());
        }
        if (elements > static_cast<double>(kMaxElements))
            return fail(name + ".shape", t["shape"].dump() + " is more than 2^50 elements: not a real checkpoint's header");
        const auto& o = t["data_offsets"];
        if (!o[0].is_number_unsigned() || !o[1].is_number_unsigned() || o[1].get<std::uint64_t>() < o[0].get<std::uint64_t>() ||
            o[1].get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return fail(name + ".data_offsets", "must be [begin, end] with begin <= end, got " + o.dump());
        x.bytes = static_cast<std::int64_t>(o[1].get<std::uint64_t>() - o[0].get<std::uint64_t>());
        const int bits = dtype_bits(x.dtype);
        if (bits == 0) r.warnings.push_back("tensor " + name + ": dtype " + x.dtype + " unknown to this reader; its bytes come from data_offsets");
        else if (elements * bits / 8 != static_cast<double>(x.bytes))
            return fail(name, "data_offsets span " + std::to_string(x.bytes) + " bytes but " + x.dtype + " x shape " + t["shape"].dump() +
                                  " needs " + std::to_string(static_cast<std::int64_t>(elements * bits / 8)));
        spans.push_back({o[0].get<std::uint64_t>(), o[1].get<std::uint64_t>(), name});
        s.add(x);
    }
    if (const std::string why = tiling_error(spans); !why.empty()) return fail("", why);
    r.value = std::move(s);
    return r;
}

}  // namespace vramcalc::detail
