// The shared importer: applies rule tables, fills the scenario JSON and the report, types values.
#include <cctype>
#include <cstdlib>
#include <cmath>

#include "source.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/scenario_keys.hpp"

namespace vramcalc::imports {

std::string lower(std::string_view s) {
    std::string o(s);
    for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return o;
}

Importer::Importer(std::string format, const Catalog& catalog) : catalog_(catalog) {
    out_.scenario = json::object();
    out_.report.format = std::move(format);
}

namespace {

bool rule_matches(std::string_view rule, std::string_view key) {
    if (rule.size() > 2 && rule.substr(rule.size() - 2) == ".*") {
        const auto stem = rule.substr(0, rule.size() - 1);  // "profiler."
        return key.rfind(stem, 0) == 0 || key == rule.substr(0, rule.size() - 2);
    }
    return rule == key;
}

// "lora.rank" -> the json node scenario["lora"]["rank"], creating objects on the way.
json& node_at(json& root, const std::string& dotted) {
    json* n = &root;
    std::size_t start = 0;
    while (true) {
        const auto dot = dotted.find('.', start);
        const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!n->is_object()) *n = json::object();
        n = &(*n)[part];
        if (dot == std::string::npos) return *n;
        start = dot + 1;
    }
}

bool node_exists(const json& root, const std::string& dotted) {
    const json* n = &root;
    std::size_t start = 0;
    while (true) {
        const auto dot = dotted.find('.', start);
        const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!n->is_object() || !n->contains(part)) return false;
        n = &(*n)[part];
        if (dot == std::string::npos) return true;
        start = dot + 1;
    }
}

ImportedKey key_of(const Entry& e) { return {e.key, e.kind == Entry::Kind::list ? "[list]" : e.value, e.line, "", ""}; }

}  // namespace

bool has_key(std::span<const Entry> es, std::string_view key) {
    for (const auto& e : es) {
        const std::string_view k = e.key;
        if (k.substr(0, key.size()) == key && (k.size() == key.size() || k[key.size()] == '.')) return true;
    }
    return false;
}

bool has_any(std::span<const Entry> es, std::initializer_list<std::string_view> keys) {
    for (auto k : keys)
        if (has_key(es, k)) return true;
    return false;
}

void Importer::apply(std::span<const Entry> entries, std::initializer_list<std::span<const Rule>> tables) {
    for (const Entry& e : entries) {
        const Rule* hit = nullptr;
        for (auto table : tables) {
            for (const Rule& r : table)
                if (rule_matches(r.key, e.key)) {
                    hit = &r;
                    break;
                }
            if (hit) break;
        }
        if (e.repeated_at > 0) {  // argparse, llama.cpp's parser, PyYAML and json all keep the last value
            ignore(e, "repeated: the value on line " + std::to_string(e.repeated_at) + " counts (the last one wins)");
            warn(e, "written again on line " + std::to_string(e.repeated_at) + ", which counts (the last one wins)");
            continue;
        }
        if (!hit) out_.report.unknown.push_back(key_of(e));
        else if (hit->handler) hit->handler(*this, e);
        else ignore(e, hit->why);
    }
}

void Importer::set(const std::string& target, json value, const Entry& e, std::string note) {
    const ScenarioKey* row = find_scenario_key(target);
    if (row && (row->type == KeyType::integer || row->type == KeyType::number) && value.is_number() &&
        (value.get<double>() < row->min || value.get<double>() > row->max)) {
        auto text = [&](double v) { return row->type == KeyType::integer ? std::to_string(static_cast<std::int64_t>(v)) : json(v).dump(); };
        const std::string range = text(row->min) + " to " + text(row->max);
        ignore(e, "out of range for " + target + " (allowed: " + range + "): not used");
        warn(e, value.dump() + " is out of range for " + target + " (allowed: " + range + "): not used");
        return;
    }
    node_at(out_.scenario, target) = std::move(value);
    ImportedKey k = key_of(e);
    k.target = target;
    k.note = std::move(note);
    out_.report.read.push_back(std::move(k));
}

void Importer::set_default(const std::string& target, json value, const std::string& why) {
    node_at(out_.scenario, target) = value;
    out_.report.notes.push_back(target + " = " + value.dump() + ": " + why);
}

void Importer::ignore(const Entry& e, std::string why) {
    ImportedKey k = key_of(e);
    k.note = std::move(why);
    out_.report.ignored.push_back(std::move(k));
}

std::array<std::size_t, 3> Importer::report_sizes() const {
    return {out_.report.read.size(), out_.report.ignored.size(), out_.report.unknown.size()};
}

void Importer::prefix_keys_since(const std::array<std::size_t, 3>& sizes, const std::string& prefix) {
    std::vector<ImportedKey>* lists[] = {&out_.report.read, &out_.report.ignored, &out_.report.unknown};
    for (std::size_t l = 0; l < 3; ++l)
        for (std::size_t k = sizes[l]; k < lists[l]->size(); ++k) (*lists[l])[k].key = prefix + (*lists[l])[k].key;
}

bool Importer::has(const std::string& target) const { return node_exists(out_.scenario, target); }

std::string where(const Entry& e) { return "line " + std::to_string(e.line) + ", key " + e.key; }

void Importer::error(const Entry& e, const std::string& expected) {
    errors_.push_back({where(e), "got '" + e.value + "', expected " + expected});
}

void Importer::note(std::string text) { out_.report.notes.push_back(std::move(text)); }

void Importer::warn(const Entry& e, const std::string& text) {
    warnings_.push_back(where(e) + ": " + text);
    note("warning: " + warnings_.back());
}

void Importer::refuse(const Entry& e, const std::string& why) { errors_.push_back({where(e), "got '" + e.value + "': " + why}); }

namespace {

std::optional<double> parse_number(const std::string& t) {
    // strtod, not from_chars: Emscripten 3.1.6's libc++ has no floating-point from_chars.
    if (t.empty() || std::isspace(static_cast<unsigned char>(t[0]))) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

}  // namespace

std::optional<std::int64_t> Importer::integer(const Entry& e) {
    // 1e9 and 3.0 are integers written as floats (DeepSpeed bucket sizes, YAML exponents).
    const auto d = parse_number(e.value);
    if (d && std::floor(*d) == *d && std::fabs(*d) < 9e18) return static_cast<std::int64_t>(*d);
    error(e, "an integer");
    return std::nullopt;
}

std::optional<double> Importer::number(const Entry& e) {
    const auto d = parse_number(e.value);
    if (!d) error(e, "a number");
    return d;
}

std::optional<bool> Importer::boolean(const Entry& e) {
    if (!e.has_value) return true;  // a command-line switch: present means on
    const std::string v = lower(e.value);
    if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
    if (v == "false" || v == "no" || v == "off" || v == "0") return false;
    error(e, "true or false");
    return std::nullopt;
}

void Importer::model(const Entry& e, const std::string& name) {
    const std::string id = match_model_preset(name, catalog_);
    if (!id.empty()) {
        set("model", id, e, id == name ? "" : "the preset with this hub id or name");
        return;
    }
    ignore(e, "not a preset model");
    note("model \"" + name + "\" is not one of the presets: give the scenario a model (a preset id or its config.json)");
}

Result<Imported> Importer::finish() {
    Result<Imported> r;
    r.errors = errors_;
    r.warnings = warnings_;
    if (errors_.empty()) r.value = out_;
    return r;
}

json import_to_json_keys(const std::vector<ImportedKey>& keys) {
    json a = json::array();
    for (const auto& k : keys) {
        json o = {{"key", k.key}, {"value", k.value}, {"line", k.line}};
        if (!k.target.empty()) o["target"] = k.target;
        if (!k.note.empty()) o["note"] = k.note;
        a.push_back(std::move(o));
    }
    return a;
}

}  // namespace vramcalc::imports

namespace vramcalc {

nlohmann::json import_to_json(const Imported& im) {
    return {{"format", im.report.format},
            {"scenario", im.scenario},
            {"read", imports::import_to_json_keys(im.report.read)},
            {"ignored", imports::import_to_json_keys(im.report.ignored)},
            {"unknown", imports::import_to_json_keys(im.report.unknown)},
            {"notes", im.report.notes}};
}

nlohmann::json import_answer(const Result<Imported>& r) {
    if (r.ok()) {
        nlohmann::json j = import_to_json(*r);
        j["ok"] = true;
        return j;
    }
    return {{"ok", false}, {"errors", problems_to_json(r.errors)}};
}

}  // namespace vramcalc
