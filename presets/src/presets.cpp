#include "vramcalc/presets.hpp"

namespace vramcalc {
namespace embedded {
const std::vector<std::string_view>& model_files();
std::string_view gpu_file();
}  // namespace embedded

const std::vector<std::string_view>& builtin_model_files() { return embedded::model_files(); }
std::string_view builtin_gpu_file() { return embedded::gpu_file(); }

const Result<Catalog>& builtin_catalog() {
    static const Result<Catalog> catalog = Catalog::parse(embedded::model_files(), embedded::gpu_file());
    return catalog;
}

}  // namespace vramcalc
