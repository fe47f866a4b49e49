// Replays an allocation trace on vramcalc's model of PyTorch's caching allocator (core/src/runtime/caching_allocator.cpp).
// Trace lines on stdin: "m ID BYTES" (malloc), "f ID" (free), "p LABEL" (print the counters now).
// Build: g++ -std=c++20 -O2 -Icore/src tools/allocator_replay/replay.cpp core/src/runtime/caching_allocator.cpp -o /tmp/replay
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include "runtime/caching_allocator.hpp"
using namespace vramcalc::detail;
int main() {
    CachingAllocator a;
    std::map<long long, CachingAllocator::Handle> h;
    std::string op;
    long long peak_alloc = 0, peak_res = 0;
    while (std::cin >> op) {
        if (op == "m") {
            long long id, b;
            std::cin >> id >> b;
            h[id] = a.malloc(b);
        } else if (op == "f") {
            long long id;
            std::cin >> id;
            a.free(h.at(id));
            h.erase(id);
        } else if (op == "p") {
            std::string l;
            std::cin >> l;
            std::printf("%-20s alloc %.3f GiB  reserved %.3f GiB  peak alloc %.3f  peak res %.3f\n", l.c_str(), a.allocated() / 1073741824.0, a.reserved() / 1073741824.0, peak_alloc / 1073741824.0, peak_res / 1073741824.0);
        }
        if (a.allocated() > peak_alloc) peak_alloc = a.allocated();
        if (a.reserved() > peak_res) peak_res = a.reserved();
    }
    std::printf("final: peak allocated %.3f GiB, peak reserved %.3f GiB\n", peak_alloc / 1073741824.0, peak_res / 1073741824.0);
}
