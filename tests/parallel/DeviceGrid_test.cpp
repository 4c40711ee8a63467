// The device grid of tensor x pipeline x data parallelism: which rank holds which coordinates,
// tensor rank varying fastest by default and the order of the axes selectable.
#include <catch2/catch.hpp>

#include <array>

#include "parallel/DeviceGrid.hpp"

using namespace clearfog;

TEST_CASE("parallel::DeviceGrid: tp varies fastest by default, order selectable", "[parallel]") {
  config::ParallelismSpec p;
  p.tp = 2;
  p.pp = 3;
  p.dp = 4;
  const parallel::DeviceGrid grid(p);
  CHECK(grid.rank(0, 0, 1) == 1);
  CHECK(grid.rank(0, 1, 0) == 2);
  CHECK(grid.rank(1, 0, 0) == 6);
  CHECK(grid.coordinates(grid.rank(3, 2, 1)) == std::array<int, 3>{3, 2, 1});
  p.order = {config::ParallelAxis::Data, config::ParallelAxis::Pipeline, config::ParallelAxis::Tensor};
  const parallel::DeviceGrid flipped(p);
  CHECK(flipped.rank(1, 0, 0) == 1);
  CHECK(flipped.rank(0, 0, 1) == 12);
}
