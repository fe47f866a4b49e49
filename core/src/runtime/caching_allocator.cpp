#include "runtime/caching_allocator.hpp"

#include <vector>

namespace vramcalc::detail {

namespace {
// The constants of c10/cuda/CUDACachingAllocator.cpp: requests round up to 512 B; up to 1 MiB they come from
// the small pool's 2 MiB segments, up to 10 MiB from 20 MiB segments of the large pool, larger ones get a
// segment of their own rounded up to 2 MiB. A found block is split when what is left is usable: any 512 B in
// the small pool, more than 1 MiB in the large pool.
constexpr std::int64_t kMinBlockSize = 512;
constexpr std::int64_t kSmallSize = 1 << 20;
constexpr std::int64_t kSmallBuffer = 2 << 20;
constexpr std::int64_t kLargeBuffer = 20 << 20;
constexpr std::int64_t kMinLargeAlloc = 10 << 20;
constexpr std::int64_t kRoundLarge = 2 << 20;

std::int64_t round_size(std::int64_t n) {
    return n < kMinBlockSize ? kMinBlockSize : (n + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}
std::int64_t segment_size(std::int64_t n) {
    if (n <= kSmallSize) return kSmallBuffer;
    if (n < kMinLargeAlloc) return kLargeBuffer;
    return (n + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}
}  // namespace

CachingAllocator::Key CachingAllocator::key(std::int64_t id) const {
    const Block& b = blocks_.at(id);
    return {b.size, b.segment, b.offset, id};
}
void CachingAllocator::pool_add(std::int64_t id) {
    const Block& b = blocks_.at(id);
    pools_[b.small ? 1 : 0].insert(key(id));
    if (b.prev == 0 && b.next == 0 && whole_free_.insert(id).second) whole_free_bytes_ += b.size;
}
void CachingAllocator::pool_remove(std::int64_t id) {
    pools_[blocks_.at(id).small ? 1 : 0].erase(key(id));
    if (whole_free_.erase(id)) whole_free_bytes_ -= blocks_.at(id).size;
}

// Best fit: the smallest free block of the pool that holds the request (get_free_block's lower_bound).
CachingAllocator::Handle CachingAllocator::malloc(std::int64_t bytes) {
    const std::int64_t size = round_size(bytes);
    const bool small = size <= kSmallSize;
    auto& pool = pools_[small ? 1 : 0];
    std::int64_t id = 0;
    auto it = pool.lower_bound({size, -1, -1, -1});
    if (it != pool.end()) {
        id = std::get<3>(*it);
        pool_remove(id);
    } else {
        id = next_id_++;
        const std::int64_t seg = segment_size(size);
        blocks_[id] = Block{++segments_, 0, seg, small, true, 0, 0};
        reserved_ += seg;
    }
    Block& b = blocks_.at(id);  // std::map keeps references valid across the insertion below
    const std::int64_t rest = b.size - size;
    if ((small && rest >= kMinBlockSize) || (!small && rest > kSmallSize)) {
        const std::int64_t nid = next_id_++;
        blocks_[nid] = Block{b.segment, b.offset + size, rest, small, true, id, b.next};
        if (b.next) blocks_.at(b.next).prev = nid;
        b.next = nid;
        b.size = size;
        pool_add(nid);
    }
    b.free = false;
    allocated_ += b.size;
    return id;
}

// `gone`, a free neighbour, joins `keep` (free_block's try_merge_blocks).
void CachingAllocator::merge_into(std::int64_t keep, std::int64_t gone) {
    pool_remove(gone);
    Block& k = blocks_.at(keep);
    Block& g = blocks_.at(gone);
    if (k.prev == gone) {
        k.offset = g.offset;
        k.prev = g.prev;
        if (g.prev) blocks_.at(g.prev).next = keep;
    } else {
        k.next = g.next;
        if (g.next) blocks_.at(g.next).prev = keep;
    }
    k.size += g.size;
    blocks_.erase(gone);
}

void CachingAllocator::free(Handle id) {
    auto found = blocks_.find(id);
    if (found == blocks_.end() || found->second.free) return;
    found->second.free = true;
    allocated_ -= found->second.size;
    for (const std::int64_t n : {found->second.prev, found->second.next})
        if (n && blocks_.at(n).free) merge_into(id, n);
    pool_add(id);
}

// Only blocks that are a whole segment can be released; they are tracked as they enter and leave the pools.
void CachingAllocator::empty_cache() {
    for (const std::int64_t id : std::vector<std::int64_t>(whole_free_.begin(), whole_free_.end())) {
        const std::int64_t size = blocks_.at(id).size;
        pool_remove(id);
        reserved_ -= size;
        blocks_.erase(id);
    }
}

}  // namespace vramcalc::detail
