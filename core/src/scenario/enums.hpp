// Internal: the JSON spelling of every scenario enum (shared/spec/scenario.md), one table per enum
// (enums.cpp), and the typed reads and writes built on them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "formats/weight_format_table.hpp"  // weight_format_names: the allowed `weights` values
#include "io/json_reader.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

template <class E>
using EnumTable = std::vector<std::pair<E, const char*>>;

template <class E>
const EnumTable<E>& enum_table();
template <>
const EnumTable<Workload>& enum_table();
template <>
const EnumTable<Framework>& enum_table();
template <>
const EnumTable<Method>& enum_table();
template <>
const EnumTable<Precision>& enum_table();
template <>
const EnumTable<Optimizer>& enum_table();
template <>
const EnumTable<Quantization>& enum_table();
template <>
const EnumTable<Checkpointing>& enum_table();
template <>
const EnumTable<Attention>& enum_table();
template <>
const EnumTable<Loss>& enum_table();
template <>
const EnumTable<Sharding>& enum_table();
template <>
const EnumTable<Offload>& enum_table();
template <>
const EnumTable<KvDtype>& enum_table();
template <>
const EnumTable<RlhfAlgorithm>& enum_table();
template <>
const EnumTable<RolloutEngine>& enum_table();
template <>
const EnumTable<VllmSampler>& enum_table();
template <>
const EnumTable<RocmLoadMeasure>& enum_table();
template <>
const EnumTable<HfCache>& enum_table();
template <>
const EnumTable<LoadDtype>& enum_table();
template <>
const EnumTable<AdamwImpl>& enum_table();
template <>
const EnumTable<Float8>& enum_table();

template <class E>
const char* enum_name(E v) {
    for (const auto& [e, n] : enum_table<E>())
        if (e == v) return n;
    return "?";
}

template <class E>
std::vector<std::string> enum_names() {
    std::vector<std::string> v;
    for (const auto& [e, n] : enum_table<E>()) v.emplace_back(n);
    return v;
}

// "a, b, c": the allowed values in an error message.
std::string join_names(const std::vector<std::string>& names);

// The value of `key` in `obj`, or `fallback` when absent; an unknown name is an error naming the allowed ones.
template <class E>
E read_enum(FieldReader& r, const json& obj, std::string_view key, E fallback) {
    if (!r.has(key)) return fallback;
    const json& v = obj.at(std::string(key));
    if (v.is_string())
        for (const auto& [e, n] : enum_table<E>())
            if (v.get<std::string>() == n) return e;
    r.error(key, "got " + describe(v) + ", allowed: " + join_names(enum_names<E>()));
    return fallback;
}

// The value `obj[key]` names, or `fallback` (no error: for looking ahead at workload and framework).
template <class E>
E peek_enum(const json& obj, const char* key, E fallback) {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) return fallback;
    for (const auto& [e, n] : enum_table<E>())
        if (it->template get<std::string>() == n) return e;
    return fallback;
}

}  // namespace vramcalc::detail
