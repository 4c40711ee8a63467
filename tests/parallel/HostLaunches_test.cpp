// Host time (docs/host-time.md): the host thread issues every kernel before the device can run it,
// runs ahead of the device where it can, and waits where the framework copies a result to the
// host. Expected times follow from that rule: kernel by kernel, a chain of n ops of k kernels,
// each costing the host c and the device d/k, ends at max(n k c, (first launch) + device work) up
// to one kernel, and an op after a host wait starts one launch after what it waited for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "engine/ForkedRun.hpp"
#include "parallel/HostLaunches.hpp"
#include "report/StreamWaits.hpp"
#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/WorkloadType.hpp"

using namespace clearfog;
using program::Category;
using program::OpIndex;
using program::Stream;

namespace {

const auto kOneDevice = topology::ClusterTopology::build(test::switch_platform(1, 100e9, 0));

config::HostIssue eager(double launch_s) {
  config::HostIssue h;
  h.forward_launch_s = launch_s;
  h.backward_launch_s = launch_s / 2;
  h.graph_launch_s = launch_s;
  return h;
}

/// `ops` forward ops of `kernels` kernels each, `device_s` of device time each, on one rank;
/// `elide`: the device times are given to HostLaunches, which leaves out the host ops that cannot bind.
program::Plan chain(const config::HostIssue& host, int ops, std::size_t kernels, double device_s, bool elide = false) {
  program::Plan plan;
  plan.ranks.resize(1);
  parallel::HostLaunches launches(host, plan, elide);
  for (int i = 0; i < ops; ++i) {
    std::vector<OpIndex> deps;
    if (const auto launched = launches.launch(0, Category::Forward, kernels, elide ? device_s : 0.0))
      deps.push_back(*launched);
    plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "op", device_s, deps);
  }
  launches.finish();
  return plan;
}

}  // namespace

TEST_CASE("parallel::HostLaunches: kernels longer than their launch keep the device busy after the first launch",
          "[parallel][host]") {
  // Device-bound: every launch (c) is shorter than its kernel (d / k), so only the first launch
  // shows: the step is c + n d.
  const double c = 4e-6, d = 1e-3;
  const int n = 10;
  const std::size_t k = 20;  // 50 us kernels
  const auto r = engine::simulate_forked(kOneDevice, chain(eager(c), n, k, d));
  CHECK(r.makespan_s == Approx(c + n * d).epsilon(1e-12));
}

TEST_CASE("parallel::HostLaunches: kernels shorter than their launch make the step host-bound",
          "[parallel][host]") {
  // Host-bound: each op starts when its first kernel is issued, at ((i - 1) k + 1) c; the host
  // issues the last kernel at n k c. Kernel by kernel the step is n k c + d / k; the model ends at
  // max(n k c, ((n - 1) k + 1) c + d), within one kernel of it.
  const double c = 4e-6, d = 20e-6;
  const int n = 10;
  const std::size_t k = 10;  // 2 us kernels, launched every 4 us
  const auto plan = chain(eager(c), n, k, d);
  const auto r = engine::simulate_forked(kOneDevice, plan);
  const double issued_s = n * static_cast<double>(k) * c;
  const double expected = std::max(issued_s, ((n - 1) * static_cast<double>(k) + 1) * c + d);
  CHECK(r.makespan_s == Approx(expected).epsilon(1e-12));
  const double kernel_by_kernel = issued_s + d / static_cast<double>(k);
  CHECK(std::abs(r.makespan_s - kernel_by_kernel) <= d / static_cast<double>(k) + 1e-15);
  // The device's waits are what the host adds to its busy time, up to the owed launches of the
  // last op (issued while it runs).
  const double waits = report::host_wait_s(plan.ranks[0], r.ops[0]);
  CHECK(waits == Approx(((n - 1) * static_cast<double>(k) + 1) * c - (n - 1) * d).epsilon(1e-9));
}

TEST_CASE("parallel::HostLaunches: CUDA graphs cost one launch per op", "[parallel][host]") {
  // The same host-bound chain replayed from graphs: one launch c per op, shorter than its d.
  const double c = 4e-6, d = 20e-6;
  auto graphs = eager(c);
  graphs.cuda_graphs = true;
  const auto r = engine::simulate_forked(kOneDevice, chain(graphs, 10, 10, d));
  CHECK(r.makespan_s == Approx(c + 10 * d).epsilon(1e-12));
}

TEST_CASE("parallel::HostLaunches: after a host wait the next op starts one launch after what it waited for",
          "[parallel][host]") {
  // a (1 ms, one kernel); the host copies its result (waits for it), then launches b.
  const double c = 4e-6;
  program::Plan plan;
  plan.ranks.resize(1);
  parallel::HostLaunches launches(eager(c), plan);
  auto& p = plan.ranks[0];
  const auto la = launches.launch(0, Category::Forward, 3);
  const OpIndex a = p.add_compute(Stream::Compute, Category::Forward, "a", 1e-3, {*la});
  launches.wait_for(0, std::span<const OpIndex>(&a, 1));
  const auto lb = launches.launch(0, Category::Forward, 1);
  const OpIndex b = p.add_compute(Stream::Compute, Category::Forward, "b", 1e-3, {*lb});
  launches.finish();
  const auto r = engine::simulate_forked(kOneDevice, plan);
  CHECK(r.ops[0][a].start_s == Approx(c));
  CHECK(r.ops[0][b].start_s == Approx(c + 1e-3 + c).epsilon(1e-12));
  // The device idled exactly one launch after a.
  CHECK(report::host_wait_s(p, r.ops[0]) == Approx(2 * c).epsilon(1e-9));
}

TEST_CASE("parallel::HostLaunches: backward kernels cost the autograd engine's launch, not Python's",
          "[parallel][host]") {
  program::Plan empty;
  parallel::HostLaunches launches(eager(4e-6), empty);
  CHECK(launches.launch_s(Category::Forward) == 4e-6);
  CHECK(launches.launch_s(Category::Recompute) == 4e-6);
  CHECK(launches.launch_s(Category::Optimizer) == 4e-6);
  CHECK(launches.launch_s(Category::Backward) == 2e-6);
  // Without a host model nothing is added.
  program::Plan plan;
  plan.ranks.resize(1);
  parallel::HostLaunches none(config::HostIssue{}, plan);
  CHECK_FALSE(none.launch(0, Category::Forward, 100));
  none.wait_for(0, std::vector<OpIndex>{0});
  none.finish();
  CHECK(plan.ranks[0].empty());
}

TEST_CASE("parallel::plan_step: every launched op waits for its host op, MoE dispatches wait for the routing",
          "[parallel][host]") {
  // Two experts on two devices (ep 2): each MoE layer's forward dispatch is preceded by a host wait
  // for the router's kernels, once per layer and micro-batch; the backward reuses the counts.
  config::ScenarioSpec s;
  s.name = "host moe";
  s.platform = test::switch_platform(2, 100e9, 1e-6);
  s.workload = test::with_transformer(test::small_gpt(), [](workload::TransformerSpec& x) {
    x.experts = 2;
    x.top_k = 1;
    x.expert_ffn_hidden = 1024;
  });
  s.training.micro_batch = 1;
  s.training.global_batch = 4;  // 2 micro-batches per replica
  s.parallelism.dp = 2;
  s.parallelism.ep = 2;
  s.framework.host = eager(4e-6);
  s.framework.host.moe_dispatch_sync = true;
  const auto run = test::plan_and_run(s, test::LayerGemmsOnly{});
  const auto& program = run.step.plan.ranks[0];
  int syncs = 0, moe_layers = 0;
  for (OpIndex i = 0; i < program.size(); ++i) {
    if (program.name(i) == "host.sync") ++syncs;
    // Every device op that launches kernels has a host op among its dependencies.
    if (program.stream(i) == Stream::Compute && program.kind(i) == program::OpKind::Compute && program.seconds(i) > 0) {
      const auto deps = program.deps(i);
      CHECK(std::any_of(deps.begin(), deps.end(), [&](OpIndex d) { return program.stream(d) == Stream::Host; }));
    }
  }
  for (const auto& block : workload::describe(s).blocks) moe_layers += block.type == "layer.moe" ? 1 : 0;
  REQUIRE(moe_layers > 0);
  CHECK(syncs == moe_layers * 2);
  // Idle time splits into pipeline waits, host waits and exposed communication, which add up.
  const auto& m = run.metrics;
  CHECK(m.host_bound_s > 0);
  CHECK(m.pipeline_wait_s + m.host_bound_s + m.exposed_comm_s == Approx(m.idle_s).epsilon(1e-12));
}

TEST_CASE("parallel::plan_step: FSDP1's rate limiter makes the host wait for the buffer each gather reuses",
          "[parallel][host][zero]") {
  // limit_all_gathers: before unit u's gather the host synchronizes on the free of unit u - 2,
  // so every unit pass but the first two adds one host wait on each rank.
  config::ScenarioSpec s;
  s.name = "rate limiter";
  s.platform = test::switch_platform(2, 100e9, 1e-6);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = 4;  // 2 micro-batches per replica
  s.parallelism.dp = 2;
  s.parallelism.zero_stage = 3;
  s.framework.host = eager(4e-6);
  const auto count_syncs = [](const parallel::StepPlan& step) {
    int n = 0;
    for (OpIndex i = 0; i < step.plan.ranks[0].size(); ++i) n += step.plan.ranks[0].name(i) == "host.sync" ? 1 : 0;
    return n;
  };
  const auto free_running = test::plan_and_run(s, test::LayerGemmsOnly{});
  s.framework.sharding.host_rate_limit = true;
  const auto limited = test::plan_and_run(s, test::LayerGemmsOnly{});
  const int units = static_cast<int>(workload::describe(s).blocks.size());  // layers + embedding + head
  CHECK(count_syncs(free_running.step) == 0);
  CHECK(count_syncs(limited.step) == 2 * 2 * units - 2);  // 2 micro-batches x (forward + backward)
  CHECK(limited.result.makespan_s >= free_running.result.makespan_s * (1 - 1e-12));
}

TEST_CASE("parallel::HostLaunches: host ops that cannot hold the device back are left out, with the same times",
          "[parallel][host]") {
  const auto host_ops = [](const program::Plan& plan) {
    int n = 0;
    for (OpIndex i = 0; i < plan.ranks[0].size(); ++i) n += plan.ranks[0].stream(i) == Stream::Host ? 1 : 0;
    return n;
  };
  SECTION("device-bound: only the first launch remains") {
    const auto all = chain(eager(4e-6), 10, 20, 1e-3, false);
    const auto few = chain(eager(4e-6), 10, 20, 1e-3, true);
    CHECK(host_ops(all) == 11);  // one per op and the last op's owed launches
    CHECK(host_ops(few) == 1);
    CHECK(engine::simulate_forked(kOneDevice, few).makespan_s ==
          Approx(engine::simulate_forked(kOneDevice, all).makespan_s).epsilon(1e-12));
  }
  SECTION("host-bound: every host op binds and stays") {
    const auto all = chain(eager(4e-6), 10, 10, 20e-6, false);
    const auto kept = chain(eager(4e-6), 10, 10, 20e-6, true);
    CHECK(host_ops(kept) == host_ops(all));
    CHECK(engine::simulate_forked(kOneDevice, kept).makespan_s ==
          Approx(engine::simulate_forked(kOneDevice, all).makespan_s).epsilon(1e-12));
  }
}
