// GGUF (ggml-org/ggml docs/gguf.md): "GGUF", version (u32; 2 and 3 use u64 counts), tensor count and
// metadata count (u64), the metadata key/value pairs, then one info per tensor: name, n_dims (u32), the
// dims (u64 each, ne[0] first), the ggml type (u32) and the data offset (u64). A tensor's bytes are
// rows x (ne[0] / block) x block bytes of its type (ggml_row_size).
#include <algorithm>
#include <iterator>
#include <set>
#include <string>

#include "checkpoint/readers.hpp"
#include "formats/weight_formats.hpp"

namespace vramcalc::detail {
namespace {

// ggml_type ids (ggml/include/ggml.h, enum ggml_type, ggml-org/llama.cpp @004eaba): name in
// weight_formats.cpp's block table; ids 4, 5, 31-33 and 36-38 were removed from GGUF files.
const char* ggml_type_name_of(std::uint32_t id) {
    static const char* const names[] = {
        "f32", "f16", "q4_0", "q4_1", nullptr, nullptr, "q5_0", "q5_1", "q8_0", "q8_1",
        "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k", "iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s",
        "iq4_nl", "iq3_s", "iq2_s", "iq4_xs", "i8", "i16", "i32", "i64", "f64", "iq1_m",
        "bf16", nullptr, nullptr, nullptr, "tq1_0", "tq2_0", nullptr, nullptr, nullptr, "mxfp4"};
    return id < std::size(names) ? names[id] : nullptr;
}

constexpr std::uint64_t kMaxString = 1 << 24;  // a key, value or tensor name longer than 16 MiB is not a header
constexpr std::uint64_t kMaxTensors = 1 << 22;
constexpr std::uint32_t kMaxDims = 4;                               // GGML_MAX_DIMS
constexpr std::uint64_t kMaxGgufElements = std::uint64_t{1} << 50;  // per tensor: 10^15 weights is no checkpoint
constexpr std::size_t kMaxGgufHeader = std::size_t{1} << 28;        // 256 MiB: a longer "header" is a corrupt count

// A cursor over the bytes read so far; `short_` records that the header runs past them.
struct Cursor {
    std::string_view b;
    std::size_t at = 0;
    bool short_ = false;
    bool take(std::size_t n) {
        if (short_ || b.size() - at < n) {
            short_ = true;
            return false;
        }
        at += n;
        return true;
    }
    std::uint64_t u(int width) {
        const std::size_t start = at;
        return take(static_cast<std::size_t>(width)) ? read_le(b, start, width) : 0;
    }
    std::string str() {
        const std::uint64_t n = u(8);
        if (n > kMaxString) {
            short_ = true;  // a corrupt length: the caller reports the bad header
            return {};
        }
        const std::size_t start = at;
        return take(static_cast<std::size_t>(n)) ? std::string(b.substr(start, static_cast<std::size_t>(n))) : std::string();
    }
};

// Bytes of one metadata value of type `type` (gguf_type: 0 u8 ... 12 f64), skipping it; false when unknown.
bool skip_value(Cursor& c, std::uint32_t type, int depth = 0) {
    static const int width[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    if (type == 8) {
        c.str();
        return true;
    }
    if (type == 9) {
        const std::uint32_t inner = static_cast<std::uint32_t>(c.u(4));
        const std::uint64_t count = c.u(8);
        if (depth > 2 || inner > 12) return false;
        if (inner != 8 && inner != 9) {
            const auto w = static_cast<std::uint64_t>(width[inner]);
            if (count > (c.b.size() - c.at) / w) c.short_ = true;
            else c.take(static_cast<std::size_t>(count * w));
            return true;
        }
        for (std::uint64_t i = 0; i < count && !c.short_; ++i)
            if (!skip_value(c, inner, depth + 1)) return false;
        return true;
    }
    if (type > 12) return false;
    c.take(static_cast<std::size_t>(width[type]));
    return true;
}

struct Parsed {
    CheckpointSummary s;
    std::string error;  // set on a corrupt header
    bool short_ = false;
};

Parsed parse(std::string_view bytes) {
    Parsed p;
    Cursor c{bytes};
    c.take(4);  // magic, checked by the caller
    const std::uint32_t version = static_cast<std::uint32_t>(c.u(4));
    if (!c.short_ && version != 2 && version != 3) {
        p.error = "GGUF version " + std::to_string(version) + " (this reader knows 2 and 3)";
        return p;
    }
    const std::uint64_t tensors = c.u(8), kvs = c.u(8);
    if (tensors > kMaxTensors) {
        p.error = "GGUF header claims " + std::to_string(tensors) + " tensors (at most " + std::to_string(kMaxTensors) + ")";
        return p;
    }
    p.s.format = "gguf";
    p.s.files = 1;
    for (std::uint64_t i = 0; i < kvs && !c.short_; ++i) {
        const std::string key = c.str();
        const std::uint32_t type = static_cast<std::uint32_t>(c.u(4));
        if (key == "general.architecture" && type == 8) {
            p.s.architecture = c.str();
            continue;
        }
        if (!skip_value(c, type)) {
            p.error = "metadata key " + key + " has value type " + std::to_string(type) + " (GGUF defines 0 to 12)";
            return p;
        }
    }
    std::set<std::string> names;
    for (std::uint64_t i = 0; i < tensors && !c.short_; ++i) {
        CheckpointTensor t;
        t.name = c.str();
        // llama.cpp refuses a file that names a tensor twice (ggml/src/gguf.cpp gguf_init_from_file_impl:
        // "duplicate tensor name"); summing both would count its bytes twice.
        if (!c.short_ && !names.insert(t.name).second) {
            p.error = "tensor " + t.name + " appears twice: llama.cpp refuses such a file (duplicate tensor name)";
            return p;
        }
        const std::uint32_t dims = static_cast<std::uint32_t>(c.u(4));
        if (dims == 0 || dims > kMaxDims) {
            if (!c.short_) p.error = "tensor " + t.name + " has " + std::to_string(dims) + " dimensions (ggml allows 1 to 4)";
            break;
        }
        double elements = 1;
        bool absurd = false;
        for (std::uint32_t d = 0; d < dims; ++d) {
            const std::uint64_t n = c.u(8);
            absurd = absurd || n > kMaxGgufElements;
            elements *= static_cast<double>(n);
            t.shape.push_back(static_cast<std::int64_t>(std::min(n, kMaxGgufElements)));
        }
        const std::uint32_t id = static_cast<std::uint32_t>(c.u(4));
        c.u(8);  // data offset
        if (c.short_) break;
        const char* name = ggml_type_name_of(id);
        const GgmlType* g = name ? ggml_type(name) : nullptr;
        if (!g) {
            p.error = "tensor " + t.name + " has ggml type id " + std::to_string(id) + ", unknown to this reader (ggml.h ids 0-39)";
            return p;
        }
        if (absurd || elements > static_cast<double>(kMaxGgufElements)) {
            p.error = "tensor " + t.name + " claims more than 2^50 elements: not a real checkpoint's header";
            return p;
        }
        t.dtype = name;
        // Rows from the other dimensions; an empty tensor (a zero anywhere) has none, however large the
        // others claim to be (a fuzzed [0, 2^50, 2^50] made 2^100 rows and an int64 overflow).
        double rows = elements > 0 ? 1 : 0;
        for (std::size_t d = 1; d < t.shape.size() && rows > 0; ++d) rows *= static_cast<double>(t.shape[d]);
        if (t.shape[0] % g->block_weights != 0) {
            p.error = "tensor " + t.name + ": ne[0] = " + std::to_string(t.shape[0]) + " is not a multiple of " + name + "'s block of " +
                      std::to_string(g->block_weights);
            return p;
        }
        t.bytes = static_cast<std::int64_t>(ggml_tensor_bytes(*g, static_cast<i64>(rows), t.shape[0]));
        p.s.add(t);
    }
    p.short_ = c.short_;
    p.s.header_bytes = static_cast<std::int64_t>(c.at);
    return p;
}

}  // namespace

bool is_gguf_magic(std::string_view b) { return b.size() >= 4 && b.substr(0, 4) == "GGUF"; }

std::int64_t gguf_header_bytes_needed(std::string_view prefix) {
    const Parsed p = parse(prefix);
    if (p.short_) return prefix.size() >= kMaxGgufHeader ? 0 : static_cast<std::int64_t>(std::max<std::size_t>(64 * 1024, 2 * prefix.size()));
    return static_cast<std::int64_t>(prefix.size());
}

Result<CheckpointSummary> read_gguf_header(std::string_view bytes) {
    Result<CheckpointSummary> r;
    Parsed p = parse(bytes);
    if (!p.error.empty()) r.errors.push_back({"checkpoint", p.error});
    else if (p.short_)
        r.errors.push_back({"checkpoint", "the GGUF header runs past the " + std::to_string(bytes.size()) +
                                              " bytes read: read more of the start of the file (vramcalc asks for " +
                                              std::to_string(gguf_header_bytes_needed(bytes)) + ")"});
    else r.value = std::move(p.s);
    return r;
}

}  // namespace vramcalc::detail
