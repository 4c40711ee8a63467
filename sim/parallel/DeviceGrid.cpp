#include "parallel/DeviceGrid.hpp"

namespace clearfog::parallel {
namespace {

int axis_index(config::ParallelAxis a) { return static_cast<int>(a); }

}  // namespace

DeviceGrid::DeviceGrid(const config::ParallelismSpec& par) {
  sizes_ = {par.tp, par.pp, par.dp};
  int stride = 1;
  for (const config::ParallelAxis a : par.order) {
    strides_[axis_index(a)] = stride;
    stride *= sizes_[axis_index(a)];
  }
}

int DeviceGrid::rank(int dp_index, int pp_index, int tp_index) const {
  return tp_index * strides_[0] + pp_index * strides_[1] + dp_index * strides_[2];
}

std::array<int, 3> DeviceGrid::coordinates(int r) const {
  std::array<int, 3> c{};
  for (int a = 0; a < 3; ++a) c[a] = (r / strides_[a]) % sizes_[a];
  return {c[2], c[1], c[0]};
}

std::vector<int> DeviceGrid::tensor_group(int dp_index, int pp_index) const {
  std::vector<int> g;
  for (int t = 0; t < sizes_[0]; ++t) g.push_back(rank(dp_index, pp_index, t));
  return g;
}

std::vector<int> DeviceGrid::data_group(int pp_index, int tp_index) const {
  std::vector<int> g;
  for (int d = 0; d < sizes_[2]; ++d) g.push_back(rank(d, pp_index, tp_index));
  return g;
}

std::vector<int> DeviceGrid::expert_group(int dp_index, int pp_index, int tp_index, int ep) const {
  std::vector<int> g;
  const int first = dp_index - dp_index % ep;
  for (int d = first; d < first + ep; ++d) g.push_back(rank(d, pp_index, tp_index));
  return g;
}

std::vector<int> DeviceGrid::expert_data_group(int dp_index, int pp_index, int tp_index, int ep) const {
  std::vector<int> g;
  for (int d = dp_index % ep; d < sizes_[2]; d += ep) g.push_back(rank(d, pp_index, tp_index));
  return g;
}

}  // namespace clearfog::parallel
