// Fuzz target: a sharded checkpoint as the header reader meets it. The input is an index
// (model.safetensors.index.json) followed by the files it may name, separated by lines "--": the reader
// asks for byte ranges until it is done or has failed. It must end, within a bounded number of requests
// (an index naming itself was once read forever, issue 42), and a finished summary must add up.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "vramcalc/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace vramcalc;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
        const auto sep = text.find("\n--\n", at);
        parts.push_back(text.substr(at, sep == std::string_view::npos ? std::string_view::npos : sep - at));
        if (sep == std::string_view::npos) break;
        at = sep + 4;
    }
    std::map<std::string, std::string_view> files{{"m/model.safetensors.index.json", parts[0]}};
    const auto ix = read_safetensors_index(parts[0]);
    if (ix.ok())
        for (std::size_t i = 0; i < ix->shards.size(); ++i)
            files["m/" + ix->shards[i]] = parts[(i + 1) % parts.size()];
    CheckpointHeaderReader reader({"m/model.safetensors.index.json"});
    int steps = 0;
    for (const ByteRange* q = reader.next(); q; q = reader.next()) {
        fuzz::require(++steps <= 100000, "the header reader asked for more than 100,000 ranges");
        const auto f = files.find(q->file);
        if (f == files.end()) {
            reader.missing();
            continue;
        }
        const std::string_view all = f->second;
        if (q->last < 0) reader.receive(all);
        else if (q->first >= static_cast<std::int64_t>(all.size())) reader.receive({});
        else reader.receive(all.substr(static_cast<std::size_t>(q->first), static_cast<std::size_t>(q->last - q->first + 1)));
    }
    fuzz::require(reader.done() || reader.failed(), "the header reader stopped asking without an outcome");
    if (reader.failed()) {
        fuzz::require(!reader.error().empty(), "a failed read without a reason");
        return 0;
    }
    std::int64_t sum = 0;
    for (const auto& t : reader.summary().tensors) sum += t.bytes;
    fuzz::require(sum == reader.summary().total_bytes && !reader.summary().overflowed, "a finished summary does not add up");
    return 0;
}
