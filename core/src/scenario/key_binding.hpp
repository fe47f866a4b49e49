// Internal: how a row of the key table (keys.cpp, keys_inference.cpp) reaches its Scenario member: the typed
// read, write and at-default comparison of one member, and the ranges the rows share.
#pragma once

#include <type_traits>

#include "enums.hpp"
#include "rows.hpp"

namespace vramcalc::detail {

using W = KeyWorkload;
using T = KeyType;

template <class P>
struct member_of;
template <class V>
struct member_of<V Scenario::*> { using type = V; };
template <auto M>
using member_t = typename member_of<decltype(M)>::type;

template <auto M>
void read_member(ReadContext& c, const ScenarioKey& k) {
    using V = member_t<M>;
    V& v = c.s.*M;
    if constexpr (std::is_same_v<V, std::int64_t>) v = read_integer(c.r, k.name, v);
    else if constexpr (std::is_same_v<V, double>) v = read_number(c.r, k.name, v);
    else if constexpr (std::is_same_v<V, bool>) v = c.r.boolean_or(k.name, v);
    else v = read_enum(c.r, c.doc, k.name, v);
}

template <auto M>
void write_member(const Scenario& s, json& out, const ScenarioKey& k) {
    if constexpr (std::is_enum_v<member_t<M>>) out[std::string(k.name)] = enum_name(s.*M);
    else out[std::string(k.name)] = s.*M;
}

template <auto M>
inline bool same_member(const Scenario& s, const Scenario& d) { return s.*M == d.*M; }

// A key stored in one Scenario member of type int64, double, bool or an enum.
template <auto M>
constexpr KeyBinding member() {
    KeyBinding b{&read_member<M>, &write_member<M>, &same_member<M>, nullptr};
    if constexpr (std::is_enum_v<member_t<M>>) b.values = &enum_names<member_t<M>>;
    return b;
}

template <auto M>
constexpr KeyBinding special(void (*read)(ReadContext&, const ScenarioKey&),
                             void (*write)(const Scenario&, json&, const ScenarioKey&) = &write_member<M>) {
    KeyBinding b = member<M>();
    b.read = read;
    b.write = write;
    return b;
}

inline std::vector<std::string> weights_values() { return weight_format_names(); }
inline std::vector<std::string> placement_values() { return {"colocated", "separate"}; }
inline std::vector<std::string> rlhf_algorithm_values() { return enum_names<RlhfAlgorithm>(); }
inline std::vector<std::string> rollout_engine_values() { return enum_names<RolloutEngine>(); }
inline bool always(const Scenario&, const Scenario&) { return false; }  // never "at its default": always written
inline bool no_rlhf(const Scenario& s, const Scenario&) { return s.rlhf.algorithm == RlhfAlgorithm::none; }
inline bool same_lora(const Scenario& s, const Scenario& d) { return s.lora == d.lora; }
inline bool same_weights(const Scenario& s, const Scenario& d) { return s.weights == d.weights; }

constexpr double kCount = static_cast<double>(kMaxCount);
constexpr double kTokens = static_cast<double>(kMaxTokens);
constexpr double kDegree = 4096;

// The inference keys' rows (keys_inference.cpp), in link order.
std::vector<KeyRow> inference_rows();

}  // namespace vramcalc::detail
