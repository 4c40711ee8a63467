#include "report/ComputeBusy.hpp"

#include <algorithm>

namespace clearfog::report {

double ComputeBusy::exposed(int rank, double start, double end) {
  auto [it, added] = busy_.try_emplace(rank);
  if (added) it->second = intervals(rank);
  double covered = 0;
  const auto& v = it->second;
  auto i = std::lower_bound(v.begin(), v.end(), start, [](const auto& iv, double t) { return iv.second <= t; });
  for (; i != v.end() && i->first < end; ++i) covered += std::min(end, i->second) - std::max(start, i->first);
  return std::max(0.0, end - start - covered);
}

std::vector<std::pair<double, double>> ComputeBusy::intervals(int rank) const {
  std::vector<std::pair<double, double>> v;
  const auto& p = plan_.ranks[rank];
  for (program::OpIndex i = 0; i < p.size(); ++i) {
    if (p.stream(i) != program::Stream::Compute || p.kind(i) != program::OpKind::Compute) continue;
    const auto& t = result_.ops[rank][i];
    if (t.end_s > t.start_s) v.emplace_back(t.start_s, t.end_s);
  }
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace clearfog::report
