// The answers of docs/tutorials/07-heterogeneous.md: ResNet-50 as a pipeline over two A100s, two
// V100s and one H100. Each claim with a number or an ordering is asserted here on the same problem
// the `clearfog stages` commands of the tutorial build.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "parallel/StageProblem.hpp"

using namespace clearfog;
using parallel::StageSearchProblem;

namespace {

const std::filesystem::path kRoot = CLEARFOG_SOURCE_DIR;
constexpr int kA100 = 0, kV100 = 1, kH100 = 2;  // the kinds in the tutorial's --accelerator order

StageSearchProblem problem(int stages, double link_Bps) {
  const auto accelerator = [](const char* file) {
    return config::load_accelerator(kRoot / "platforms/accelerators" / file);
  };
  const std::vector<parallel::DeviceKind> kinds = {
      {accelerator("a100-sxm4-80gb.yaml"), 2}, {accelerator("v100-sxm2.yaml"), 2}, {accelerator("h100-sxm5.yaml"), 1}};
  return parallel::stage_problem(config::load_workload(kRoot / "workloads/resnet-50.yaml"), kinds, stages, 32,
                                 DType::fp16, link_Bps);
}

/// The kind of the stage that runs block `block`.
int kind_of_block(const parallel::StagePlan& plan, int block) {
  for (std::size_t s = 0; s < plan.ends.size(); ++s)
    if (block < plan.ends[s]) return plan.kinds[s];
  return -1;
}

}  // namespace

TEST_CASE("tutorial 7: three devices do not make ResNet-50 three times faster over 25 GB/s links",
          "[tutorial][stages]") {
  // One H100 alone against the best three-stage pipeline: under 1.5x, because the stage that ends
  // where the activations are large pays their transfer both ways.
  const auto alone = parallel::exhaustive_search(problem(1, 25e9));
  const double h100_s = alone.plan.bottleneck_s;
  const auto three = parallel::exhaustive_search(problem(3, 25e9));
  CHECK(alone.plan.kinds == std::vector<int>{kH100});  // the fastest device, when only one runs
  CHECK(h100_s / three.plan.bottleneck_s < 1.5);
  CHECK(h100_s / three.plan.bottleneck_s > 1.1);
  // The H100 takes the first blocks, whose activations are the largest.
  CHECK(kind_of_block(three.plan, 1) == kH100);
  CHECK(std::count(three.plan.kinds.begin(), three.plan.kinds.end(), kA100) == 2);  // no V100
  CHECK(std::count(three.plan.kinds.begin(), three.plan.kinds.end(), kV100) == 0);
}

TEST_CASE("tutorial 7: a fifth stage helps over fast links only, and the heuristic finds every optimum",
          "[tutorial][stages]") {
  for (const double link_Bps : {25e9, 100e9}) {
    double last = 1e30;
    for (int stages = 3; stages <= 5; ++stages) {
      const auto p = problem(stages, link_Bps);
      const double best = parallel::exhaustive_search(p).plan.bottleneck_s;
      INFO(link_Bps / 1e9 << " GB/s, " << stages << " stages");
      // The heuristic is never better than the optimum and within 1 % of it (the tutorial's claim;
      // at five stages over 100 GB/s it lands 0.8 % off, having kept the H100 where it was).
      const double heuristic = parallel::shisha_search(p).plan.bottleneck_s;
      CHECK(heuristic >= best * (1 - 1e-12));
      CHECK(heuristic <= best * 1.01);
      CHECK(best <= last * (1 + 1e-12));  // more stages never hurt the optimum
      // Over 25 GB/s the fifth stage gains nothing: the H100 stage [1,5) still sets the pace.
      if (stages == 5 && link_Bps == 25e9) CHECK(best == Approx(last).epsilon(1e-12));
      // Over 100 GB/s, where transfers cost a quarter as much, the fourth gains under 1 % and the
      // fifth more than 1 %.
      if (stages == 4 && link_Bps == 100e9) CHECK(best > last * 0.99);
      if (stages == 5 && link_Bps == 100e9) CHECK(best < last * 0.99);
      last = best;
    }
  }
  // Annealing misses the four-stage optimum at 25 GB/s (seed 1, as the CLI runs it).
  const auto four = problem(4, 25e9);
  CHECK(parallel::annealing_search(four, 1).plan.bottleneck_s >
        1.05 * parallel::exhaustive_search(four).plan.bottleneck_s);
}
