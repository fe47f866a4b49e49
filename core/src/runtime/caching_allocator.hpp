#pragma once
// A replay model of PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp, also HIP's on ROCm) with
// its default settings: one stream, no expandable segments, max_split_size unlimited. It answers one question:
// after a sequence of allocations, frees and empty_cache() calls, how many bytes are reserved from the device
// and how many are handed out? vLLM's ROCm weight post-processing (inference/rocm_loading.cpp) is replayed on
// it, because ROCm builds of vLLM logged reserved-plus-cached memory as "Model loading took".
#include <cstdint>
#include <set>
#include <vector>

namespace vramcalc::detail {

class CachingAllocator {
public:
    using Handle = std::int64_t;

    Handle malloc(std::int64_t bytes);
    void free(Handle h);
    void empty_cache();  // releases every cached segment that no live block uses

    std::int64_t reserved() const { return reserved_; }
    // Reserved bytes in segments that hold at least one live block (what empty_cache() cannot give back).
    std::int64_t pinned() const { return reserved_ - whole_free_bytes_; }
    std::int64_t allocated() const { return allocated_; }

private:
    struct Block {
        std::int64_t segment = 0, offset = 0, size = 0;
        bool small = false, free = true;
        std::int64_t prev = 0, next = 0;  // neighbouring blocks of the same segment (0: none)
        bool gone = false;                // merged into a neighbour or released
        bool whole = false;               // free, and the whole of its segment (what empty_cache() releases)
    };
    Block& at(std::int64_t id) { return blocks_[static_cast<std::size_t>(id)]; }
    const Block& at(std::int64_t id) const { return blocks_[static_cast<std::size_t>(id)]; }
    std::int64_t add_block(const Block& b);
    // A free block as its pool orders it: best fit by size, then the lowest address (get_free_block's
    // lower_bound over a std::set of blocks ordered by stream, size and address).
    struct Key {
        std::int64_t size, segment, offset, id;
        friend bool operator<(const Key& a, const Key& b) {
            if (a.size != b.size) return a.size < b.size;
            if (a.segment != b.segment) return a.segment < b.segment;
            if (a.offset != b.offset) return a.offset < b.offset;
            return a.id < b.id;
        }
    };
    Key key(std::int64_t id) const;
    void pool_add(std::int64_t id);
    void pool_remove(std::int64_t id);
    void merge_into(std::int64_t keep, std::int64_t gone);

    std::vector<Block> blocks_{Block{}};  // by id (ids are never reused; 0 is no block)
    std::set<Key> pools_[2];              // free blocks: [0] large pool, [1] small pool
    // The nodes of keys that left a pool, reused by the next key that enters one. A replay moves blocks in and out
    // of the pools millions of times: allocating a node for each was half of an estimate's time. (A sorted or an
    // unordered vector instead was slower under the sanitizer build: its memmove goes byte by byte, and its
    // coverage hooks are called on every comparison of a linear scan.)
    std::set<Key> spare_;  // of the pools' type, not a vector of node handles: less code in the page's wasm
    std::int64_t next_id_ = 1, segments_ = 0;
    std::int64_t reserved_ = 0, allocated_ = 0, whole_free_bytes_ = 0;
};

}  // namespace vramcalc::detail
