#include "weights.hpp"

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

// The first `n` bytes of a file (fewer when it is shorter).
std::string leading_bytes(const fs::path& p, std::int64_t n) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open '" + p.string() + "'");
    std::string out(static_cast<std::size_t>(n), '\0');
    f.read(out.data(), n);
    out.resize(static_cast<std::size_t>(f.gcount()));
    return out;
}

// One checkpoint file: read 64 KiB, then as much as its header says it needs.
CheckpointSummary read_one(const fs::path& p) {
    std::string bytes = leading_bytes(p, 64 * 1024);
    for (int tries = 0; tries < 16; ++tries) {
        const std::int64_t need = checkpoint_header_bytes_needed(bytes);
        if (need <= static_cast<std::int64_t>(bytes.size())) break;
        const std::string more = leading_bytes(p, need);
        if (more.size() == bytes.size()) break;  // the file ends first: the reader says the header is cut short
        bytes = more;
    }
    auto r = read_checkpoint_header(bytes);
    for (const auto& w : r.warnings) std::cerr << "warning: " << p.string() << ": " << w << "\n";
    if (!r.ok()) throw std::runtime_error(p.string() + ": " + r.error_text());
    return *r;
}

// The files a path names: an index (its shards), a folder (its index, else its .safetensors/.gguf files), a file.
std::vector<fs::path> files_of(const fs::path& p, std::int64_t& index_total) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
        if (fs::exists(p / "model.safetensors.index.json")) return files_of(p / "model.safetensors.index.json", index_total);
        std::vector<fs::path> out;
        for (const auto& e : fs::directory_iterator(p))
            if (e.path().extension() == ".safetensors" || e.path().extension() == ".gguf") out.push_back(e.path());
        std::sort(out.begin(), out.end());
        if (out.empty()) throw std::runtime_error("'" + p.string() + "' holds no model.safetensors.index.json, .safetensors or .gguf file");
        return out;
    }
    if (p.filename().string().size() > 11 && p.filename().string().ends_with(".index.json")) {
        std::ifstream f(p);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        auto ix = read_safetensors_index(text);
        if (!ix.ok()) throw std::runtime_error(p.string() + ": " + ix.error_text());
        index_total += ix->total_size;
        std::vector<fs::path> out;
        for (const auto& s : ix->shards) out.push_back(p.parent_path() / s);
        return out;
    }
    return {p};
}

}  // namespace

int cmd_weights(const std::vector<std::string>& paths, bool as_json) {
    try {
        if (paths.empty()) throw std::runtime_error("weights needs FILE... (safetensors, model.safetensors.index.json, GGUF, or a folder)");
        CheckpointSummary all;
        std::int64_t index_total = 0;
        for (const auto& arg : paths)
            for (const auto& f : files_of(arg, index_total)) all.merge(read_one(f));
        if (index_total > 0 && index_total != all.total_bytes)
            std::cerr << "warning: the index's metadata.total_size is " << index_total << " B but the shard headers sum to "
                      << all.total_bytes << " B (the headers are what loads)\n";
        if (as_json) {
            nlohmann::json by = nlohmann::json::object();
            for (const auto& [d, b] : all.bytes_by_dtype) by[d] = {{"bytes", b}, {"elements", all.elements_by_dtype.at(d)}};
            std::cout << nlohmann::json{{"format", all.format}, {"files", all.files}, {"tensors", all.tensors.size()},
                                        {"architecture", all.architecture}, {"header_bytes", all.header_bytes},
                                        {"by_dtype", by}, {"checkpoint_bytes", all.total_bytes}}.dump(2) << "\n";
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
