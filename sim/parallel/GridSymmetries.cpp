#include "parallel/GridSymmetries.hpp"

#include <numeric>

namespace clearfog::parallel {
namespace {

std::vector<int> identity(int ranks) {
  std::vector<int> image(static_cast<std::size_t>(ranks));
  std::iota(image.begin(), image.end(), 0);
  return image;
}

}  // namespace

std::vector<program::RankSymmetry> grid_symmetries(const DeviceGrid& grid, const config::ParallelismSpec& par,
                                                   int ranks) {
  std::vector<program::RankSymmetry> hints;
  if (par.dp > 1) {
    auto& h = hints.emplace_back(program::RankSymmetry{"data-parallel", identity(ranks)});
    for (int r = 0; r < grid.size(); ++r) {
      const auto [d, s, t] = grid.coordinates(r);
      h.image[r] = grid.rank((d + 1) % par.dp, s, t);
    }
  }
  if (par.tp > 1) {
    auto& h = hints.emplace_back(program::RankSymmetry{"tensor-parallel", identity(ranks)});
    for (int r = 0; r < grid.size(); ++r) {
      const auto [d, s, t] = grid.coordinates(r);
      h.image[r] = grid.rank(d, s, (t + 1) % par.tp);
    }
  }
  return hints;
}

program::RankSymmetry ring_symmetry(std::string axis, const std::vector<int>& ring, int ranks) {
  program::RankSymmetry h{std::move(axis), identity(ranks)};
  for (std::size_t i = 0; i < ring.size(); ++i) h.image[ring[i]] = ring[(i + 1) % ring.size()];
  return h;
}

}  // namespace clearfog::parallel
