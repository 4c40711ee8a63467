#include "collectives/RingAllReduce.hpp"

#include <fmt/format.h>

#include "collectives/Collective.hpp"
#include "core/Errors.hpp"

namespace clearfog::collectives {

std::vector<RingStep> ring_all_reduce_steps(const std::vector<int>& ring, int position, double bytes) {
  const int p = static_cast<int>(ring.size());
  if (position < 0 || position >= p) throw Error(fmt::format("ring position {} outside 0..{}", position, p - 1));
  std::vector<RingStep> steps;
  if (p < 2) return steps;
  const double chunk = bytes / p;
  const int next = ring[(position + 1) % p];
  const int prev = ring[(position + p - 1) % p];
  steps.reserve(2 * (p - 1));
  for (int s = 0; s < 2 * (p - 1); ++s) steps.push_back(RingStep{next, prev, chunk, s < p - 1});
  return steps;
}

std::vector<program::OpIndex> append_ring_all_reduce(program::Plan& plan, const std::vector<int>& ring,
                                                     double bytes, program::Stream stream,
                                                     program::Category category, const std::string& name,
                                                     const std::vector<std::vector<program::OpIndex>>& deps,
                                                     TagAllocator& tags) {
  CollectiveRequest request;
  request.op = config::CollectiveOp::AllReduce;
  request.algorithm = config::CollectiveAlgorithm::Ring;
  request.ranks = ring;
  request.bytes = bytes;
  request.stream = stream;
  request.category = category;
  request.name = name;
  request.deps = deps;
  return append_collective(plan, request, tags);
}

}  // namespace clearfog::collectives
