// In-switch all-reduce (NVLS / SHARP-like): members send chunks to the reducing switch's endpoint,
// which returns each reduced chunk to all; the switch endpoint runs its own program.
#include <catch2/catch.hpp>

#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

namespace {

collectives::CollectiveRequest in_switch(int p, double n, double chunk_B) {
  auto r = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("in-switch"), p, n);
  r.switch_endpoints = {p};  // ClusterTopology: the switch endpoints follow the devices
  r.chunk_B = chunk_B;
  return r;
}

}  // namespace

TEST_CASE("collectives::InSwitch: each member sends n up and receives n down in k + 1 steps", "[collectives]") {
  const int p = 8;
  const double n = 64e6;
  const double chunk_B = 4e6;
  const int k = static_cast<int>(std::ceil(n / chunk_B));
  const auto plan = test::plan_of(in_switch(p, n, chunk_B), p + 1);
  REQUIRE_NOTHROW(program::check_plan(plan));
  for (int r = 0; r < p; ++r) {
    CHECK(test::bytes_sent(plan, r) == Approx(n));
    CHECK(test::bytes_received(plan, r) == Approx(n));
    CHECK(test::exchanges(plan, r) == k + 1);
  }
  CHECK(test::bytes_received(plan, p) == Approx(p * n));  // the switch: receive from all, send to all
  CHECK(test::bytes_sent(plan, p) == Approx(p * n));
}

TEST_CASE("collectives::InSwitch: a plan without a switch endpoint is refused", "[collectives]") {
  auto req = in_switch(4, 1e6, 0);
  req.switch_endpoints.clear();
  CHECK_THROWS_WITH(test::plan_of(req, 5), Catch::Contains("in-switch") && Catch::Contains("endpoint"));
  req.switch_endpoints = {4};
  CHECK_THROWS_WITH(test::plan_of(req, 4), Catch::Contains("in-switch") && Catch::Contains("outside"));
  req.switch_endpoints = {2};
  CHECK_THROWS_WITH(test::plan_of(req, 5), Catch::Contains("also a member"));
}

TEST_CASE("collectives::InSwitch: all_reduce takes (k+1)·(α_s + c·β)", "[collectives][simulation]") {
  // Round j: chunk j up, reduced chunk j-1 down: one chunk per direction of each member's link,
  // k + 1 rounds. α_s: member to switch endpoint, one link (the endpoint sits on the switch).
  const int p = 8;
  const double n = 64e6;
  const double chunk_B = 2e6;
  const int k = static_cast<int>(std::ceil(n / chunk_B));
  auto platform = test::ideal_switch(p);
  platform.node.in_switch_reduction = true;
  const double alpha_s = test::kLinkLatency_s;
  const double expected_s = (k + 1) * (alpha_s + n / k * test::kBeta_sPerB);
  CHECK(test::simulated_s(platform, in_switch(p, n, chunk_B)) == Approx(expected_s).epsilon(5e-3));
}

TEST_CASE("collectives::InSwitch: fluid agrees with the step plan within 1 % for many chunks",
          "[collectives][simulation]") {
  // The step plan also pays one chunk's fill, c·β = n/k·β: 1/k of the bandwidth term.
  const int p = 8;
  auto platform = test::ideal_switch(p);
  platform.node.in_switch_reduction = true;
  for (double n : {64e6, 512e6}) {
    auto req = in_switch(p, n, n / 256);
    req.step_overhead_s = 1e-6;
    req.step_latency_s = test::kLinkLatency_s;
    const double step_s = test::simulated_s(platform, req);
    req.fidelity = config::Fidelity::Fluid;
    CHECK(test::simulated_s(platform, req) == Approx(step_s).epsilon(1e-2));
  }
}
