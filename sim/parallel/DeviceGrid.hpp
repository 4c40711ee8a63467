#pragma once
// The device grid of 3D parallelism: which rank holds each (data, pipeline, tensor) coordinate.
#include <array>
#include <vector>

#include "config/ScenarioSpec.hpp"

namespace clearfog::parallel {

/// Where each (dp, pp, tp) coordinate lives: rank = sum of index x stride, parallelism.order[0]
/// varying fastest.
class DeviceGrid {
public:
  explicit DeviceGrid(const config::ParallelismSpec& parallelism);
  [[nodiscard]] int rank(int dp_index, int pp_index, int tp_index) const;
  [[nodiscard]] std::array<int, 3> coordinates(int rank) const;  // {dp, pp, tp}
  [[nodiscard]] int size() const { return sizes_[0] * sizes_[1] * sizes_[2]; }
  /// Members of the tensor group of (d, s), the data group of (s, t), in index order.
  [[nodiscard]] std::vector<int> tensor_group(int dp_index, int pp_index) const;
  [[nodiscard]] std::vector<int> data_group(int pp_index, int tp_index) const;
  /// Expert parallelism carves groups of `ep` consecutive replicas out of data parallelism: the
  /// expert group of (d, s, t) is (d', s, t) for the replicas d' of d's group, in replica order; the
  /// expert-data group the replicas holding the same experts as d (d' = d mod ep).
  [[nodiscard]] std::vector<int> expert_group(int dp_index, int pp_index, int tp_index, int ep) const;
  [[nodiscard]] std::vector<int> expert_data_group(int dp_index, int pp_index, int tp_index, int ep) const;

private:
  std::array<int, 3> sizes_{};    // by axis: tp, pp, dp
  std::array<int, 3> strides_{};  // by axis
};

}  // namespace clearfog::parallel
