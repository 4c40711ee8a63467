#include "collectives/Ring.hpp"

#include <algorithm>
#include <vector>

namespace clearfog::collectives {
namespace {

/// `steps` steps in which every member sends `step_bytes` to its successor, worked in loops of
/// chunks when chunking applies (see Ring.hpp).
Schedule ring_steps(int p, int steps, double step_bytes, double chunk_B, bool compact) {
  Schedule s(p);
  if (p < 2) return s;
  const int loops = chunk_count(step_bytes, chunk_B);
  if (compact) {
    // The fluid plan needs only what each member sends its successor in total and how many
    // rounds that takes: O(p) messages instead of O(p * steps * loops).
    for (int i = 0; i < p; ++i) s.send(i, (i + 1) % p, steps * step_bytes, 0);
    s.stretch_to(loops - 1 + steps);
    return s;
  }
  const double chunk = step_bytes / loops;
  for (int loop = 0; loop < loops; ++loop)
    for (int step = 0; step < steps; ++step)
      for (int i = 0; i < p; ++i) s.send(i, (i + 1) % p, chunk, loop + step);
  return s;
}

/// Chunks of `bytes` flowing along chain[0] -> chain[1] -> … : chunk j crosses hop h in round j + h.
Schedule chain(int p, const std::vector<int>& order, double bytes, double chunk_B) {
  Schedule s(p);
  if (p < 2) return s;
  const int chunks = chunk_count(bytes, chunk_B);
  const double chunk = bytes / chunks;
  for (int j = 0; j < chunks; ++j)
    for (int hop = 0; hop + 1 < p; ++hop) s.send(order[hop], order[hop + 1], chunk, j + hop);
  return s;
}

}  // namespace

Schedule ring_all_reduce_schedule(int p, double bytes, double chunk_B, bool compact) {
  return ring_steps(p, 2 * (p - 1), bytes / std::max(p, 1), chunk_B, compact);
}

Schedule ring_reduce_scatter_schedule(int p, double bytes, double chunk_B, bool compact) {
  return ring_steps(p, p - 1, bytes / std::max(p, 1), chunk_B, compact);
}

Schedule ring_all_gather_schedule(int p, double bytes, double chunk_B, bool compact) {
  return ring_steps(p, p - 1, bytes / std::max(p, 1), chunk_B, compact);
}

Schedule ring_broadcast_schedule(int p, int root, double bytes, double chunk_B) {
  std::vector<int> order(p);
  for (int h = 0; h < p; ++h) order[h] = (root + h) % p;  // from the root along the ring
  return chain(p, order, bytes, chunk_B);
}

Schedule ring_reduce_schedule(int p, int root, double bytes, double chunk_B) {
  std::vector<int> order(p);
  for (int h = 0; h < p; ++h) order[h] = (root + 1 + h) % p;  // from the root's successor, ending at the root
  return chain(p, order, bytes, chunk_B);
}

}  // namespace clearfog::collectives
