// Text rendering of bills, parameter breakdowns and validation reports for the terminal.
#pragma once

#include <string>

#include "vramcalc/bill.hpp"
#include "vramcalc/catalog.hpp"
#include "vramcalc/validate.hpp"

namespace vramcalc::cli {

std::string render_bill(const Bill& b);
std::string render_params(const std::string& name, const ModelSpec& m, const ParamBreakdown& p);
std::string render_validation(const ValidationReport& r);
std::string render_presets(const Catalog& c);

}  // namespace vramcalc::cli
