#include "collectives/HalvingDoubling.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

void require_power_of_two(int p, const char* what) {
  if (!is_power_of_two(p))
    throw Error(fmt::format("{} needs a power-of-two number of members, got {}", what, p));
}

}  // namespace

bool is_power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

Schedule halving_reduce_scatter_schedule(int p, double bytes) {
  require_power_of_two(p, "halving-doubling reduce_scatter");
  Schedule s(p);
  int round = 0;
  double share = bytes / 2;
  for (int distance = p / 2; distance >= 1; distance /= 2, share /= 2, ++round)
    for (int i = 0; i < p; ++i) s.send(i, i ^ distance, share, round);
  return s;
}

Schedule doubling_all_gather_schedule(int p, double bytes) {
  require_power_of_two(p, "halving-doubling all_gather");
  Schedule s(p);
  int round = 0;
  double held = bytes / p;
  for (int distance = 1; distance < p; distance *= 2, held *= 2, ++round)
    for (int i = 0; i < p; ++i) s.send(i, i ^ distance, held, round);
  return s;
}

Schedule halving_doubling_all_reduce_schedule(int p, double bytes) {
  Schedule s(p);
  if (p < 2) return s;
  int core = 1;
  while (core * 2 <= p) core *= 2;
  const int extra = p - core;
  // Core member j: the odd member of the j-th folded pair, then the members past the pairs.
  std::vector<int> core_members(core);
  for (int j = 0; j < core; ++j) core_members[j] = j < extra ? 2 * j + 1 : j + extra;

  Schedule fold_in(p), fold_out(p);
  for (int j = 0; j < extra; ++j) {
    fold_in.send(2 * j, 2 * j + 1, bytes, 0);
    fold_out.send(2 * j + 1, 2 * j, bytes, 0);
  }
  Schedule rabenseifner = halving_reduce_scatter_schedule(core, bytes);
  rabenseifner.then(doubling_all_gather_schedule(core, bytes));
  s.then(fold_in);
  s.then(rabenseifner.embedded(core_members, p));
  s.then(fold_out);
  return s;
}

}  // namespace clearfog::collectives
