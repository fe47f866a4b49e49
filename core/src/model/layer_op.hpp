// Internal: one layer applied to its input, the state the rules of layer_ops.cpp (weights, norms, pools)
// and layer_ops_flow.cpp (activations, merges, attention, views) share.
#pragma once

#include "io/json_reader.hpp"
#include "model/layer_ops.hpp"

namespace vramcalc::detail {

struct Op {
    const json& j;
    const std::string& type;
    const std::string& name;
    const OpInput& in;
    const std::string& where;
    Problems& errors;
    FieldReader r{j, where, errors};
    OpResult out;

    bool fail(std::string message) {
        errors.push_back({where, type + " " + std::move(message)});
        return false;
    }

    i64 elems(const Shape& s) const { return numel(s).value_or(kMaxDimension * kMaxDimension); }

    double in_elems() const { return static_cast<double>(elems(in.shape)); }
    std::optional<Shape> sizes(std::string_view key, std::size_t n, i64 fallback, i64 lo, bool required = false);
    void param(ParamCategory c, Role role, std::string leaf, i64 rows, i64 cols, bool bias, bool linear);
    bool check_in(std::string_view key, i64 actual, const char* what);
    bool linear();
    bool conv(std::size_t n, bool transposed);
    bool batch_norm();
    bool layer_norm();
    bool group_norm();
    bool embedding();
    bool pool(bool max, bool adaptive);
    bool activation();
    bool dropout();
    bool merge(bool add);
    bool mul();
    bool attention();
    bool geglu();
    bool to_grid();
    bool upsample();
    bool vit_piece();
    bool flatten();
    bool run();
};

}  // namespace vramcalc::detail
