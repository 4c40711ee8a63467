#pragma once
// Plans one training iteration of any workload described by a model description, with tensor x
// pipeline x data parallelism (Megatron-LM: Shoeybi et al. 2019, Narayanan et al. SC21,
// Korthikanti et al. 2022) and ZeRO/FSDP sharding (Rajbhandari et al. SC20); plain data
// parallelism is the case tp = pp = 1 (PyTorch DDP: Li et al. VLDB 2020). Pure: produces a
// program::Plan; the driver supplies priced collectives. Model and equations: docs/parallelism.md.
//
// Phases: the description is priced per block type (BlockCosts), its blocks assigned to model
// chunks (StagePartition); each stage's passes are laid out in its schedule's order (compute,
// tensor-parallel collectives, pipeline sends and receives, ZeRO-3 gathers); then the gradient
// reductions, the sum of tied parameters across stages and the optimizer steps follow
// (StepPlannerSync.cpp); figures are summed from the priced blocks.
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <memory>
#include <vector>

#include "collectives/ScheduleCache.hpp"
#include "collectives/TagAllocator.hpp"
#include "compression/GradCompression.hpp"
#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"
#include "kernels/ScaledCostModel.hpp"
#include "parallel/BlockCosts.hpp"
#include "parallel/ChunkPlacement.hpp"
#include "parallel/DeviceGrid.hpp"
#include "parallel/GradientAccumulation.hpp"
#include "parallel/GradientBuckets.hpp"
#include "parallel/GroupCollectives.hpp"
#include "parallel/HostLaunches.hpp"
#include "parallel/ParameterGathers.hpp"
#include "parallel/StagePartition.hpp"
#include "parallel/StepPlan.hpp"
#include "schedule/PipelineSchedule.hpp"
#include "workload/ModelDescription.hpp"

namespace clearfog::parallel {

struct PlanOptions {
  /// One compute op and one tensor-parallel collective (of the summed bytes) per pass of a model
  /// chunk's checkpointable blocks instead of per block: far fewer events for thousands of
  /// devices, the same busy times.
  bool fuse_chunk_layers = false;
  /// Interleave the two passes of DualPipe's F&B pairs, their collectives on the communication
  /// stream; off: the pair's passes run one after the other (an ablation for tests and studies).
  bool overlap_forward_backward = true;
};

/// Plans `scenario`'s iteration. Throws clearfog::Error for a layout the workload cannot take
/// (the scenario checks reject these first).
StepPlan plan_step(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                   const GroupCollectives& collectives, const PlanOptions& options = {});

/// The blocks of each model chunk for `scenario` (pp x virtual stages, model order), as the
/// planner and the memory estimate split them.
std::vector<BlockRange> scenario_chunks(const config::ScenarioSpec& scenario, const workload::ModelDescription& model,
                                        const std::vector<double>& block_time_s);

/// The schedule the scenario's pipeline runs (1F1B where there is none, pp = 1) and its shape.
const schedule::PipelineScheduleType& scenario_schedule(const config::ScenarioSpec& scenario);
schedule::PipelineShape scenario_pipeline_shape(const config::ScenarioSpec& scenario);

namespace detail {

/// A parameter tensor a device holds as its own (tied copies on the same stage as their origin
/// are not), with the op after which its gradient is complete.
struct ReadyGradient {
  program::OpIndex op = 0;
  double bytes = 0;
  std::string name;
  int unit = 0;  // the ZeRO-3 / FSDP unit (block or fused run) it belongs to
  bool expert = false;  // reduced over the expert-data-parallel group
  double rows = 1;      // first dimension as a matrix (ParamTensor::rows), for gradient compression
};

/// Tied parameters whose origin and copy sit on different pipeline stages (Megatron's embedding
/// and logits weight): their gradients are summed between the two after the data-parallel
/// reduction.
struct TiedCopy {
  int origin_stage = 0, copy_stage = 0;
  double elements = 0;  // per device
  std::string name;
};

class StepPlanner {
public:
  StepPlanner(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
              const GroupCollectives& collectives, const PlanOptions& options);
  StepPlan plan();

private:
  // Phase 1: chunks, own parameters, accumulation and optimizer prices (StepPlanner.cpp).
  void assign_blocks();
  void price_stages();
  [[nodiscard]] schedule::PassTimes ideal_pass_times() const;
  // Phase 2: each stage's passes in schedule order (StepPlannerPasses.cpp).
  /// One pass of a micro-batch through a model chunk on the stage being laid out; first and
  /// final: whether it is the chunk's first / last pass on the stage that completes gradients.
  struct ChunkPass {
    schedule::PipelineStep::Pass pass = schedule::PipelineStep::Pass::Forward;
    int chunk = 0;  // model chunk
    int micro_batch = 0;
    bool first = false, final = false;
  };
  void lay_out_stage(int stage);
  /// The pipeline receives a pass waits for (activations from the chunk below, gradients from
  /// the one above) and the sends of its outputs.
  void receive_inputs(int stage, const ChunkPass& pass);
  void send_outputs(int stage, const ChunkPass& pass);
  void run_body(int stage, const ChunkPass& pass);
  /// DualPipe's F&B: two passes' ops interleaved compute op by compute op, their collectives on
  /// the communication stream, so each one's communication runs behind the other's compute
  /// (StepPlannerOverlap.cpp).
  void run_overlapped(int stage, const ChunkPass& a, const ChunkPass& b);
  /// An op-emitting call recorded instead of run (while recording_ is set), to be replayed in an
  /// interleaved order; `compute`: it adds compute ops.
  struct Deferred {
    std::function<void()> run;
    bool compute = false;
  };
  void forward_chunk(int stage, int chunk, int mb);
  /// Which part of a backward pass runs: all of it, or (zero-bubble schedules) the input
  /// gradients (B) or the weight gradients (W) alone.
  enum class BackwardPart { Whole, Input, Weight };
  void backward_chunk(int stage, int chunk, int mb, BackwardPart part);
  void weight_chunk(int stage, int chunk, int mb);
  /// A block's pass on every replica of the stage: compute ops (each replica its own time: expert
  /// ranks differ) and the collectives between them.
  void run_segments(const std::vector<PricedSegment>& segments, program::Category category,
                    const std::string& prefix, const std::vector<double>& extra_s,
                    BackwardPart part = BackwardPart::Whole, std::size_t extra_kernels = 0);
  /// One compute op per member of every replica after its latest op (and, unless told otherwise,
  /// after the ZeRO-3 gather its unit waits for).
  /// `kernels`: how many kernels each op launches (the host's share, docs/host-time.md).
  void compute(program::Category category, const std::string& name, const std::vector<double>& seconds,
               std::size_t kernels, bool wait_for_gathers = true);
  /// The host launch a collective's first exchange on `rank` waits for, added to `deps`.
  void launch_collective(int rank, std::vector<program::OpIndex>& deps);
  /// Kernels of one optimizer step on a device of `stage` (multi-tensor launches).
  [[nodiscard]] std::size_t optimizer_launches(int stage) const;
  /// Kernels of a block's pass (the part of a split backward), and of its unfused accumulation.
  [[nodiscard]] std::size_t pass_kernels(std::size_t block, bool forward, BackwardPart part = BackwardPart::Whole) const;
  [[nodiscard]] std::size_t segment_kernels(const PricedSegment& segment, BackwardPart part) const;
  [[nodiscard]] std::size_t accumulate_kernels(std::size_t block, double scale) const;
  void collectives(const std::vector<workload::CommPoint>& points, const std::string& name);
  /// While recording: records `call`, to run on the collective stream of now, and returns true.
  bool record_collective(std::function<void()> call);
  void tensor_collective(config::CollectiveOp op, const workload::CommPoint& point, const std::string& name);
  void expert_collective(config::CollectiveOp op, const workload::CommPoint& point, const std::string& name);
  [[nodiscard]] std::vector<double> replica_times(const PricedSegment& segment,
                                                  BackwardPart part = BackwardPart::Whole) const;
  [[nodiscard]] std::vector<double> pass_times(std::size_t block, bool forward,
                                               BackwardPart part = BackwardPart::Whole) const;
  /// Per replica of the stage being laid out, on its kind of device (platform.mixed): the
  /// block's partial recomputation under the scenario's policy (selective or op), and `scale`
  /// times its unfused gradient accumulation.
  [[nodiscard]] std::vector<double> partial_recompute_times(std::size_t block) const;
  /// A run of checkpointable blocks laid out as one unit (PlanOptions::fuse_chunk_layers): their
  /// passes' times, kernels and collectives summed, per replica.
  struct FusedRun {
    std::vector<double> forward_s, backward_s, partial_s;
    std::vector<workload::CommPoint> forward_points, backward_points;
    std::size_t forward_kernels, backward_kernels, partial_kernels;
  };
  [[nodiscard]] FusedRun fused_run(std::size_t first, std::size_t last, BackwardPart part, double accumulating) const;
  /// What the scenario's recomputation policy re-runs before a fused run's backward, or a block's
  /// (docs/recompute.md; StepPlannerRecompute.cpp, with partial_recompute_times and fused_run).
  void recompute_run(const FusedRun& run, const std::string& prefix);
  void recompute_block(std::size_t block, const std::string& name);
  [[nodiscard]] std::vector<double> accumulate_times(std::size_t block, double scale) const;
  /// Whether replica d of the stage being laid out runs on the platform's second kind of device.
  [[nodiscard]] bool mixed_replica(int d) const {
    return static_cast<std::size_t>(d) < replica_kind_.size() && replica_kind_[static_cast<std::size_t>(d)] == 1;
  }
  /// Mixed platforms: the second kind's prices, and the counterpart of each first-kind segment.
  void price_mixed_kind();
  static void add_times(std::vector<double>& into, const std::vector<double>& more, double scale = 1);
  void receive(int stage, int d, int direction, int from_chunk, int mb, const std::string& name);
  void send(int stage, int d, int direction, int chunk, int to_chunk, int mb, const std::string& name);
  /// Host time the devices of the stage wait for before a pass (FrameworkProfile::host_per_micro_batch_s).
  void host_wait(const std::string& name);
  /// Blocks [first, end) as one unit of parameters run by `ops` in pass `pass` (Forward or Backward): under ZeRO-3 its
  /// gathers first, and FSDP2's copy-out of them (ParameterGathering::copy_out).
  template <typename Ops>
  void unit(int stage, std::size_t first, std::size_t end, const std::string& name, program::Category pass,
            const Ops& ops);
  /// The elements each of the unit's all-gathers moves (FrameworkProfile::sharding).
  [[nodiscard]] std::vector<double> gathered_elements(std::size_t first, std::size_t end) const;
  /// Each replica's time to copy `elements` gathered parameters out of the all-gather's output
  /// into the parameters' own tensors: one memory-bound kernel reading and writing them.
  [[nodiscard]] std::vector<double> copy_out_times(double elements) const;
  /// Records the block's gradients as ready after each member's latest op: for the reduction when
  /// this is the chunk's last gradient pass of the iteration (final_pass_), and per pass under ZeRO-2/3.
  void record_gradients(std::size_t block, int unit);
  /// Whether the gradients of the pass being laid out are reduced while the backward goes on (data
  /// parallelism with overlap, DDP-style buckets rather than ZeRO-3 units).
  [[nodiscard]] bool reducing_during_backward() const;
  /// The first block of the fused backward run that ends at block `last` (none before `first`):
  /// the run ends after the block whose gradients close a bucket, so that the bucket's reduction
  /// starts when it would with an op per block (granularity changes the event count, not overlap).
  [[nodiscard]] std::size_t bucket_run_start(std::size_t first, std::size_t last) const;
  // Phase 3: reductions, tied parameters, optimizer (StepPlannerSync.cpp).
  /// The groups gradients are reduced over at (stage, tensor rank): the data group for dense
  /// tensors, each expert-data group for experts' (bool: expert).
  [[nodiscard]] std::vector<std::pair<std::vector<int>, bool>> reduction_groups(int stage, int t) const;
  void reduce_gradients(const std::vector<int>& group, const std::vector<std::vector<ReadyGradient>>& lists,
                        bool expert, const std::string& label);
  void reduce_pass_gradients(int stage, const std::string& label);
  /// `group`'s members cut into shard groups (parallelism.shard_group; one group without hybrid sharding).
  [[nodiscard]] std::vector<std::vector<int>> shard_groups(const std::vector<int>& group) const;
  /// A data-parallel collective over `group` on the communication stream, per shard group; a
  /// hybrid-sharded reduce-scatter is followed by the all-reduce of each shard over its replicas.
  /// Returns each member's last op.
  std::vector<program::OpIndex> data_collective(config::CollectiveOp op, const std::vector<int>& group, double bytes,
                                                std::vector<std::vector<program::OpIndex>> deps,
                                                const std::string& name);
  [[nodiscard]] std::vector<GradientBucket> buckets_of(const std::vector<ReadyGradient>& list) const;
  void reduce_data_groups();
  // Gradient compression (StepPlannerCompression.cpp): each bucket is packed as the last
  // micro-batch's backward completes it, its first encode kernels queue on the compute stream at
  // once (competing with the rest of the backward), its collectives follow on Comm in phase 3.
  /// One compressed bucket of one rank.
  struct CompressedBucket {
    compression::BucketCompression work;
    std::vector<program::OpIndex> ready;  // the gradient that completed it, then its round-0 encode op
    bool encoded = false;        // round 0's encode op laid out
  };
  /// One rank's buckets of one kind (dense or experts' gradients).
  struct CompressionLane {
    GradientBucketPacker packer;
    std::vector<compression::GradientTensorShape> open;  // tensors of the bucket being filled
    int tensors = 0;                                      // packed so far (their ready slots)
    program::OpIndex last_gradient = 0;                   // the op after which the last one is ready
    std::vector<CompressedBucket> buckets;
  };
  [[nodiscard]] bool compressing() const { return compressing_; }
  void compress_gradient(int rank, const ReadyGradient& gradient);
  void close_compressed_buckets(int stage);
  void close_bucket(int rank, bool expert, program::OpIndex ready);
  void encode_round0(int rank, bool expert, CompressedBucket& bucket, const std::vector<program::OpIndex>& after);
  void reduce_compressed(const std::vector<int>& group, bool expert, const std::string& label);
  [[nodiscard]] double kernels_time(const std::vector<kernels::Kernel>& kernels, int rank,
                                    const std::string& pass);
  CompressionLane& lane(int rank, bool expert);

  void sum_tied_copies();
  void optimizer_steps();
  /// Megatron-core's --overlap-param-gather in the steady state: the previous step's parameter
  /// all-gathers laid out at the start of this one, bucket by bucket in forward order
  /// (StepPlannerSync.cpp); the forward of a block waits for its bucket (await_parameter_gathers).
  void issue_parameter_gathers();
  void await_parameter_gathers(std::size_t first, std::size_t end);
  void sum_figures();

  /// The stage running model chunk k for micro-batch mb's direction.
  [[nodiscard]] int stage_of(int chunk, int mb) const { return placement_.stage(chunk, placement_.direction_of(mb)); }
  [[nodiscard]] const std::vector<int>& holders_of_block(std::size_t block) const {
    return placement_.holders(chunk_of_block_[block]);
  }
  void add_tied_copy(std::size_t block, const workload::ParamTensor& p);
  void add_mirror_copies();
  /// The pipeline send/receive stream of micro-batch mb under the framework's p2p mode: DualPipe's
  /// reverse direction has a stream of its own, so the two directions' FIFOs never wait on each other.
  [[nodiscard]] program::Stream p2p_stream(int mb, program::Stream forward_stream) const;
  [[nodiscard]] double p2p_bytes(int chunk) const;
  [[nodiscard]] std::uint64_t p2p_tag(int direction, int chunk, int mb, int d, int t) const;

  const config::ScenarioSpec& scenario_;
  const GroupCollectives& collectives_;
  PlanOptions options_;
  kernels::ScaledCostModel stack_costs_;  // the caller's prices times the framework's kernel-time factor
  workload::ModelDescription model_;
  BlockCosts costs_;
  const kernels::KernelCostModel& cost_model_;
  int tp_, pp_, dp_, ep_, v_, chunks_, m_;
  int shard_;  // ZeRO / FSDP shard degree: dp, or parallelism.shard_group under hybrid sharding
  double element_B_;   // bytes of a parameter element as gathered: the storage dtype (bf16 with fp8 training)
  DType gradient_dtype_;  // a gradient element as the data-parallel reduction moves it
  double gradient_B_;     // its bytes
  GradientAccumulation accumulation_;  // how micro-batches' gradients are summed without fusion
  DeviceGrid grid_;
  const schedule::PipelineScheduleType& schedule_;
  schedule::PipelineShape shape_;
  ChunkPlacement placement_;
  StepPlan step_;
  collectives::TagAllocator tags_;
  collectives::ScheduleCache schedules_;  // lowered collective schedules by shape
  std::optional<ParameterGathers> gathers_;
  std::optional<HostLaunches> host_;
  std::vector<std::size_t> stage_tensors_;  // per stage: parameter tensors a device updates
  std::uint64_t p2p_base_ = 0;
  double weight_s_ = 0;  // the busiest stage's weight-gradient time per micro-batch
  int units_ = 0;  // parameter units laid out so far (ZeRO-3 buckets)
  bool reduce_every_pass_ = false, gather_parameters_ = false;
  bool hold_gathered_ = false;  // a unit gathered once stays gathered over the step (FSDP2 under PP)
  bool gather_ahead_ = false;   // ZeRO-1/2 parameter all-gathers behind the forward
  std::vector<std::vector<std::optional<program::OpIndex>>> ahead_;  // per rank and block: its bucket's gather
  std::vector<bool> gathered_;  // per block: gathered already this step (with hold_gathered_)
  bool has_experts_ = false;  // the model has expert tensors
  const compression::GradCompressionMethod& compression_;  // training.grad_compression.method
  bool compressing_ = false;  // a method other than none, with data parallelism
  std::vector<std::vector<CompressionLane>> lanes_;  // per rank: dense, then experts
  // The pass being laid out: the first and the last of its chunk on its stage to complete gradients.
  bool first_pass_ = true, final_pass_ = false;
  std::vector<Deferred>* recording_ = nullptr;  // set: compute, collectives and gradients are recorded
  program::Stream collective_stream_ = program::Stream::Compute;  // of tensor/expert collectives

  std::vector<BlockRange> chunk_blocks_;               // per model chunk
  std::vector<int> chunk_of_block_;
  std::vector<std::vector<workload::ParamTensor>> own_params_;  // per block
  std::vector<double> accumulate_s_;                   // per block, unfused accumulation per micro-batch
  std::vector<TiedCopy> tied_;
  std::vector<double> stage_parameters_;               // per stage: what each device's optimizer updates
  std::vector<double> optimizer_s_;                    // per stage

  // A mixed platform's second kind of device (platform.mixed): its kernel prices, each first-kind
  // segment's counterpart there, its accumulation and optimizer times, and the kind of each
  // replica of the stage being laid out (that of its first tensor rank).
  std::unique_ptr<kernels::KernelCostModel> mixed_kernels_;
  std::unique_ptr<kernels::ScaledCostModel> mixed_stack_;
  std::unique_ptr<BlockCosts> mixed_costs_;
  std::unordered_map<const PricedSegment*, const PricedSegment*> counterpart_;
  std::vector<double> mixed_accumulate_s_, mixed_optimizer_s_;
  std::vector<int> replica_kind_;

  // Per stage being laid out: each replica's tensor group and its members' latest compute op; the
  // bucket packing of the gradients to reduce, as they become ready (dense, experts).
  std::vector<std::vector<int>> members_;
  std::vector<GradientBucketPacker> reduction_packers_;
  std::vector<std::vector<program::OpIndex>> last_;
  // Per rank.
  std::vector<std::vector<ReadyGradient>> ready_, pass_ready_;
  std::vector<std::vector<program::OpIndex>> last_backward_, synced_;
};

}  // namespace detail

}  // namespace clearfog::parallel
