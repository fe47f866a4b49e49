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

std::int64_t CachingAllocator::add_block(const Block& b) {
    blocks_.push_back(b);
    return next_id_++;
}

CachingAllocator::Key CachingAllocator::key(std::int64_t id) const {
    const Block& b = at(id);
    return {b.size, b.segment, b.offset, id};
}
void CachingAllocator::pool_add(std::int64_t id) {
    Block& b = at(id);
    auto& pool = pools_[b.small ? 1 : 0];
    if (spare_.empty()) {
        pool.insert(key(id));
    } else {
        auto node = spare_.extract(spare_.begin());
        node.value() = key(id);
        pool.insert(std::move(node));
    }
    b.whole = b.prev == 0 && b.next == 0;
    if (b.whole) whole_free_bytes_ += b.size;
}
void CachingAllocator::pool_remove(std::int64_t id) {
    Block& b = at(id);
    spare_.insert(pools_[b.small ? 1 : 0].extract(key(id)));
    if (b.whole) whole_free_bytes_ -= b.size;
    b.whole = false;
}

// Best fit: the smallest free block of the pool that holds the request (get_free_block's lower_bound).
CachingAllocator::Handle CachingAllocator::malloc(std::int64_t bytes) {
    const std::int64_t size = round_size(bytes);
    const bool small = size <= kSmallSize;
    auto& pool = pools_[small ? 1 : 0];
    std::int64_t id = 0;
    const auto it = pool.lower_bound(Key{size, -1, -1, -1});
    if (it != pool.end()) {
        id = it->id;
        pool_remove(id);
    } else {
        const std::int64_t seg = segment_size(size);
        id = add_block(Block{++segments_, 0, seg, small, true, 0, 0});
        reserved_ += seg;
    }
    const std::int64_t rest = at(id).size - size;
    if ((small && rest >= kMinBlockSize) || (!small && rest > kSmallSize)) {
        const Block& b = at(id);
        const std::int64_t nid = add_block(Block{b.segment, b.offset + size, rest, small, true, id, b.next});  // may move blocks_
        if (at(id).next) at(at(id).next).prev = nid;
        at(id).next = nid;
        at(id).size = size;
        pool_add(nid);
    }
    at(id).free = false;
    allocated_ += at(id).size;
    return id;
}

// `gone`, a free neighbour, joins `keep` (free_block's try_merge_blocks).
void CachingAllocator::merge_into(std::int64_t keep, std::int64_t gone) {
    pool_remove(gone);
    Block& k = at(keep);
    Block& g = at(gone);
    if (k.prev == gone) {
        k.offset = g.offset;
        k.prev = g.prev;
        if (g.prev) at(g.prev).next = keep;
    } else {
        k.next = g.next;
        if (g.next) at(g.next).prev = keep;
    }
    k.size += g.size;
    g = Block{};
    g.gone = true;
}

void CachingAllocator::free(Handle id) {
    if (id <= 0 || id >= next_id_ || at(id).gone || at(id).free) return;
    at(id).free = true;
    allocated_ -= at(id).size;
    for (const std::int64_t n : {at(id).prev, at(id).next})
        if (n && at(n).free) merge_into(id, n);
    pool_add(id);
}

// Only blocks that are a whole segment can be released: the free ones marked `whole` as they entered a pool.
void CachingAllocator::empty_cache() {
    for (std::int64_t id = 1; id < next_id_; ++id)
        if (at(id).whole) {
            reserved_ -= at(id).size;
            pool_remove(id);
            at(id) = Block{};
            at(id).gone = true;
        }
}

}  // namespace vramcalc::detail
