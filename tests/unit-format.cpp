// The one number formatter (core/src/common/format.cpp): no figure is ever cut short.
#include <catch2/catch.hpp>

#include <string>

#include "common/format.hpp"

namespace {
namespace unit_format {  // the file's own names: the unit tests build in unity batches

TEST_CASE("format: a figure longer than the formatter's stack buffer is printed whole") {
    const std::string huge = vramcalc::detail::whole(1e300);
    CHECK(huge.size() == 301);
    CHECK(huge.substr(0, 4) == "1000");
    CHECK(vramcalc::detail::whole(12345) == "12345");
    CHECK(vramcalc::detail::gib(1073741824.0) == "1.00 GiB");
}

}  // namespace unit_format
}  // namespace
