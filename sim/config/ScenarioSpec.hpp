#pragma once
// One simulation: a platform, a workload, how it is trained and how it is parallelized.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compression/GradCompression.hpp"
#include "config/CollectiveSpec.hpp"
#include "config/FrameworkProfile.hpp"
#include "config/PlatformSpec.hpp"
#include "config/StragglerSpec.hpp"
#include "config/WorkloadSpec.hpp"
#include "core/AttentionKernel.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

enum class Optimizer { Adam, Sgd };

inline constexpr std::array<Optimizer, 2> kAllOptimizers = {Optimizer::Adam, Optimizer::Sgd};

/// The spelling used in `training.optimizer:`.
constexpr std::string_view optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::Adam: return "adam";
    case Optimizer::Sgd: return "sgd";
  }
  return "?";
}

constexpr std::optional<Optimizer> parse_optimizer(std::string_view name) {
  for (Optimizer o : kAllOptimizers)
    if (optimizer_name(o) == name) return o;
  return std::nullopt;
}

/// Activation recomputation (Korthikanti et al. 2022): none; selective: the attention core (scores,
/// softmax, dropout, attention over V) is recomputed in backward; full: every layer's forward is
/// recomputed before its backward, only layer inputs are kept; op: PyTorch's per-op selective
/// checkpointing as torchtitan configures it (matrix products and attention saved, every second
/// matrix product and every other op recomputed; docs/recompute.md).
enum class Recompute { None, Selective, Full, Op };

inline constexpr std::array<Recompute, 4> kAllRecomputes = {Recompute::None, Recompute::Selective, Recompute::Full,
                                                            Recompute::Op};

/// A policy that re-runs some of a layer's forward kernels before its backward (not all: full).
constexpr bool partial_recompute(Recompute r) { return r == Recompute::Selective || r == Recompute::Op; }

constexpr std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
    case Recompute::Op: return "op";
  }
  return "?";
}

constexpr std::optional<Recompute> parse_recompute(std::string_view name) {
  for (Recompute r : kAllRecomputes)
    if (recompute_name(r) == name) return r;
  return std::nullopt;
}

/// Ops per layer pass: `layer` (compute op and collectives per layer; gradients ready layer by
/// layer), `chunk` (one op per model chunk and pass: far fewer events), `auto` (chunk when the
/// collectives are fluid).
enum class Granularity { Auto, Layer, Chunk };

inline constexpr std::array<Granularity, 3> kAllGranularities = {Granularity::Auto, Granularity::Layer,
                                                                 Granularity::Chunk};

constexpr std::string_view granularity_name(Granularity g) {
  switch (g) {
    case Granularity::Auto: return "auto";
    case Granularity::Layer: return "layer";
    case Granularity::Chunk: return "chunk";
  }
  return "?";
}

constexpr std::optional<Granularity> parse_granularity(std::string_view name) {
  for (Granularity g : kAllGranularities)
    if (granularity_name(g) == name) return g;
  return std::nullopt;
}

/// Attention kernels: unfused (QK^T, softmax, dropout and PV as separate kernels that move the
/// b*a*s^2 scores through memory, as the Megatron-LM runs of the validations did) or fused (one
/// FlashAttention-2-style kernel per pass; docs/compute-model.md, "Fused attention").
enum class Attention { Unfused, Fused };

inline constexpr std::array<Attention, 2> kAllAttentions = {Attention::Unfused, Attention::Fused};

constexpr std::string_view attention_name(Attention a) {
  switch (a) {
    case Attention::Unfused: return "unfused";
    case Attention::Fused: return "fused";
  }
  return "?";
}

constexpr std::optional<Attention> parse_attention(std::string_view name) {
  for (Attention a : kAllAttentions)
    if (attention_name(a) == name) return a;
  return std::nullopt;
}

/// parallelism.partition: how chunks split a workload's pipeline units without a layer_split.
enum class StagePartitionChoice { Auto, Even, Balanced };

inline constexpr std::array<StagePartitionChoice, 3> kAllStagePartitionChoices = {
    StagePartitionChoice::Auto, StagePartitionChoice::Even, StagePartitionChoice::Balanced};

constexpr std::string_view stage_partition_choice_name(StagePartitionChoice p) {
  switch (p) {
    case StagePartitionChoice::Auto: return "auto";
    case StagePartitionChoice::Even: return "even";
    case StagePartitionChoice::Balanced: return "balanced";
  }
  return "?";
}

constexpr std::optional<StagePartitionChoice> parse_stage_partition_choice(std::string_view name) {
  for (StagePartitionChoice p : kAllStagePartitionChoices)
    if (stage_partition_choice_name(p) == name) return p;
  return std::nullopt;
}

/// moe.routing: how a micro-batch's tokens are spread over the experts.
enum class Routing { Balanced, Zipf, Trace };

inline constexpr std::array<Routing, 3> kAllRoutings = {Routing::Balanced, Routing::Zipf, Routing::Trace};

constexpr std::string_view routing_name(Routing r) {
  switch (r) {
    case Routing::Balanced: return "balanced";
    case Routing::Zipf: return "zipf";
    case Routing::Trace: return "trace";
  }
  return "?";
}

constexpr std::optional<Routing> parse_routing(std::string_view name) {
  for (Routing r : kAllRoutings)
    if (routing_name(r) == name) return r;
  return std::nullopt;
}

/// How the expert all-to-alls carry tokens (docs/moe.md, "Dispatchers"): Megatron's all-to-all
/// dispatcher sends one copy per routed (token, expert) pair; DeepEP one per (token, device) and,
/// across nodes, one per (token, node) through the rail peer (collectives' hierarchical all-to-all).
enum class Dispatcher { AllToAll, DeepEp };

inline constexpr std::array<Dispatcher, 2> kAllDispatchers = {Dispatcher::AllToAll, Dispatcher::DeepEp};

constexpr std::string_view dispatcher_name(Dispatcher d) { return d == Dispatcher::AllToAll ? "alltoall" : "deepep"; }

constexpr std::optional<Dispatcher> parse_dispatcher(std::string_view name) {
  for (Dispatcher d : kAllDispatchers)
    if (dispatcher_name(d) == name) return d;
  return std::nullopt;
}

/// Token routing of Mixture-of-Experts layers (docs/moe.md): balanced (every expert the same
/// share), zipf (expert loads ~ 1/rank^s, the ranks a seeded shuffle per layer), or a trace of
/// per-layer expert loads.
struct MoeSpec {
  Routing routing = Routing::Balanced;
  double zipf_exponent = 1.0;
  std::uint64_t seed = 0;
  std::string trace_file;                     // routing: trace
  std::vector<std::vector<double>> trace;     // one row of expert loads per MoE layer (cycled)
  std::optional<DType> dispatch_precision;    // tokens on the wire (DeepSeek-V3: fp8); absent: training
  Dispatcher dispatcher = Dispatcher::AllToAll;
};

/// The axes of the device grid, for `parallelism.order` (first = fastest-varying rank index).
enum class ParallelAxis { Tensor, Pipeline, Data };

inline constexpr std::array<ParallelAxis, 3> kAllParallelAxes = {ParallelAxis::Tensor, ParallelAxis::Pipeline,
                                                                  ParallelAxis::Data};

constexpr std::string_view parallel_axis_name(ParallelAxis a) {
  switch (a) {
    case ParallelAxis::Tensor: return "tp";
    case ParallelAxis::Pipeline: return "pp";
    case ParallelAxis::Data: return "dp";
  }
  return "?";
}

constexpr std::optional<ParallelAxis> parse_parallel_axis(std::string_view name) {
  for (ParallelAxis a : kAllParallelAxes)
    if (parallel_axis_name(a) == name) return a;
  return std::nullopt;
}

struct TrainingSpec {
  int global_batch = 0;        // sequences per iteration, all replicas together
  int micro_batch = 1;         // sequences per forward/backward pass on one replica
  DType precision = DType::bf16;
  Optimizer optimizer = Optimizer::Adam;
  double bucket_size_B = 25e6; // DDP gradient bucket (PyTorch default 25 MB)
  bool overlap_grad_reduce = true;       // DP reduction overlaps the last backward (else: after the flush)
  bool grad_accumulation_fusion = true;  // false: a separate gradient add per micro-batch after the first
  Recompute recompute = Recompute::None;
  Attention attention = Attention::Unfused;
  AttentionKernel attention_kernel = AttentionKernel::Flash2;  // which fused kernel, where attention is fused
  bool batchnorm_relu_fusion = false;    // CNNs: batch norm (+ residual add) + ReLU in one kernel
  compression::Settings grad_compression;  // of the data-parallel gradient buckets (method "none": syncSGD)
};

struct ParallelismSpec {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  bool sequence_parallel = false;   // TP all-reduces become reduce-scatter + all-gather
  int virtual_stages = 1;           // model chunks per device (interleaved schedule)
  std::string schedule = "1f1b";   // a name in schedule::pipeline_schedules()
  std::vector<int> layer_split;     // pipeline units per model chunk, in model order; empty: `partition`
  StagePartitionChoice partition = StagePartitionChoice::Auto;
  bool scatter_gather = true;       // inter-stage activations sent as 1/tp slices (Megatron SC21 §4.1)
  int ep = 1;                       // expert parallelism: experts split over ep consecutive replicas
  int zero_stage = 0;               // 0 none, 1 optimizer, 2 + gradients, 3 + parameters (FSDP)
  /// ZeRO / FSDP shard over groups of this many data-parallel replicas (consecutive data indices)
  /// and replicate across them (FSDP HYBRID_SHARD, HSDP); 0: the whole data group.
  int shard_group = 0;
  [[nodiscard]] int shard_degree() const { return shard_group > 0 ? shard_group : dp; }
  [[nodiscard]] bool hybrid_sharding() const { return zero_stage >= 1 && shard_degree() < dp; }
  /// Rank = sum over axes of index * stride, order[0] varying fastest.
  std::array<ParallelAxis, 3> order = {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data};
};

struct ScenarioSpec {
  std::string name;
  std::string file;            // path the scenario was loaded from ("" if built in code)
  PlatformSpec platform;
  WorkloadSpec workload;
  TrainingSpec training;
  ParallelismSpec parallelism;
  CollectivesSpec collectives;
  MoeSpec moe;
  StragglerSpec stragglers;
  Granularity granularity = Granularity::Auto;
  /// The software stack (`framework:`); its DDP flavour, gradient-accumulation fusion and attention
  /// agree with `training` (the scenario's keys win over the profile's). A default-built profile
  /// is megatron-2022's behaviour.
  FrameworkProfile framework;

  /// The type data-parallel gradient reductions move: the framework's reduce dtype, else the type
  /// the training precision keeps gradients in (bf16 for fp8 training).
  [[nodiscard]] DType gradient_reduce_dtype() const {
    if (framework.gradient_reduce_dtype) return *framework.gradient_reduce_dtype;
    const DType stored = storage_dtype(training.precision);
    return stored == DType::bf16 && framework.bf16_gradients_in_fp32 ? DType::fp32 : stored;
  }
  /// The optimizer's passes as this scenario runs them: where the framework's fp32 main gradients
  /// are what it reduces (Megatron's main_grad in fp32), the optimizer reads them in place and no
  /// 16-to-32-bit gradient copy runs.
  [[nodiscard]] OptimizerPasses optimizer_passes() const {
    OptimizerPasses passes = framework.optimizer;
    if (passes.master_copies && framework.bf16_gradients_in_fp32 && gradient_reduce_dtype() == DType::fp32)
      passes.gradient_copy = false;
    return passes;
  }
  /// Whether each pipeline stage sums its micro-batches' gradients unsharded and reduces the sum
  /// once (ParameterGathering::pipeline_holds_unsharded, under ZeRO-2/3 with pp > 1).
  [[nodiscard]] bool sums_gradients_unsharded() const {
    return parallelism.zero_stage >= 2 && parallelism.dp > 1 && parallelism.pp > 1 &&
           framework.sharding.pipeline_holds_unsharded;
  }
  /// Whether, moreover, each stage gathers its sharded parameters once and holds them (ZeRO-3).
  [[nodiscard]] bool holds_unsharded_parameters() const {
    return parallelism.zero_stage >= 3 && sums_gradients_unsharded();
  }
  /// Whether every micro-batch reduces its own gradients (ZeRO-2/3 keep a shard of the sum) rather
  /// than the last one reducing the whole sum.
  [[nodiscard]] bool reduces_every_micro_batch() const {
    return parallelism.zero_stage >= 2 && parallelism.dp > 1 && !sums_gradients_unsharded();
  }
  /// Whether the updated ZeRO-1/2 parameter shards are all-gathered behind the next forward
  /// (FrameworkProfile::overlap_param_gather) rather than after the optimizer.
  [[nodiscard]] bool gathers_parameters_ahead() const {
    return framework.overlap_param_gather && parallelism.zero_stage >= 1 && parallelism.zero_stage <= 2 &&
           parallelism.dp > 1;
  }
  /// Micro-batches each replica runs per iteration (gradient accumulation steps).
  [[nodiscard]] int micro_batches_per_replica() const {
    return global_batch_per_replica() / training.micro_batch;
  }
  [[nodiscard]] int global_batch_per_replica() const { return training.global_batch / parallelism.dp; }
};

}  // namespace clearfog::config
