// Internal: one reader per checkpoint format (checkpoint.hpp is the public face).
#pragma once

#include <cstdint>
#include <string_view>

#include "vramcalc/checkpoint.hpp"

namespace vramcalc::detail {

bool is_gguf_magic(std::string_view bytes);
std::int64_t gguf_header_bytes_needed(std::string_view prefix);
Result<CheckpointSummary> read_gguf_header(std::string_view bytes);

std::int64_t safetensors_header_bytes_needed(std::string_view prefix);
Result<CheckpointSummary> read_safetensors_header(std::string_view bytes);

// Why a checkpoint whose sizes sum past 2^63 bytes is refused (CheckpointSummary::overflowed).
inline constexpr std::string_view kSumOverflow =
    "the tensors' sizes sum past 2^63 bytes: not a real checkpoint's header (the largest checkpoints are a few TB)";

// Little-endian integers at an offset (the caller checks the bounds).
inline std::uint64_t read_le(std::string_view b, std::size_t at, int width) {
    std::uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
    return v;
}

}  // namespace vramcalc::detail
