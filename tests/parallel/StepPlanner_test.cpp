// Tensor x pipeline x data parallelism: collective counts and sizes from Megatron's closed forms,
// the pipeline bubble on a zero-cost network against (p-1)/(m+p-1), the device grid, and ZeRO's
// reductions and parameter gathers (counts and bytes from the parameter counts, timing on a switch).
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using test::LayerGemmsOnly;

namespace {

config::ScenarioSpec scenario(int tp, int pp, int dp, int micro_batches) {
  config::ScenarioSpec s;
  s.name = "3d test";
  s.platform = test::switch_platform(tp * pp * dp, 1e15, 0);  // huge bandwidth, zero latency
  s.workload = test::with_transformer(test::small_gpt(), [](workload::TransformerSpec& w) { w.layers = 8; });
  s.training.micro_batch = 1;
  s.training.global_batch = micro_batches * dp;
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = dp;
  return s;
}

/// Whether an op belongs to a transformer layer block ("mb0.L3.fwd.tp1...").
bool layer_op(const std::string& name) { return name.find(".L") != std::string::npos; }

const workload::TransformerSpec& gpt(const config::ScenarioSpec& s) { return test::transformer(s.workload); }

}  // namespace

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

TEST_CASE("parallel::plan_step: 2 all-reduces of b*s*h per layer forward and 2 backward", "[parallel]") {
  const int t = 4, m = 3;
  auto s = scenario(t, 1, 1, m);
  const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
  const double bsh_B = 1.0 * gpt(s).seq_length * gpt(s).hidden * 2;  // micro-batch 1, bf16
  // A ring all-reduce over t ranks is 2(t-1) exchange steps per rank, each sending 1/t of it.
  std::size_t exchanges = 0;
  for (const auto& op : step.plan.ranks[0].ops())
    if (op.category == program::Category::TensorParallelComm && op.kind == program::OpKind::Exchange &&
        layer_op(op.name)) {
      ++exchanges;
      REQUIRE(op.sends.size() == 1);
      CHECK(op.sends[0].bytes == Approx(bsh_B / t));
    }
  CHECK(exchanges == static_cast<std::size_t>(4 * gpt(s).layers * m * 2 * (t - 1)));

  SECTION("embedding and head: one all-reduce each of b*s*h, three of the loss's fp32 row statistics") {
    // Megatron-LM: the vocabulary-parallel embedding sums its output (forward), the logits layer's
    // input gradient is summed (backward), the vocabulary-parallel cross-entropy all-reduces the
    // row maximum, the target logit and the sum of exponentials (b*s fp32 each).
    std::map<std::string, double> sent;
    for (const auto& op : step.plan.ranks[0].ops())
      if (op.category == program::Category::TensorParallelComm && !layer_op(op.name))
        for (const auto& x : op.sends) sent[op.name.substr(0, op.name.rfind(".s"))] += x.bytes;
    const double ring = 2.0 * (t - 1) / t;
    CHECK(sent["mb0.embedding.fwd.tp.all_reduce"] == Approx(ring * bsh_B));
    CHECK(sent["mb0.head.bwd.tp.all_reduce"] == Approx(ring * bsh_B));
    CHECK(sent["mb0.head.fwd.ce.all_reduce"] == Approx(3 * ring * 4.0 * gpt(s).seq_length));
  }
  SECTION("full recomputation adds the forward's 2 all-reduces to backward") {
    s.training.recompute = config::Recompute::Full;
    const auto re = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
    std::size_t layer_exchanges = 0;
    for (const auto& op : re.plan.ranks[0].ops())
      if (op.category == program::Category::TensorParallelComm && op.kind == program::OpKind::Exchange &&
          layer_op(op.name))
        ++layer_exchanges;
    CHECK(layer_exchanges == exchanges * 6 / 4);
  }
  SECTION("sequence parallelism: reduce-scatter + all-gather, same bytes per rank") {
    s.parallelism.sequence_parallel = true;
    const auto sp = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
    double sent = 0;
    for (const auto& op : sp.plan.ranks[0].ops())
      if (op.category == program::Category::TensorParallelComm && layer_op(op.name))
        for (const auto& x : op.sends) sent += x.bytes;
    CHECK(sent == Approx(4.0 * gpt(s).layers * m * 2.0 * (t - 1) / t * bsh_B));
  }
}

TEST_CASE("parallel::plan_step: zero-cost network, bubble = (p-1)/(m+p-1)", "[parallel][pipeline]") {
  for (const std::string kind : {"gpipe", "1f1b"}) {
    for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}}) {
      auto s = scenario(1, p, 1, m);
      s.parallelism.schedule = kind;
      const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
      const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
      const auto metrics = report::compute_step_metrics(s, step, result);
      const double expected = (p - 1.0) / (m + p - 1.0);
      INFO("schedule " << kind << " p " << p << " m " << m);
      CHECK(metrics.bubble_fraction == Approx(expected).epsilon(1e-3));
      CHECK(metrics.ideal_bubble_fraction == Approx(expected));
    }
  }
}

TEST_CASE("parallel::plan_step: ZB-H1 on a zero-cost network idles (p-1)(F+B-2W), a third of 1F1B's",
          "[parallel][pipeline]") {
  // Only the layers' weight GEMMs cost time (fused attention is not a GEMM): each forward GEMM's
  // dgrad (B) and wgrad (W) take as long as it, F = B_input = W, the setting of Qi et al. 2024. Idle
  // (p-1)F against 3mF of work.
  for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}}) {
    auto s = scenario(1, p, 1, m);
    s.training.attention = config::Attention::Fused;
    s.parallelism.schedule = "zb-h1";
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
    const auto metrics = report::compute_step_metrics(s, step, result);
    const double expected = (p - 1.0) / (3.0 * m + p - 1.0);
    INFO("p " << p << " m " << m);
    CHECK(metrics.bubble_fraction == Approx(expected).epsilon(1e-3));
    CHECK(metrics.ideal_bubble_fraction == Approx(expected).epsilon(1e-9));
    // Same work as 1F1B, a shorter step.
    auto one_f_one_b = s;
    one_f_one_b.parallelism.schedule = "1f1b";
    const auto base = parallel::plan_step(one_f_one_b, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
    const auto base_result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), base.plan);
    CHECK(result.makespan_s < base_result.makespan_s);
    CHECK(base_result.makespan_s - result.makespan_s ==
          Approx(2.0 / 3.0 * (p - 1) * (base_result.makespan_s / (m + p - 1.0))).epsilon(1e-3));
  }
}

TEST_CASE("parallel::plan_step: DualPipe on a zero-cost network idles (p/2-1)(F&B+B-3W) and sums the mirror copies",
          "[parallel][pipeline]") {
  // As for ZB-H1, F = B_input = W per chunk. With no communication to hide, an F&B pair takes
  // F + B = 3F; it receives both inputs first and sends both outputs at its end, as DualPipe's
  // unit does. Each device idles (p/2-1)(3F + 2F - 3F) = 2(p/2-1)F against m chunk passes of 3F.
  for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}, {4, 12}, {6, 12}}) {
    auto s = scenario(1, p, 1, m);
    s.workload = test::with_transformer(test::small_gpt(), [p = p](workload::TransformerSpec& w) { w.layers = 2 * p; });
    s.training.attention = config::Attention::Fused;
    s.parallelism.schedule = "dualpipe";
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
    const auto metrics = report::compute_step_metrics(s, step, result);
    const double idle = 2.0 * (p / 2 - 1), work = 3.0 * m;
    INFO("p " << p << " m " << m);
    CHECK(metrics.bubble_fraction == Approx(idle / (idle + work)).margin(1e-5));  // the network costs ~1e-6
    CHECK(metrics.ideal_bubble_fraction == Approx(idle / (idle + work)).margin(1e-9));

    // Stage s and p-1-s hold chunks s and p-1-s each: summed pair by pair, the mirror all-reduces
    // carry every parameter once (a 2-rank ring sends its whole payload, 2(2-1)/2 = 1).
    double mirrored_B = 0;
    for (int r = 0; r < p / 2; ++r)
      for (const auto& op : step.plan.ranks[r].ops())
        if (op.name.find("mirror_grad.allreduce") != std::string::npos)
          for (const auto& x : op.sends) mirrored_B += x.bytes;
    CHECK(mirrored_B == Approx(2.0 * workload::describe(s).parameters()));  // bf16 gradients
  }
}

TEST_CASE("parallel::plan_step: DualPipe's F&B pairs hide tensor-parallel communication behind compute",
          "[parallel][pipeline]") {
  // tp 2 on a switch whose all-reduce of a layer's b*s*h takes about as long as a layer GEMM. With
  // the pairs interleaved, a collective of one pass runs behind the other's compute: the step is
  // shorter than with the passes in turn, by no more than the communication the pairs carry along
  // the pipeline (each collective is hidden once at most), and no shorter than with free
  // communication.
  const int t = 2, p = 4, m = 8;
  auto s = scenario(t, p, 1, m);
  s.training.attention = config::Attention::Fused;
  s.parallelism.schedule = "dualpipe";
  s.platform = test::switch_platform(t * p, 1e11, 0);
  const auto run = [&](const config::ScenarioSpec& sc, bool overlap) {
    parallel::PlanOptions options;
    options.overlap_forward_backward = overlap;
    const auto step = parallel::plan_step(sc, LayerGemmsOnly{}, parallel::plain_group_collectives(t * p), options);
    return std::pair{step, engine::simulate_forked(topology::ClusterTopology::build(sc.platform), step.plan)};
  };
  const auto [overlapped, with_overlap] = run(s, true);
  const auto [in_turn, without_overlap] = run(s, false);
  auto free = s;
  free.platform = test::switch_platform(t * p, 1e15, 0);
  const auto free_network = run(free, true).second;

  // In a pair, every collective is on the communication stream; in turn, on the compute stream.
  const auto paired_comm_s = [](const parallel::StepPlan& step, const engine::SimulationResult& result, int rank) {
    double total = 0;
    const auto& ops = step.plan.ranks[rank].ops();
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].category == program::Category::TensorParallelComm && ops[i].stream == program::Stream::Comm)
        total += result.ops[rank][i].duration_s();
    return total;
  };
  double hidden_at_most = 0;  // the pairs' collectives of tensor rank 0 of every stage
  for (int stage = 0; stage < p; ++stage) hidden_at_most += paired_comm_s(overlapped, with_overlap, stage * t);
  CHECK(hidden_at_most > 0);
  CHECK(paired_comm_s(in_turn, without_overlap, 0) == 0);
  CHECK(with_overlap.makespan_s < without_overlap.makespan_s);
  CHECK(without_overlap.makespan_s - with_overlap.makespan_s <= hidden_at_most * (1 + 1e-9));
  CHECK(with_overlap.makespan_s >= free_network.makespan_s);

  // The summary splits the pairs' collectives into the part the compute stream waits for and the
  // part that ran behind compute; in turn, nothing runs behind compute.
  const auto metrics = report::compute_step_metrics(s, overlapped, with_overlap);
  CHECK(metrics.tp_hidden_s > 0);
  double most_paired = 0;
  for (int r = 0; r < t * p; ++r) most_paired = std::max(most_paired, paired_comm_s(overlapped, with_overlap, r));
  CHECK(metrics.tp_hidden_s <= most_paired * (1 + 1e-9));
  CHECK(report::compute_step_metrics(s, in_turn, without_overlap).tp_hidden_s == 0);
}

namespace {

/// Prices memory-bound kernels at bytes / kBandwidth and everything else at 0: isolates the
/// gradient-accumulation kernels.
class MemoryBoundOnly final : public kernels::KernelCostModel {
public:
  static constexpr double kBandwidth = 1e12;  // B/s
  [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
    const bool accumulate = k.name.rfind("grad_accumulate", 0) == 0;
    return {accumulate ? k.bytes / kBandwidth : 0.0, kernels::Bound::Memory};
  }
  [[nodiscard]] std::string name() const override { return "accumulation-only"; }
};

double compute_time_s(const program::RankProgram& p, program::Category c) {
  double total = 0;
  for (const auto& op : p.ops())
    if (op.kind == program::OpKind::Compute && op.category == c) total += op.duration_s;
  return total;
}

}  // namespace

TEST_CASE("parallel::plan_step: unfused gradient accumulation adds 3e bytes per parameter per extra micro-batch",
          "[parallel]") {
  const int t = 2, m = 4;
  auto s = scenario(t, 1, 1, m);
  s.training.grad_accumulation_fusion = false;
  const auto step = parallel::plan_step(s, MemoryBoundOnly{}, parallel::plain_group_collectives(t));
  // Per micro-batch after the first, every parameter the rank holds is read twice and written once
  // in bf16: of a layer, the tensor-parallel shards of QKV (3h^2 + 3h), the projection (h^2), fc1
  // (hf + f) and fc2 (fh) and the replicated layernorms (2 x 2h) and row-parallel biases (2h); the
  // word embedding's shard (Vh/t) and the whole position embedding (sh); the final layernorm (2h).
  const auto& w = gpt(s);
  const double h = w.hidden, f = w.ffn_hidden, V = w.vocab_size, seq = w.seq_length;
  const double layer_params = (3 * h * h + 3 * h + h * h + h * f + f + f * h) / t + 6 * h;
  const double rank_params = w.layers * layer_params + V * h / t + seq * h + 2 * h;
  const double expected_s = (m - 1) * rank_params * 3 * 2 / MemoryBoundOnly::kBandwidth;
  CHECK(compute_time_s(step.plan.ranks[0], program::Category::Backward) == Approx(expected_s).epsilon(1e-9));

  s.training.grad_accumulation_fusion = true;
  const auto fused = parallel::plan_step(s, MemoryBoundOnly{}, parallel::plain_group_collectives(t));
  CHECK(compute_time_s(fused.plan.ranks[0], program::Category::Backward) == 0);
}

TEST_CASE("parallel::plan_step: tied embedding gradients all-reduced between first and last stage",
          "[parallel][pipeline]") {
  const int p = 4, dp = 2;
  auto s = scenario(1, p, dp, 4);
  const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p * dp));
  const parallel::DeviceGrid grid(s.parallelism);
  // Only the word embedding is tied to the logits layer (the position embedding lives on stage 0).
  const double embedding_B = static_cast<double>(gpt(s).vocab_size) * gpt(s).hidden * 2;
  for (int d = 0; d < dp; ++d)
    for (int stage = 0; stage < p; ++stage) {
      double sent = 0;
      for (const auto& op : step.plan.ranks[grid.rank(d, stage, 0)].ops())
        if (op.name.find("embedding_grad") != std::string::npos)
          for (const auto& x : op.sends) sent += x.bytes;
      // A ring all-reduce over 2 ranks sends 2 (p-1)/p = 1 buffer per rank; middle stages send none.
      INFO("replica " << d << " stage " << stage);
      CHECK(sent == Approx(stage == 0 || stage == p - 1 ? embedding_B : 0.0));
    }
}

TEST_CASE("parallel::plan_step: without overlap the gradient reduction starts after the last backward",
          "[parallel]") {
  auto s = scenario(1, 1, 4, 2);
  s.training.bucket_size_B = 1;  // a bucket per layer: with overlap, the first one starts mid-backward
  for (const bool overlap : {true, false}) {
    s.training.overlap_grad_reduce = overlap;
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(4));
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
    double last_backward_end = 0, first_reduce_start = 1e300;
    const auto& ops = step.plan.ranks[0].ops();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto& timing = result.ops[0][i];
      if (ops[i].category == program::Category::Backward) last_backward_end = std::max(last_backward_end, timing.end_s);
      if (ops[i].category == program::Category::DataParallelComm)
        first_reduce_start = std::min(first_reduce_start, timing.start_s);
    }
    INFO("overlap " << overlap);
    if (overlap)
      CHECK(first_reduce_start < last_backward_end);
    else
      CHECK(first_reduce_start >= last_backward_end);
  }
}

namespace {

/// Every collective the planner asks for, with its group and bytes (nccl-tests convention).
struct Requested {
  config::CollectiveOp op;
  std::vector<int> members;
  double bytes;
};

parallel::GroupCollectives recording_collectives(int devices, std::vector<Requested>& log) {
  const auto plain = parallel::plain_group_collectives(devices);
  auto c = plain;
  c.request = [plain, &log](config::CollectiveOp op, const std::vector<int>& members, double bytes) {
    log.push_back({op, members, bytes});
    return plain.request(op, members, bytes);
  };
  return c;
}

/// Requests of `op` over exactly `group`: how many, and their bytes summed.
std::pair<int, double> requested(const std::vector<Requested>& log, config::CollectiveOp op,
                                 const std::vector<int>& group) {
  int n = 0;
  double bytes = 0;
  for (const auto& q : log)
    if (q.op == op && q.members == group) {
      ++n;
      bytes += q.bytes;
    }
  return {n, bytes};
}

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

TEST_CASE("parallel::plan_step: scatter/gather sends 1/t of the activation and re-gathers it",
          "[parallel][pipeline]") {
  const int t = 2, p = 2, m = 3;
  auto s = scenario(t, p, 1, m);
  const double bsh_B = 1.0 * gpt(s).seq_length * gpt(s).hidden * 2;  // micro-batch 1, bf16
  const parallel::DeviceGrid grid(s.parallelism);
  struct Case {
    bool scatter_gather, sequence_parallel;
    double p2p_B;
    int regathers;  // all-gathers over a stage's tensor group per step: one per received tensor
  };
  for (const Case c : {Case{true, false, bsh_B / t, m}, Case{false, false, bsh_B, 0}, Case{true, true, bsh_B / t, 0},
                       Case{false, true, bsh_B / t, 0}}) {
    s.parallelism.scatter_gather = c.scatter_gather;
    s.parallelism.sequence_parallel = c.sequence_parallel;
    std::vector<Requested> log;
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(t * p, log));
    INFO("scatter_gather " << c.scatter_gather << " sequence_parallel " << c.sequence_parallel);
    CHECK(step.p2p_bytes == Approx(c.p2p_B));
    // Stage 1 receives m activations, stage 0 m gradients; with sequence parallelism the
    // tensor-parallel all-gathers are the layers' own, so count only pipeline-side requests.
    for (int stage = 0; stage < p; ++stage) {
      int regathers = 0;
      for (const auto& op : step.plan.ranks[grid.rank(0, stage, 0)].ops())
        if (op.category == program::Category::PipelineComm && op.name.find(".allgather") != std::string::npos &&
            op.kind == program::OpKind::Exchange)
          ++regathers;
      // A ring all-gather over t ranks is t - 1 exchange steps.
      CHECK(regathers == c.regathers * (t - 1));
    }
    if (c.regathers > 0) {
      const auto [n, bytes] = requested(log, config::CollectiveOp::AllGather, grid.tensor_group(0, 1));
      CHECK(n == m);
      CHECK(bytes == Approx(m * bsh_B));
    }
  }
}

TEST_CASE("parallel::plan_step: the last stage's wait for the first is drain, not embedding all-reduce",
          "[parallel][pipeline]") {
  const int p = 4, m = 4;
  auto s = scenario(1, p, 1, m);
  const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
  const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
  const parallel::DeviceGrid grid(s.parallelism);
  // In 1F1B the last stage finishes its backward (p - 1) backward slots before the first stage.
  const auto backward_end = [&](int rank) {
    double end = 0;
    const auto& ops = step.plan.ranks[rank].ops();
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].category == program::Category::Backward) end = std::max(end, result.ops[rank][i].end_s);
    return end;
  };
  const int first = grid.rank(0, 0, 0), last = grid.rank(0, p - 1, 0);
  const double drain = backward_end(first) - backward_end(last);
  REQUIRE(drain > 0);
  double wait = 0, allreduce = 0;
  const auto& ops = step.plan.ranks[last].ops();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name.find("embedding_grad.wait") != std::string::npos) wait += result.ops[last][i].duration_s();
    if (ops[i].name.find("embedding_grad.allreduce") != std::string::npos)
      allreduce += result.ops[last][i].duration_s();
  }
  // The network is (almost) free: the handshake holds the whole drain, the sum itself takes ~0.
  CHECK(wait == Approx(drain).epsilon(1e-4));
  CHECK(allreduce < 1e-3 * drain);
  const auto metrics = report::compute_step_metrics(s, step, result);
  CHECK(metrics.dp_exposed_s < 1e-3 * drain);
}
