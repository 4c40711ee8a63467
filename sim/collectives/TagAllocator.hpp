#pragma once
// Message tags: a send matches the receive with the same (source, destination, tag), so every
// collective appended to one plan draws its tags from one allocator and never reuses one.
#include <cstdint>

namespace clearfog::collectives {

/// Hands out message tags that never repeat within a plan.
class TagAllocator {
public:
  /// A block of `count` fresh tags; returns the first.
  std::uint64_t allocate(std::uint64_t count) {
    const std::uint64_t first = next_;
    next_ += count;
    return first;
  }

private:
  std::uint64_t next_ = 0;
};

}  // namespace clearfog::collectives
