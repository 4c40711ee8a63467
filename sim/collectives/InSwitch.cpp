#include "collectives/InSwitch.hpp"

namespace clearfog::collectives {

Schedule in_switch_all_reduce_schedule(int p, double bytes, double chunk_B) {
  const int sw = p;
  Schedule s(p + 1);
  if (p < 2) return s;
  const int chunks = chunk_count(bytes, chunk_B);
  const double chunk = bytes / chunks;
  for (int j = 0; j < chunks; ++j)
    for (int i = 0; i < p; ++i) {
      s.send(i, sw, chunk, j);
      s.send(sw, i, chunk, j + 1);
    }
  return s;
}

}  // namespace clearfog::collectives
