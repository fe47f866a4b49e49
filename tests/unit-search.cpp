// The one search behind every "largest that fits" answer (core/src/solvers/search.hpp): the interpolating
// CostTable must give exactly what gallop + bisect gives, for any non-decreasing cost, and share its
// visited points between budgets.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>

#include "solvers/search.hpp"

namespace {
namespace unit_search {  // the file's own names: the unit tests build in unity batches

using vramcalc::detail::CostTable;
using vramcalc::detail::largest_fitting;

namespace {

using CostFn = std::function<std::int64_t(std::int64_t)>;

struct Counted {
    CostFn cost;
    int* calls;
    std::int64_t operator()(std::int64_t n) const {
        ++*calls;
        return cost(n);
    }
};

}  // namespace

TEST_CASE("search: CostTable agrees with gallop + bisect on non-decreasing costs") {
    const std::int64_t cap = std::int64_t{1} << 24;
    std::mt19937_64 rng(7);
    const CostFn shapes[] = {
        [](std::int64_t n) { return 1000 + 37 * n; },                                                             // linear
        [](std::int64_t n) { return 5000 + 3 * n + n * n / 64; },                                                 // quadratic (eager scores)
        [](std::int64_t n) { return 100 * ((n + 127) / 128); },                                                   // steps (block rounding)
        [](std::int64_t n) { return static_cast<std::int64_t>(1e6 * std::log2(1.0 + static_cast<double>(n))); },  // concave
        [](std::int64_t n) { return n < 3000 ? 10 * n : 30000 + 1000 * (n - 3000); },                             // a kink
        [](std::int64_t) { return std::int64_t{42}; },                                                            // flat
    };
    for (const auto& shape : shapes) {
        int calls = 0;
        CostTable table(Counted{shape, &calls});
        for (int k = 0; k < 200; ++k) {
            const double budget = std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 24));
            const std::int64_t c = k % 3 == 0 ? cap : static_cast<std::int64_t>(1 + rng() % 100000);
            const std::int64_t expected = largest_fitting(c, [&](std::int64_t n) { return static_cast<double>(shape(n)) <= budget; });
            INFO("budget " << budget << " cap " << c);
            CHECK(table.largest_within(budget, c) == expected);
        }
    }
}

TEST_CASE("search: a linear cost needs about two new points per budget once the table has its first points") {
    int calls = 0;
    CostTable table(Counted{[](std::int64_t n) { return 7'000'000 + 123'457 * n; }, &calls});
    CHECK(table.largest_within(1e9, std::int64_t{1} << 24) == (1'000'000'000 - 7'000'000) / 123'457);
    const int first = calls;
    CHECK(first <= 8);
    for (int gib = 2; gib <= 41; ++gib) table.largest_within(static_cast<double>(gib) * 1e9, std::int64_t{1} << 24);
    CHECK(calls - first <= 2 * 40);
    CHECK(table.largest_within(0, 10) == 0);      // nothing fits
    CHECK(table.largest_within(1e18, 10) == 10);  // everything fits: the cap
}

}  // namespace unit_search
}  // namespace
