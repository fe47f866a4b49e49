// Internal: the one search every solver uses. Memory is non-decreasing in the value searched (batch,
// sequence length, context), so the largest value that fits is found by galloping up from a value known
// to fit and bisecting the last step.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>

namespace vramcalc::detail {

// Largest n in [1, cap] with fits(n); 0 when fits(1) is false. `known` is a value already known to fit
// (0 if none): the next larger GPU of a catalog starts from the previous GPU's answer.
template <class Fits>
std::int64_t largest_fitting(std::int64_t cap, Fits fits, std::int64_t known = 0) {
    std::int64_t lo = std::min(known, cap), step = 1;
    if (lo <= 0) {
        if (cap < 1 || !fits(1)) return 0;
        lo = 1;
    }
    std::int64_t hi = cap + 1;  // first value known not to fit (cap + 1: none known)
    while (lo < cap) {
        const std::int64_t next = std::min(cap, lo + step);
        if (!fits(next)) {
            hi = next;
            break;
        }
        lo = next;
        step *= 2;
    }
    if (lo == cap) return cap;
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

// The same answer for a non-decreasing cost (bytes) against a budget, for one budget or many: the costs
// visited are kept, so the GPUs of a catalog share them, and each probe interpolates between the nearest
// known costs around the budget (extrapolates from the last two when no known cost exceeds it). Memory is
// close to linear in the batch and the length, so a search usually needs two new probes (the answer and
// the one above it). Whenever a probe fails to halve a closed interval, the next one bisects, so a search
// never takes more than about twice the probes of plain bisection; above the known points, extrapolation
// turns into galloping after eight probes in a row that fall short.
template <class Cost>
class CostTable {
public:
    explicit CostTable(Cost cost) : cost_(std::move(cost)) {}

    // Largest n in [1, cap] with cost(n) <= budget; 0 when cost(1) exceeds it.
    std::int64_t largest_within(double budget, std::int64_t cap) {
        if (cap < 1) return 0;
        std::int64_t lo = 0, hi = cap + 1;  // largest known to fit (0: none), smallest known not to (cap + 1: none)
        for (const auto& [n, bytes] : known_) {
            if (n > cap) break;
            if (static_cast<double>(bytes) <= budget) lo = n;
            else {
                hi = n;
                break;
            }
        }
        bool bisect = false;
        int open_fits = 0;  // probes in a row that fit while nothing above the budget was known
        while (hi - lo > 1) {
            const std::int64_t width = hi - lo;
            const bool open = !known_.count(hi);
            std::int64_t n = lo == 0 ? 1 : bisect ? lo + width / 2
                                                  : guess(lo, hi, budget, cap);
            if (open && open_fits >= 8) n = std::max(n, std::min(cap, 2 * lo));  // a stubborn undershoot: gallop
            const bool fits = static_cast<double>(at(n)) <= budget;
            (fits ? lo : hi) = n;
            open_fits = open && fits ? open_fits + 1 : 0;
            // A closed interval that a probe failed to halve is bisected next: never worse than about twice bisection.
            bisect = !open && !bisect && 2 * (hi - lo) > width;
        }
        return lo;
    }

private:
    std::int64_t at(std::int64_t n) {
        auto [it, fresh] = known_.try_emplace(n, 0);
        if (fresh) it->second = cost_(n);
        return it->second;
    }
    // Where the straight line through the nearest known costs crosses the budget, strictly inside (lo, hi).
    std::int64_t guess(std::int64_t lo, std::int64_t hi, double budget, std::int64_t cap) const {
        auto l = known_.find(lo), h = known_.find(hi);
        if (h == known_.end()) {  // nothing above the budget known yet: extrapolate, or gallop from the first point
            if (l == known_.begin()) return std::min(cap, 2 * lo);
            h = l;
            l = std::prev(l);
        }
        const double n0 = static_cast<double>(l->first), c0 = static_cast<double>(l->second);
        const double n1 = static_cast<double>(h->first), c1 = static_cast<double>(h->second);
        const double at_budget = c1 > c0 ? n0 + (budget - c0) * (n1 - n0) / (c1 - c0) : static_cast<double>(cap);
        const double clamped = std::clamp(std::floor(at_budget), static_cast<double>(lo + 1), static_cast<double>(hi - 1));
        return static_cast<std::int64_t>(clamped);
    }

    Cost cost_;
    std::map<std::int64_t, std::int64_t> known_;
};

}  // namespace vramcalc::detail
