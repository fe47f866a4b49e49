// CheckpointHeaderReader (checkpoint.hpp): the byte ranges that read a checkpoint's headers, one at a
// time, shared by the page (HTTP Range requests) and the CLI (local files).
#include <algorithm>

#include "checkpoint/readers.hpp"
#include "vramcalc/checkpoint.hpp"

namespace vramcalc {
namespace {

constexpr std::int64_t kFirstRead = 8;  // the safetensors header length, or GGUF's magic and version

// The folder part of a file name ("a/b/model.safetensors.index.json" -> "a/b/"), for its shards.
std::string folder_of(const std::string& f) {
    const auto slash = f.find_last_of("/\\");
    return slash == std::string::npos ? std::string() : f.substr(0, slash + 1);
}

}  // namespace

CheckpointHeaderReader::CheckpointHeaderReader(std::vector<std::string> files, std::string if_missing)
    : files_(std::move(files)), if_missing_(std::move(if_missing)) {
    if (files_.empty()) fail("no checkpoint file to read");
    else start_file();
}

bool CheckpointHeaderReader::is_index(const std::string& f) const { return f.size() > 11 && f.ends_with(".index.json"); }

void CheckpointHeaderReader::ask(std::int64_t first, std::int64_t last) {
    request_ = {files_[file_], first, last};
    ++requests_;
}

void CheckpointHeaderReader::start_file() {
    bytes_.clear();
    if (file_ == files_.size()) {
        state_ = State::done;
        return;
    }
    if (is_index(files_[file_])) ask(0, -1);
    else ask(0, kFirstRead - 1);
}

void CheckpointHeaderReader::fail(std::string why) {
    state_ = State::failed;
    error_ = std::move(why);
}

void CheckpointHeaderReader::missing() {
    if (state_ != State::reading) return;
    if (file_ == 0 && !if_missing_.empty() && files_[0] != if_missing_) {
        files_[0] = if_missing_;
        start_file();
        return;
    }
    fail(request_.file + ": not found");
}

void CheckpointHeaderReader::receive(std::string_view bytes) {
    if (state_ != State::reading) return;
    received_ += static_cast<std::int64_t>(bytes.size());
    const std::string file = files_[file_];
    if (request_.last < 0) {  // an index: its shards take its place, in its folder
        auto ix = read_safetensors_index(bytes);
        for (const auto& w : ix.warnings) warnings_.push_back(file + ": " + w);
        if (!ix.ok()) return fail(file + ": " + ix.error_text());
        index_total_ = std::min<std::int64_t>(index_total_ + ix->total_size, std::int64_t{1} << 62);  // each <= 2^53
        std::vector<std::string> shards;
        for (const auto& s : ix->shards) shards.push_back(folder_of(file) + s);
        files_.erase(files_.begin() + static_cast<std::ptrdiff_t>(file_));
        files_.insert(files_.begin() + static_cast<std::ptrdiff_t>(file_), shards.begin(), shards.end());
        return start_file();
    }
    const bool file_ended = static_cast<std::int64_t>(bytes.size()) < request_.last - request_.first + 1;
    bytes_.append(bytes.substr(0, static_cast<std::size_t>(request_.last - request_.first + 1)));
    const std::int64_t need = checkpoint_header_bytes_needed(bytes_);
    if (need > static_cast<std::int64_t>(bytes_.size()) && !file_ended) return ask(static_cast<std::int64_t>(bytes_.size()), need - 1);
    finish_file();
}

void CheckpointHeaderReader::finish_file() {
    const std::string& file = files_[file_];
    auto r = read_checkpoint_header(bytes_);
    for (const auto& w : r.warnings) warnings_.push_back(file + ": " + w);
    if (!r.ok()) return fail(file + ": " + r.error_text());
    summary_.merge(*r);
    if (summary_.overflowed) return fail(file + ": " + std::string(detail::kSumOverflow));
    ++file_;
    start_file();
}

}  // namespace vramcalc
