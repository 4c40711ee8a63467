// Stragglers (parallel/Stragglers): the factors drawn and fixed, and what one slow device does to a
// data-parallel step against its closed form (docs/stragglers.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "parallel/Stragglers.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;

TEST_CASE("parallel::straggler_factors: fixed factors and a seeded log-normal draw", "[parallel][stragglers]") {
  config::StragglerSpec none;
  CHECK(parallel::straggler_factors(none, 4) == std::vector<double>(4, 1.0));

  config::StragglerSpec fixed;
  fixed.devices = {{2, 1.2}};
  CHECK(parallel::straggler_factors(fixed, 4) == std::vector<double>{1, 1, 1.2, 1});

  // ln(factor) ~ N(0, sigma^2): over n devices its mean is within 4 sigma/sqrt(n) of 0 and its
  // standard deviation within 5 % of sigma (the sampling error of s is sigma/sqrt(2n), 0.7 % here).
  config::StragglerSpec noisy;
  noisy.sigma = 0.1;
  noisy.seed = 7;
  const int n = 10000;
  const auto f = parallel::straggler_factors(noisy, n);
  double sum = 0, sum2 = 0;
  for (double x : f) sum += std::log(x), sum2 += std::log(x) * std::log(x);
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  CHECK(std::abs(mean) < 4 * noisy.sigma / std::sqrt(n));
  CHECK(sd == Approx(noisy.sigma).epsilon(0.05));
  CHECK(parallel::straggler_factors(noisy, n) == f);  // the same seed, the same factors
  noisy.seed = 8;
  CHECK(parallel::straggler_factors(noisy, n) != f);
  noisy.devices = {{5, 1.5}};
  CHECK(parallel::straggler_factors(noisy, n)[5] == 1.5);  // a fixed factor wins over the draw
}

namespace {

/// 8 data-parallel replicas, the gradient all-reduce after the backward pass (no overlap).
config::ScenarioSpec data_parallel() {
  config::ScenarioSpec s;
  s.name = "straggler test";
  s.platform = test::switch_platform(8, 100e9, 1e-6);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = 16;
  s.training.overlap_grad_reduce = false;
  s.framework.ddp = config::DdpFlavour::Local;
  s.parallelism.dp = 8;
  s.collectives.algorithm = clearfog::collectives::collective_algorithm("ring");
  return s;
}

/// The step time and the summed compute durations of `device`, from a run in a child process.
std::pair<double, double> step_and_compute(const config::ScenarioSpec& s, int device) {
  const std::string text = engine::run_forked([&] {
    const auto run = driver::run_scenario(s);
    const auto& p = run.step.plan.ranks[device];
    double compute = 0;
    for (program::OpIndex i = 0; i < p.size(); ++i)
      if (p.kind(i) == program::OpKind::Compute) compute += p.seconds(i);
    std::ostringstream out;
    out.precision(17);
    out << run.metrics.step_time_s << ' ' << compute;
    return out.str();
  });
  std::istringstream in(text);
  std::pair<double, double> v;
  in >> v.first >> v.second;
  return v;
}

}  // namespace

TEST_CASE("parallel::Stragglers: one device 1.2x slow delays a data-parallel step by 0.2 of its compute",
          "[parallel][stragglers]") {
  // Every replica computes C (forward, backward, optimizer) and all-reduce A between backward and
  // optimizer; the all-reduce starts when the last member joins. Alone: T = C + A. With device 3 at
  // factor f: T' = f C + A, so T' - T = (f - 1) C, C being device 3's compute without the slowdown.
  const auto base = data_parallel();
  const auto [t0, c0] = step_and_compute(base, 3);
  auto slow = base;
  slow.stragglers.devices = {{3, 1.2}};
  const auto [t1, c1] = step_and_compute(slow, 3);
  CHECK(c1 == Approx(1.2 * c0).epsilon(1e-12));
  CHECK(t1 - t0 == Approx(0.2 * c0).epsilon(1e-6));
  // Where the straggler sits does not matter in a ring of identical links.
  auto elsewhere = base;
  elsewhere.stragglers.devices = {{6, 1.2}};
  CHECK(step_and_compute(elsewhere, 6).first == Approx(t1).epsilon(1e-9));
}
