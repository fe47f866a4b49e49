// `vramcalc weights FILE...`: exact weight bytes from checkpoint headers (core checkpoint.hpp): safetensors
// files, a model.safetensors.index.json (its shards from the same folder), a folder holding either, or GGUF
// files. Prints bytes per dtype and the scenario's `checkpoint_bytes`.
#include "cli.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "vramcalc/checkpoint.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::cli {
namespace {

namespace fs = std::filesystem;

// Bytes first..last of a file (fewer when it ends first); last < 0: the whole file.
std::string file_range(const fs::path& p, std::int64_t first, std::int64_t last) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open '" + p.string() + "'");
    if (last < 0) return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::string out(static_cast<std::size_t>(last - first + 1), '\0');
    f.seekg(first);
    f.read(out.data(), static_cast<std::streamsize>(out.size()));
    out.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, f.gcount())));
    return out;
}

// The files a path names: a folder's model.safetensors.index.json, else its .safetensors/.gguf files; a file.
std::vector<std::string> files_of(const fs::path& p) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) return {p.string()};
    if (fs::exists(p / "model.safetensors.index.json")) return {(p / "model.safetensors.index.json").string()};
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(p))
        if (e.path().extension() == ".safetensors" || e.path().extension() == ".gguf") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    if (out.empty()) throw std::runtime_error("'" + p.string() + "' holds no model.safetensors.index.json, .safetensors or .gguf file");
    return out;
}

// The headers of every file, read range by range as the page reads them over HTTP (checkpoint.hpp).
CheckpointHeaderReader read_headers(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const auto& arg : paths)
        for (auto& f : files_of(arg)) files.push_back(std::move(f));
    CheckpointHeaderReader reader(files);
    while (const ByteRange* r = reader.next()) {
        std::error_code ec;
        if (!fs::is_regular_file(r->file, ec)) throw std::runtime_error("cannot open '" + r->file + "'");
        reader.receive(file_range(r->file, r->first, r->last));
    }
    for (const auto& w : reader.warnings()) std::cerr << "warning: " << w << "\n";
    if (reader.failed()) throw std::runtime_error(reader.error());
    return reader;
}

}  // namespace

int cmd_weights(const std::vector<std::string>& paths, const Options& o) {
    const bool as_json = o.json;
    try {
        if (paths.empty()) throw std::runtime_error("weights needs FILE... (safetensors, model.safetensors.index.json, GGUF, or a folder)");
        const CheckpointHeaderReader reader = read_headers(paths);
        const CheckpointSummary& all = reader.summary();
        const std::int64_t index_total = reader.index_total_size();
        if (index_total > 0 && index_total != all.total_bytes)
            std::cerr << "warning: the index's metadata.total_size is " << index_total << " B but the shard headers sum to "
                      << all.total_bytes << " B (the headers are what loads)\n";
        if (as_json) {
            nlohmann::json by = nlohmann::json::object();
            for (const auto& [d, b] : all.bytes_by_dtype) by[d] = {{"bytes", b}, {"elements", all.elements_by_dtype.at(d)}};
            std::cout << nlohmann::json{{"format", all.format}, {"files", all.files}, {"tensors", all.tensors.size()}, {"architecture", all.architecture}, {"header_bytes", all.header_bytes}, {"by_dtype", by}, {"checkpoint_bytes", all.total_bytes}}.dump(2) << "\n";
            return 0;
        }
        std::printf("%s: %d file(s), %zu tensors, headers %lld B%s%s\n", all.format.c_str(), all.files, all.tensors.size(),
                    static_cast<long long>(all.header_bytes), all.architecture.empty() ? "" : ", architecture ", all.architecture.c_str());
        std::printf("%-10s %16s %20s %12s\n", "dtype", "elements", "bytes", "GiB");
        for (const auto& [d, b] : all.bytes_by_dtype)
            std::printf("%-10s %16lld %20lld %12.3f\n", d.c_str(), static_cast<long long>(all.elements_by_dtype.at(d)),
                        static_cast<long long>(b), static_cast<double>(b) / kGiB);
        std::printf("%-10s %16s %20lld %12.3f\n", "total", "", static_cast<long long>(all.total_bytes), static_cast<double>(all.total_bytes) / kGiB);
        std::printf("\nIn a scenario: \"checkpoint_bytes\": %lld\n", static_cast<long long>(all.total_bytes));
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
}

}  // namespace vramcalc::cli
