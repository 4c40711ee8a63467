// ZeRO in plan_step: stage 3's parameter gathers (counts and bytes from the parameter counts) and
// their overlap with compute on a fast and a slow switch, stage 2's and stage 1's gradient
// reduce-scatters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "parallel/MemoryEstimate.hpp"
#include "report/StreamWaits.hpp"
#include "support/StepPlannerScenario.hpp"

using namespace clearfog;
using namespace clearfog::test::step_planner;
using test::LayerGemmsOnly;

namespace {

/// Parameters per device of pipeline stage `stage`: a layer's tensor-parallel shards (12h^2 + 7h)/t
/// and its replicated layernorms and row-parallel biases (6h); the word embedding's shard and the
/// whole position embedding on the first stage; the final layernorm on the last, which with pp > 1
/// also holds its own copy of the tied word embedding.
double stage_parameters(const config::ScenarioSpec& s, int stage) {
  const auto& w = test::transformer(s.workload);
  const int t = s.parallelism.tp, p = s.parallelism.pp;
  const double h = w.hidden, V = w.vocab_size;
  const double layer = (12 * h * h + 7 * h) / t + 6 * h;  // f = 4h
  double params = w.layers / p * layer;
  if (stage == 0) params += V * h / t + w.seq_length * h;
  if (stage == p - 1) params += (p > 1 ? V * h / t : 0.0) + 2 * h;
  return params;
}

/// Gradient tensors of stage `stage` (a bucket each when the cap is 1 byte): 10 per layer, position
/// and word embedding on the first stage, the final layernorm (and with pp > 1 the tied copy) on
/// the last.
int stage_tensors(const config::ScenarioSpec& s, int stage) {
  const int p = s.parallelism.pp;
  return test::transformer(s.workload).layers / p * 10 + (stage == 0 ? 2 : 0) + (stage == p - 1 ? 1 + (p > 1) : 0);
}

}  // namespace

TEST_CASE("parallel::plan_step: ZeRO-3 gathers each unit's parameters before forward and backward",
          "[parallel][zero]") {
  const int t = 2, p = 2, dp = 2, m = 3;
  auto s = scenario(t, p, dp, m);
  s.parallelism.zero_stage = 3;
  const double e = 2;  // bf16
  const int layers_per_stage = gpt(s).layers / p;
  const parallel::DeviceGrid grid(s.parallelism);
  for (const bool fused : {false, true}) {
    std::vector<Requested> log;
    parallel::PlanOptions options;
    options.fuse_chunk_layers = fused;
    const auto step =
        parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(t * p * dp, log), options);
    for (int stage = 0; stage < p; ++stage)
      for (int tr = 0; tr < t; ++tr) {
        // Per micro-batch, forward and backward: each layer (or the fused chunk), plus the embedding
        // on the first stage and the head on the last.
        const int units = (fused ? 1 : layers_per_stage) + (stage == 0) + (stage == p - 1);
        const auto [gathers, bytes] = requested(log, config::CollectiveOp::AllGather, grid.data_group(stage, tr));
        INFO("fused " << fused << " stage " << stage << " tensor rank " << tr);
        CHECK(gathers == 2 * m * units);
        CHECK(bytes == Approx(2 * m * stage_parameters(s, stage) * e));
      }
    // The updated shards stay sharded: the optimizer is every device's last op.
    for (int r = 0; r < grid.size(); ++r) {
      const auto& ops = step.plan.ranks[r].ops();
      REQUIRE(!ops.empty());
      CHECK(ops.back().category == program::Category::Optimizer);
      for (const auto& op : ops)
        if (op.name.find(".gather") != std::string::npos) CHECK(op.stream == program::Stream::Gather);
    }
  }
}

TEST_CASE("parallel::plan_step: ZeRO-2 reduce-scatters every micro-batch's gradients, ZeRO-1 once",
          "[parallel][zero]") {
  const int p = 2, dp = 2, m = 3;
  auto s = scenario(1, p, dp, m);
  s.training.bucket_size_B = 1;  // a bucket per gradient tensor
  const double e = 2;
  const parallel::DeviceGrid grid(s.parallelism);
  for (const int zero : {1, 2}) {
    s.parallelism.zero_stage = zero;
    std::vector<Requested> log;
    parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(p * dp, log));
    const int passes = zero == 2 ? m : 1;
    for (int stage = 0; stage < p; ++stage) {
      const auto group = grid.data_group(stage, 0);
      const int buckets = stage_tensors(s, stage);
      const double gradient_B = stage_parameters(s, stage) * e;
      const auto [reductions, reduced_B] = requested(log, config::CollectiveOp::ReduceScatter, group);
      const auto [gathers, gathered_B] = requested(log, config::CollectiveOp::AllGather, group);
      INFO("ZeRO-" << zero << " stage " << stage);
      CHECK(reductions == passes * buckets);
      CHECK(reduced_B == Approx(passes * gradient_B));
      // One all-gather of the updated parameters after the optimizer, bucket by bucket.
      CHECK(gathers == buckets);
      CHECK(gathered_B == Approx(gradient_B));
    }
  }
}

namespace {

struct ZeroRun {
  double step_s = 0;
  double compute_s = 0;  // busy time of device 0's compute ops
  parallel::StepPlan step;
  engine::SimulationResult result;
};

ZeroRun run_zero(config::ScenarioSpec s, int zero_stage) {
  s.parallelism.zero_stage = zero_stage;
  ZeroRun run;
  run.step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(s.platform.device_count()));
  run.result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), run.step.plan);
  run.step_s = run.result.makespan_s;
  for (const auto& op : run.step.plan.ranks[0].ops())
    if (op.kind == program::OpKind::Compute && op.stream == program::Stream::Compute) run.compute_s += op.duration_s;
  return run;
}

}  // namespace

TEST_CASE("parallel::plan_step: ZeRO-3 gathers hide behind compute on a fast network, not on a slow one",
          "[parallel][zero]") {
  const int dp = 4, m = 4;
  auto s = scenario(1, 1, dp, m);
  // G: the gradient (= parameter) bytes of a device; a ring moves (dp-1)/dp of the buffer per link.
  const double gradient_B = stage_parameters(s, 0) * 2;
  const double ring_share = (dp - 1.0) / dp;

  SECTION("fast network: the same step as without ZeRO") {
    const auto plain = run_zero(s, 0);
    const auto sharded = run_zero(s, 3);
    CHECK(sharded.step_s == Approx(plain.step_s).epsilon(1e-3));
    // Only the first unit's gather is waited for (nothing runs before it): under 0.1 % of the step.
    const double waited = report::stream_wait_s(sharded.step.plan.ranks[0], sharded.result.ops[0], program::Stream::Gather);
    CHECK(waited > 0);
    CHECK(waited < 1e-3 * sharded.step_s);
  }
  SECTION("slow network: the gathers beyond the compute show") {
    // Bandwidth at which stage 0's all-reduce (2 G (dp-1)/dp) takes as long as the compute C.
    const double compute_s = run_zero(s, 0).compute_s;
    const double bandwidth = 2 * gradient_B * ring_share / compute_s;
    s.platform = test::switch_platform(dp, bandwidth, 0);
    const auto plain = run_zero(s, 0);
    const auto sharded = run_zero(s, 3);
    const double allreduce_s = 2 * gradient_B * ring_share / bandwidth;      // = C
    const double gathers_s = 2 * m * gradient_B * ring_share / bandwidth;   // one stream, one after another
    // Stage 0 ends by C + its all-reduce at the latest; stage 3 not before its gathers have run.
    CHECK(sharded.step_s >= gathers_s * (1 - 1e-9));
    CHECK(sharded.step_s - plain.step_s >= (gathers_s - compute_s - allreduce_s) * (1 - 1e-9));
    // The compute stream's waits for gathers are what the gathers add beyond the compute: at least
    // the gathers' time less the compute's, less what the compute stream waits for otherwise (the
    // optimizer for the last reduce-scatters: at most one all-reduce's worth).
    const double waited = report::stream_wait_s(sharded.step.plan.ranks[0], sharded.result.ops[0], program::Stream::Gather);
    CHECK(waited >= (gathers_s - compute_s - allreduce_s) * (1 - 1e-9));
    CHECK(waited <= sharded.step_s - compute_s);

    // Op timings on device 0: a unit computes after its gather; the gather of unit u starts after the
    // compute of unit u-2 (two buffers) and, prefetched, some start before unit u-1 has ended.
    const auto& ops = sharded.step.plan.ranks[0].ops();
    const auto& timings = sharded.result.ops[0];
    std::vector<std::string> units;  // in gather order
    std::map<std::string, std::pair<double, double>> gather, unit;  // name -> (start, end)
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].stream != program::Stream::Gather) continue;
      const auto name = ops[i].name.substr(0, ops[i].name.find(".t0.gather"));
      if (!gather.count(name)) {
        units.push_back(name);
        gather[name] = {timings[i].start_s, timings[i].end_s};
      }
      gather[name].second = std::max(gather[name].second, timings[i].end_s);
    }
    REQUIRE(units.size() == static_cast<std::size_t>(2 * m * (gpt(s).layers + 2)));
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind != program::OpKind::Compute || ops[i].stream != program::Stream::Compute) continue;
      for (const auto& u : units)
        if (ops[i].name == u || ops[i].name.rfind(u + ".", 0) == 0) {
          INFO(ops[i].name);
          CHECK(timings[i].start_s >= gather[u].second);
          auto& span = unit.try_emplace(u, timings[i].start_s, timings[i].end_s).first->second;
          span.second = std::max(span.second, timings[i].end_s);
        }
    }
    int prefetched = 0;
    for (std::size_t u = 2; u < units.size(); ++u) {
      INFO(units[u]);
      CHECK(gather[units[u]].first >= unit[units[u - 2]].second);
      if (gather[units[u]].first < unit[units[u - 1]].second) ++prefetched;
    }
    CHECK(prefetched > 0);
  }
}

TEST_CASE("parallel::plan_step: hybrid sharding gathers and reduce-scatters inside shard groups, all-reduces across",
          "[parallel][zero]") {
  // FSDP HYBRID_SHARD: dp 4 as two shard groups of 2 (data indices {0,1} and {2,3}). Every gather
  // and reduce-scatter runs over one shard group; each reduce-scatter's shard (bytes / 2) is then
  // all-reduced over the replicas holding it ({0,2} and {1,3}). The optimizer updates 1/2 of the
  // parameters, not 1/4.
  const int dp = 4, m = 2, g = 2;
  auto s = scenario(1, 1, dp, m);
  s.parallelism.zero_stage = 3;
  s.parallelism.shard_group = g;
  std::vector<Requested> log;
  const auto step = parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(dp, log));
  const parallel::DeviceGrid grid(s.parallelism);
  const auto data = grid.data_group(0, 0);
  const std::vector<int> shard0 = {data[0], data[1]}, shard1 = {data[2], data[3]};
  const std::vector<int> replicas0 = {data[0], data[2]}, replicas1 = {data[1], data[3]};
  const int units = gpt(s).layers + 2;
  for (const auto& shard : {shard0, shard1}) {
    const auto [gathers, gathered_B] = requested(log, config::CollectiveOp::AllGather, shard);
    CHECK(gathers == 2 * m * units);
    CHECK(gathered_B == Approx(2 * m * stage_parameters(s, 0) * 2));  // bf16, whole units
    const auto [scatters, scattered_B] = requested(log, config::CollectiveOp::ReduceScatter, shard);
    CHECK(scatters > 0);
    CHECK(scattered_B == Approx(m * stage_parameters(s, 0) * 2));  // every micro-batch's gradients
  }
  for (const auto& replicas : {replicas0, replicas1}) {
    const auto [reduces, reduced_B] = requested(log, config::CollectiveOp::AllReduce, replicas);
    CHECK(reduces == requested(log, config::CollectiveOp::ReduceScatter, shard0).first);
    CHECK(reduced_B == Approx(m * stage_parameters(s, 0) * 2 / g));
  }
  CHECK(requested(log, config::CollectiveOp::AllGather, data).first == 0);
  CHECK(requested(log, config::CollectiveOp::ReduceScatter, data).first == 0);
  // Memory: the optimizer states are sharded 2 ways, twice what plain ZeRO-3 over 4 keeps.
  auto plain = s;
  plain.parallelism.shard_group = 0;
  CHECK(parallel::estimate_memory(s).optimizer_B == Approx(2 * parallel::estimate_memory(plain).optimizer_B));
}

TEST_CASE("parallel::plan_step: DeepSpeed ZeRO-3 gathers each tensor above the persistence threshold by itself",
          "[parallel][zero]") {
  // DeepSpeed's coordinator fetches each parameterized submodule (its weight; the bias stays whole,
  // below stage3_param_persistence_threshold): per unit pass, one all-gather per tensor of at least
  // the threshold, none for the smaller ones.
  const int dp = 2, m = 2;
  auto s = scenario(1, 1, dp, m);
  s.parallelism.zero_stage = 3;
  s.framework.sharding = config::ParameterGathering{.gather_per_tensor = true, .persistence_threshold = 1e5};
  std::vector<Requested> log;
  parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(dp, log));
  int tensors = 0;
  double elements = 0;
  // With one stage the tied logits weight is the embedding itself: gathered once, as the embedding.
  for (const auto& block : workload::describe(s).blocks)
    for (const auto& p : block.params)
      if (p.elements >= 1e5 && p.tied_to.empty()) {
        ++tensors;
        elements += p.elements;
      }
  REQUIRE(tensors > 0);
  const parallel::DeviceGrid grid(s.parallelism);
  const auto [gathers, bytes] = requested(log, config::CollectiveOp::AllGather, grid.data_group(0, 0));
  CHECK(gathers == 2 * m * tensors);  // forward and backward of every micro-batch
  CHECK(bytes == Approx(2 * m * elements * 2));
  // Fewer bytes than FSDP's flat gathers of whole units (the small tensors stay whole).
  CHECK(bytes < 2 * m * stage_parameters(s, 0) * 2);
}

TEST_CASE("parallel::plan_step: FSDP2 copies each unit's gathered parameters out before the unit runs",
          "[parallel][zero]") {
  // foreach_all_gather_copy_out: per unit pass, one kernel on the compute stream that reads the
  // all-gather's output and writes the parameters, 2 x (the unit's parameters) x e bytes; over a
  // step, forward and backward of every micro-batch, 2 m x 2 x (the stage's parameters) x e.
  static constexpr double kRate_Bps = 1e12;
  class BytesOnly final : public kernels::KernelCostModel {
  public:
    [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
      return {k.kind == kernels::KernelKind::MemoryBound ? k.bytes / kRate_Bps : 0.0, kernels::Bound::Memory};
    }
    [[nodiscard]] std::string name() const override { return "bytes-only"; }
  };
  const int dp = 2, m = 2;
  auto s = scenario(1, 1, dp, m);
  s.parallelism.zero_stage = 3;
  const auto copied_s = [&](bool copy_out) {
    s.framework.sharding.copy_out = copy_out;
    const auto step = parallel::plan_step(s, BytesOnly{}, parallel::plain_group_collectives(s.platform.device_count()));
    const auto& rank = step.plan.ranks[0];
    double total = 0;
    for (program::OpIndex i = 0; i < rank.size(); ++i)
      if (rank.name(i).find(".copy_out") != std::string_view::npos) {
        CHECK(rank.stream(i) == program::Stream::Compute);
        total += rank.seconds(i);
      }
    return total;
  };
  CHECK(copied_s(false) == 0);
  const double e = dtype_bytes(s.training.precision);
  CHECK(copied_s(true) == Approx(2 * m * 2 * stage_parameters(s, 0) * e / kRate_Bps).epsilon(1e-9));
}

TEST_CASE("parallel::plan_step: fp8 training gathers and reduces its bf16 weights and gradients",
          "[parallel][zero]") {
  // Transformer Engine and torchao keep weights and gradients in bf16 and cast to fp8 inside the
  // GEMMs: the data-parallel traffic of fp8 training is bf16's, 2 bytes a parameter.
  const int dp = 2, m = 2;
  for (const int zero : {1, 3}) {
    auto s = scenario(1, 1, dp, m);
    s.parallelism.zero_stage = zero;
    const auto traffic = [&](DType precision) {
      s.training.precision = precision;
      std::vector<Requested> log;
      parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(dp, log));
      double bytes = 0;
      for (const auto& q : log) bytes += q.bytes;
      return bytes;
    };
    INFO("ZeRO " << zero);
    const double bf16 = traffic(DType::bf16);
    REQUIRE(bf16 > 0);
    CHECK(traffic(DType::fp8) == Approx(bf16).epsilon(1e-12));
  }
}

TEST_CASE("parallel::plan_step: FSDP2 under pipeline parallelism gathers each unit once and reduces once",
          "[parallel][zero]") {
  // PyTorch's pipelining with FSDP2 (pipeline_holds_unsharded): a stage gathers each unit before
  // its first pass of the step and keeps it; the micro-batches' gradients are summed unsharded
  // and reduce-scattered once, after the last backward. Without it: 2m gathers and m reductions.
  const int t = 2, p = 2, dp = 2, m = 3;
  auto s = scenario(t, p, dp, m);
  s.parallelism.zero_stage = 3;
  s.training.bucket_size_B = 1;  // ZeRO-3 reduces each unit's flat gradient as one bucket
  const double e = 2;            // bf16
  const int layers_per_stage = gpt(s).layers / p;
  const parallel::DeviceGrid grid(s.parallelism);
  for (const bool hold : {false, true}) {
    s.framework.sharding.pipeline_holds_unsharded = hold;
    REQUIRE(s.holds_unsharded_parameters() == hold);
    for (const bool fused : {false, true}) {
      std::vector<Requested> log;
      parallel::PlanOptions options;
      options.fuse_chunk_layers = fused;
      parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(t * p * dp, log), options);
      for (int stage = 0; stage < p; ++stage) {
        const auto group = grid.data_group(stage, 0);
        const int units = (fused ? 1 : layers_per_stage) + (stage == 0) + (stage == p - 1);
        const int gathering_passes = hold ? 1 : 2 * m, reducing_passes = hold ? 1 : m;
        const auto [gathers, gathered_B] = requested(log, config::CollectiveOp::AllGather, group);
        const auto [reductions, reduced_B] = requested(log, config::CollectiveOp::ReduceScatter, group);
        INFO("hold " << hold << ", fused " << fused << ", stage " << stage);
        CHECK(gathers == gathering_passes * units);
        CHECK(gathered_B == Approx(gathering_passes * stage_parameters(s, stage) * e));
        CHECK(reduced_B == Approx(reducing_passes * stage_parameters(s, stage) * e));
        CHECK(reductions == reducing_passes * units);
      }
    }
  }
  // DualPipe places every chunk on two stages: each gathers its own copy, once.
  {
    auto dual = scenario(1, 2, dp, 4);
    dual.parallelism.zero_stage = 3;
    dual.parallelism.schedule = "dualpipe";
    dual.framework.sharding.pipeline_holds_unsharded = true;
    const auto step = parallel::plan_step(dual, LayerGemmsOnly{}, parallel::plain_group_collectives(dual.platform.device_count()));
    for (const auto& rank : step.plan.ranks) {
      int gathers = 0;
      for (const auto& op : rank.ops()) gathers += op.name.find(".gather") != std::string::npos ? 1 : 0;
      CHECK(gathers > 0);
    }
  }
  // Without pipeline parallelism the setting changes nothing: every pass gathers.
  auto flat = scenario(1, 1, dp, m);
  flat.parallelism.zero_stage = 3;
  flat.framework.sharding.pipeline_holds_unsharded = true;
  CHECK_FALSE(flat.holds_unsharded_parameters());
  CHECK(flat.reduces_every_micro_batch());
}

TEST_CASE("parallel::estimate_memory: FSDP2 under pipeline parallelism holds the stage's parameters and a "
          "gradient sum",
          "[parallel][zero][memory]") {
  // Held: the stage's parameters unsharded (2 bytes each in bf16) instead of two units' buffers,
  // and with more than one micro-batch an unsharded sum of their gradients in the reduce dtype
  // (fp32: FSDPParam.to_accumulated_grad_if_needed).
  auto s = scenario(1, 2, 4, 4);
  s.parallelism.zero_stage = 3;
  s.framework.gradient_reduce_dtype = DType::fp32;
  const auto plain = parallel::estimate_memory(s);
  s.framework.sharding.pipeline_holds_unsharded = true;
  const auto held = parallel::estimate_memory(s);
  REQUIRE(held.stage == plain.stage);
  const double params = stage_parameters(s, held.stage);
  CHECK(held.weights_B - plain.weights_B == Approx(2 * params));
  CHECK(held.gradients_B - plain.gradients_B == Approx(4 * params));
  CHECK(held.buffers_B < plain.buffers_B);  // no gather buffers
  CHECK(held.optimizer_B == Approx(plain.optimizer_B));
  // ZeRO-2 (FSDP2 without resharding): the parameters were never sharded; the gradient sum is held.
  s.parallelism.zero_stage = 2;
  s.framework.sharding.pipeline_holds_unsharded = false;
  const auto plain2 = parallel::estimate_memory(s);
  s.framework.sharding.pipeline_holds_unsharded = true;
  const auto held2 = parallel::estimate_memory(s);
  REQUIRE(held2.stage == plain2.stage);
  CHECK(held2.weights_B == Approx(plain2.weights_B));
  CHECK(held2.gradients_B - plain2.gradients_B == Approx(4 * stage_parameters(s, held2.stage)));
}

TEST_CASE("parallel::plan_step: ZeRO-2 under pipeline parallelism with FSDP2 reduces its gradient sum once",
          "[parallel][zero]") {
  const int p = 2, dp = 2, m = 3;
  auto s = scenario(1, p, dp, m);
  s.parallelism.zero_stage = 2;
  const parallel::DeviceGrid grid(s.parallelism);
  for (const bool hold : {false, true}) {
    s.framework.sharding.pipeline_holds_unsharded = hold;
    std::vector<Requested> log;
    parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(p * dp, log));
    for (int stage = 0; stage < p; ++stage) {
      const auto [reductions, reduced_B] = requested(log, config::CollectiveOp::ReduceScatter, grid.data_group(stage, 0));
      INFO("hold " << hold << ", stage " << stage);
      CHECK(reduced_B == Approx((hold ? 1 : m) * stage_parameters(s, stage) * 2));
    }
  }
}

TEST_CASE("parallel::plan_step: the distributed optimizer's parameter all-gather runs behind the next forward",
          "[parallel][zero]") {
  // Megatron-core --overlap-param-gather (FrameworkProfile::overlap_param_gather), in the steady
  // state: the all-gather of the updated shards moves the same bytes, but instead of following the
  // optimizer it runs behind the forward, each layer waiting for its own bucket.
  const int dp = 4, m = 2;
  auto s = scenario(1, 1, dp, m);
  s.parallelism.zero_stage = 1;
  s.training.bucket_size_B = 1;  // a bucket per tensor
  const auto gathered = [&](bool overlap) {
    s.framework.overlap_param_gather = overlap;
    std::vector<Requested> log;
    parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(dp, log));
    return requested(log, config::CollectiveOp::AllGather, parallel::DeviceGrid(s.parallelism).data_group(0, 0));
  };
  const auto after = gathered(false), ahead = gathered(true);
  CHECK(ahead.first == after.first);
  CHECK(ahead.second == Approx(after.second));
  CHECK(ahead.first == stage_tensors(s, 0));
  CHECK(ahead.second == Approx(stage_parameters(s, 0) * 2));
  // On a network where the gathers take a quarter of the compute (less than the forward, a third
  // of it), the step no longer pays them after the optimizer: they hide behind the forward but for
  // the first buckets, shorter by at least half their time.
  const double compute_s = run_zero(s, 1).compute_s;
  const double ring_share = (dp - 1.0) / dp;
  const double bandwidth = 4 * 2 * stage_parameters(s, 0) * ring_share / compute_s;  // gathers = compute / 4
  s.platform = test::switch_platform(dp, bandwidth, 0);
  s.framework.overlap_param_gather = false;
  const auto late = run_zero(s, 1);
  s.framework.overlap_param_gather = true;
  const auto early = run_zero(s, 1);
  const double gathers_s = stage_parameters(s, 0) * 2 * ring_share / bandwidth;
  CHECK(late.step_s - early.step_s >= 0.5 * gathers_s);
  // Without ZeRO-1/2 the setting changes nothing.
  s.parallelism.zero_stage = 0;
  CHECK_FALSE(s.gathers_parameters_ahead());
}
