// Exact weight bytes from a checkpoint's own headers: a safetensors file (or its shards, listed by
// model.safetensors.index.json) or a GGUF file. Only the header is read: a few KB to a few MB at the start
// of each file, never the weights, so the page can fetch it with an HTTP Range request and the CLI reads
// local files. Right where a count from config.json is not: pre-quantised checkpoints (GPTQ/AWQ packing,
// FP8 with scales, MXFP4/NVFP4, mixed-precision heads) and GGUF files with their per-tensor type mix.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "vramcalc/diagnostics.hpp"

namespace vramcalc {

struct CheckpointTensor {
    std::string name;
    std::string dtype;  // safetensors dtype ("BF16", "F8_E4M3", "I32") or ggml type ("q4_k", "f16")
    std::vector<std::int64_t> shape;
    std::int64_t bytes = 0;  // stored bytes of the tensor's data
};

struct CheckpointSummary {
    std::string format;  // "safetensors" or "gguf"
    std::vector<CheckpointTensor> tensors;
    std::map<std::string, std::int64_t> bytes_by_dtype;
    std::map<std::string, std::int64_t> elements_by_dtype;  // stored elements (a packed int32 holds 8 int4 weights)
    std::int64_t total_bytes = 0;                           // sum over tensors: what the weights take once loaded as stored
    std::int64_t header_bytes = 0;                          // bytes at the start of the file the header occupies
    std::string architecture;                               // GGUF general.architecture; safetensors: empty
    int files = 0;                                          // files summed (shards)
    bool overflowed = false;                                // a sum passed 2^63: not a real checkpoint, and the readers refuse it

    void add(const CheckpointTensor& t);
    void merge(const CheckpointSummary& other);  // one shard after another
};

// How many leading bytes of a checkpoint file its header needs, given the first bytes read so far: the
// exact figure for safetensors (8 + the header length it states) once 8 bytes are there; for GGUF a
// larger read while the header runs past `prefix` (double it), prefix.size() once the header is complete.
// 0 when the prefix is neither format (read_checkpoint_header then says why).
std::int64_t checkpoint_header_bytes_needed(std::string_view prefix);

// The tensors of one checkpoint file from its leading bytes (at least the header). Errors name the
// tensor or key and the value: a truncated header, a bad magic, an unknown dtype or ggml type, offsets
// that disagree with the shape.
Result<CheckpointSummary> read_checkpoint_header(std::string_view leading_bytes);

// model.safetensors.index.json: the shard files in order of first appearance and metadata.total_size
// (0 when absent).
struct SafetensorsIndex {
    std::vector<std::string> shards;
    std::int64_t total_size = 0;
};
Result<SafetensorsIndex> read_safetensors_index(std::string_view json_text);

// A byte range of one file to read next: bytes first..last inclusive (HTTP "Range: bytes=first-last"),
// or the whole file when last < 0 (an index JSON, never a weights file).
struct ByteRange {
    std::string file;  // as given, or a shard name from an index (in the index's folder)
    std::int64_t first = 0, last = -1;
};

// Reads the headers of a checkpoint's files, asking for one byte range at a time and never for the
// weights: an index (read whole) and then each shard, or safetensors / GGUF files directly; per file
// bytes 0-7 first, then the rest of the header its length states (GGUF: doubling until it is complete).
// No I/O: the page fetches the ranges with HTTP Range requests, the CLI reads them from local files.
class CheckpointHeaderReader {
public:
    // `files` are read in order; one whose name ends in ".index.json" is replaced by its shards.
    // `if_missing`: the file to read when the first one is missing (model.safetensors for a Hub
    // repository without model.safetensors.index.json).
    explicit CheckpointHeaderReader(std::vector<std::string> files, std::string if_missing = "");

    const ByteRange* next() const { return state_ == State::reading ? &request_ : nullptr; }
    void receive(std::string_view bytes);  // the answer to next(); fewer bytes than asked: the file ended
    void missing();                        // next()'s file does not exist
    void fail(std::string why);            // next() could not be read: `why` names it

    bool done() const { return state_ == State::done; }
    bool failed() const { return state_ == State::failed; }
    const std::string& error() const { return error_; }  // the file and what was wrong
    const CheckpointSummary& summary() const { return summary_; }
    const std::vector<std::string>& warnings() const { return warnings_; }
    std::int64_t index_total_size() const { return index_total_; }  // an index's metadata.total_size (0: none)
    int requests() const { return requests_; }                      // ranges asked for so far
    std::int64_t bytes_received() const { return received_; }
    std::size_t files_read() const { return file_; }  // files whose headers are summed
    std::size_t files_total() const { return files_.size(); }

private:
    enum class State { reading,
                       done,
                       failed };
    void ask(std::int64_t first, std::int64_t last);
    void start_file();
    void finish_file();
    bool is_index(const std::string& f) const;

    std::vector<std::string> files_;
    std::string if_missing_, prefix_, bytes_, error_;
    std::size_t file_ = 0;
    ByteRange request_;
    State state_ = State::reading;
    CheckpointSummary summary_;
    std::vector<std::string> warnings_;
    std::int64_t index_total_ = 0, received_ = 0;
    int requests_ = 0;
};

}  // namespace vramcalc
