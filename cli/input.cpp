// Reading the CLI's inputs: files and stdin under the core's size limit, JSON through the checked
// parser, model arguments that are preset ids or paths; printing problems and warnings.
#include <filesystem>
#include <fstream>

#include "cli.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/presets.hpp"

namespace vramcalc::cli {

namespace vc = vramcalc;

// Every input the CLI reads (files, "-" for stdin, device files) stops at the core's one size limit:
// /dev/zero grew to GBs before std::bad_alloc, and 100 MB documents took seconds.
std::string read_file(const std::string& path) {
    std::error_code ec;
    if (path != "-" && std::filesystem::is_directory(path, ec))
        throw BadInput("'" + path + "' is a directory, expected a JSON file");
    std::ifstream file;
    if (path != "-") {
        file.open(path, std::ios::binary);
        if (!file) throw BadInput("cannot read file '" + path + "'");
    }
    std::istream& in = path == "-" ? std::cin : file;
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(in.gcount()));
        if (text.size() > vc::kMaxInputBytes)
            throw BadInput((path == "-" ? std::string("stdin") : "'" + path + "'") + " is over the input size limit, allowed: at most " +
                           std::to_string(vc::kMaxInputBytes) + " bytes (8 MiB)");
    }
    if (in.bad()) throw BadInput("cannot read '" + path + "' (a read error)");
    return text;
}

// JSON out: strings that came from the user are written even if they are not valid UTF-8.
std::string dump(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

void print_warnings(const std::vector<std::string>& warnings) {
    print_capped(warnings, "warning", [](const std::string& w) { return w; });
}

bool file_exists(const std::string& path) {
    std::ifstream f(path);
    return path == "-" || f.good();
}

json parse_json_file(const std::string& path) {
    std::string why;
    auto j = vc::parse_json_text(read_file(path), why);  // depth-limited, says what is wrong
    if (!j) throw BadInput(path + ": " + why);
    return std::move(*j);
}

const vc::Catalog& catalog() {
    const auto& c = vc::builtin_catalog();
    if (!c.ok()) throw std::runtime_error("built-in presets are broken:\n" + c.error_text());
    return *c;
}

// A model argument: a preset id stays a string; a path becomes the config object it holds (a preset
// file's "config" or a bare config.json).
json resolve_model_arg(const json& model) {
    if (!model.is_string()) return model;
    const std::string s = model.get<std::string>();
    if (catalog().find_model(s) || !file_exists(s)) return model;
    json j = parse_json_file(s);
    if (j.is_object() && j.contains("config") && !j.contains("model_type")) return j["config"];
    return j;
}

void print_problems(const std::vector<vc::Problem>& errors) {
    print_capped(errors, "error", [](const vc::Problem& p) { return p.text(); });
}

}  // namespace vramcalc::cli
