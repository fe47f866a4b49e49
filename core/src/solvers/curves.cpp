#include "vramcalc/curves.hpp"

#include <algorithm>

#include "vramcalc/estimate.hpp"

namespace vramcalc {
namespace {

std::vector<std::int64_t> doubling(std::int64_t lo, std::int64_t hi, std::int64_t own) {
    std::vector<std::int64_t> v;
    for (std::int64_t x = lo; x <= hi; x *= 2) v.push_back(x);
    if (own >= lo && own <= hi) v.push_back(own);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

}  // namespace

MemoryCurves memory_curves(const Scenario& s, const Bill& bill) {
    MemoryCurves c;
    c.train = s.workload == Workload::train;
    Scenario probe = s;
    const std::int64_t own_batch = c.train ? s.micro_batch : s.batch;
    const std::int64_t most = std::max<std::int64_t>(64, 2 * bill.max_micro_batch.value_or(bill.max_batch.value_or(1)));
    for (std::int64_t b : doubling(1, std::min<std::int64_t>(most, 1024), own_batch)) {
        (c.train ? probe.micro_batch : probe.batch) = b;
        c.by_batch.push_back({b, estimate_peak(probe).device_bytes, false});
    }
    if (s.model.stack) return c;  // a layer stack has a fixed input shape: no length axis
    probe = s;
    const std::int64_t own_len = c.train ? s.seq_len : s.prompt_len;
    const std::int64_t limit = s.model.max_positions;
    const std::int64_t longest = std::max<std::int64_t>({4096, limit, own_len});
    for (std::int64_t len : doubling(256, std::min<std::int64_t>(longest, 1 << 20), own_len)) {
        (c.train ? probe.seq_len : probe.prompt_len) = len;
        const std::int64_t total = c.train ? len : len + s.gen_len;
        c.by_length.push_back({len, estimate_peak(probe).device_bytes, limit > 0 && total > limit});
    }
    return c;
}

}  // namespace vramcalc
