// vramcalc-checkpoint.js: the core's CheckpointHeaderReader for the page, a separate module that page.js
// loads only when the user asks to read a checkpoint (so its parsers cost the page nothing until then).
// page.js fetches the ranges it names with HTTP Range requests and feeds the answers back; ckpt_state()
// reports the next range, the progress and, once done, the bytes per dtype (or the error) as JSON.
#include <memory>
#include <string>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "vramcalc/checkpoint.hpp"

namespace {

std::unique_ptr<vramcalc::CheckpointHeaderReader> g_reader;
std::string g_reply;

}  // namespace

extern "C" {
// Start reading `file` (an index JSON, a .safetensors or .gguf file), `if_missing` when it does not exist.
EMSCRIPTEN_KEEPALIVE void ckpt_open(const char* file, const char* if_missing) {
    g_reader = std::make_unique<vramcalc::CheckpointHeaderReader>(std::vector<std::string>{file}, if_missing);
}
EMSCRIPTEN_KEEPALIVE void ckpt_receive(const char* data, int size) { g_reader->receive(std::string_view(data, static_cast<std::size_t>(size))); }
EMSCRIPTEN_KEEPALIVE void ckpt_missing() { g_reader->missing(); }
EMSCRIPTEN_KEEPALIVE void ckpt_fail(const char* why) {
    if (const vramcalc::ByteRange* q = g_reader->next()) g_reader->fail(q->file + ": " + why);
}
// {"busy", "file", "first", "last" (the range to fetch while busy), "files_read", "files", "requests",
//  "bytes", then "error", or "by_dtype" {dtype: bytes}, "total", "tensors", "format"}.
EMSCRIPTEN_KEEPALIVE const char* ckpt_state() {
    const auto& r = *g_reader;
    nlohmann::json j = {{"busy", r.next() != nullptr}, {"files_read", r.files_read()}, {"files", r.files_total()}, {"requests", r.requests()}, {"bytes", r.bytes_received()}};
    if (const vramcalc::ByteRange* q = r.next()) {
        j["file"] = q->file;
        j["first"] = q->first;
        j["last"] = q->last;
    } else if (r.failed()) {
        j["error"] = r.error();
    } else {
        j["by_dtype"] = r.summary().bytes_by_dtype;
        j["total"] = r.summary().total_bytes;
        j["tensors"] = r.summary().tensors.size();
        j["format"] = r.summary().format;
    }
    g_reply = j.dump();
    return g_reply.c_str();
}
}
