#pragma once
// The model description: what a workload type tells the planner about one micro-batch on one
// device of a tensor-parallel group. A model is an ordered list of blocks; a block declares its
// kernels pass by pass, the points between them where tensor-parallel collectives go, its
// parameter tensors and the activations it keeps for the backward pass under each recomputation
// policy. Parameters, FLOPs and memory are summed from it (docs/workloads.md); planners lay its
// blocks out over stages and devices without knowing which workload type made them.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "config/CollectiveSpec.hpp"
#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::workload {

/// The devices a collective point spans: the block's tensor-parallel group (Megatron's f and g
/// operators), or its expert-parallel group (the devices at the same tensor rank and stage of `ep`
/// consecutive data-parallel replicas, which share the experts between them).
enum class CommGroup { Tensor, Expert };

/// A collective at the end of a segment: `ops` run one after the other, each over `bytes`
/// (nccl-tests convention: the all-reduce buffer; the total of an all-gather or reduce-scatter;
/// an all-to-all's send buffer per member). Empty `ops`: none at this sharding (tp = 1, ep = 1).
struct CommPoint {
  std::string name;                         // "tp1", "tp2", "ce", "dispatch"
  std::vector<config::CollectiveOp> ops;
  double bytes = 0;
  CommGroup group = CommGroup::Tensor;
  /// All-to-all-v over the expert group: matrix[i][j] bytes member i sends member j (the diagonal
  /// stays local). Empty: a uniform all-to-all of `bytes`.
  std::vector<std::vector<double>> matrix;
  /// A tensor-group collective whose size depends on the expert rank (the tokens an expert rank
  /// received): bytes for expert rank j. Empty: `bytes` everywhere.
  std::vector<double> bytes_by_expert_rank;
  /// DeepEP's all-to-all (moe.dispatcher: deepep): `matrix` holds one copy per token and device;
  /// across nodes one copy per token and node travels, to the rail peer (the hierarchical
  /// all-to-all). What the planner needs to size that: each member's share of the token slots.
  struct Deduplication {
    std::vector<double> member_share;
    int experts = 0;
    int top_k = 0;
  };
  std::optional<Deduplication> dedup;
  /// The exchange's sizes are read on the host before it is launched (the tokens per expert of a
  /// forward MoE dispatch): where the framework copies them (HostIssue::moe_dispatch_sync), the
  /// host waits for the kernels before it.
  bool counts_on_host = false;
  [[nodiscard]] bool active() const { return !ops.empty(); }
  /// A point named `name` with no collective (yet).
  static CommPoint named(std::string name, double bytes = 0) {
    CommPoint c;
    c.name = std::move(name);
    c.bytes = bytes;
    return c;
  }
};

/// Kernels that run back to back on the compute stream, then optionally a collective.
struct Segment {
  std::string name;                         // "attn", "mlp": op names when a pass has several
  std::vector<kernels::Kernel> kernels;
  CommPoint comm;                           // after the kernels; inactive when none
  /// Expert ranks that run other kernels than `kernels` (their experts' tokens): kernels of expert
  /// rank j. Empty: every device runs `kernels`.
  std::vector<std::vector<kernels::Kernel>> kernels_by_expert_rank;
};

/// A segment of `kernels` followed by `comm` (none by default).
inline Segment make_segment(std::string name, std::vector<kernels::Kernel> kernels, CommPoint comm = {}) {
  Segment s;
  s.name = std::move(name);
  s.kernels = std::move(kernels);
  s.comm = std::move(comm);
  return s;
}

/// One parameter tensor of a block, as one device of the tensor-parallel group holds it.
struct ParamTensor {
  std::string name;            // "qkv.weight"
  double elements = 0;         // on this device (a tensor-parallel shard, or the whole tensor when replicated)
  double model_elements = 0;   // in the model, counted once
  /// Non-empty: the same parameter as `tied_to` (a "<block>.<tensor>" name) of an earlier block —
  /// tied input and output embeddings. Where both sit on one pipeline stage it is one tensor (its
  /// gradient accumulates in place); on different stages each holds a copy whose gradients are
  /// summed after the data-parallel reduction.
  std::string tied_to;
  /// An expert's tensor: held by one expert rank, its gradient reduced over the expert-data-parallel
  /// group (the devices of the other expert groups that hold the same experts).
  bool expert = false;
  /// Its first dimension when viewed as a matrix (rows x elements/rows on this device, as PyTorch's
  /// PowerSGD hook views shape[0] x the rest); 1: a vector, or a shape the description does not give.
  double rows = 1;
};

/// Activation recomputation policies, indexable: config::Recompute's values in order.
inline constexpr int kRecomputePolicies = static_cast<int>(config::kAllRecomputes.size());
inline constexpr std::size_t policy_index(config::Recompute r) { return static_cast<std::size_t>(r); }

struct Block {
  std::string name;   // unique in the model: "embedding", "L12", "head", "conv1", "layer3.2"
  /// Blocks of equal `type` have identical passes, parameters and activations (they are priced
  /// once): "layer", "embedding", "bottleneck.256.s2".
  std::string type;
  std::vector<Segment> forward;
  std::vector<Segment> backward;
  /// The kernels each partial policy (config::partial_recompute) re-runs before the backward pass,
  /// by policy_index: selective's attention core (Korthikanti et al. 2022), op's unsaved forward
  /// ops. Empty for none and full (full re-runs the forward segments) and when the block has
  /// nothing to recompute under the policy.
  std::array<std::vector<kernels::Kernel>, kRecomputePolicies> partial_recompute{};
  /// Full recomputation applies to this block: its forward (segments and collectives) re-runs
  /// before its backward and only its input is kept (Megatron checkpoints transformer layers).
  bool checkpointable = false;
  /// A unit that pipeline partitions count (parallelism.layer_split): transformer layers, CNN
  /// blocks. Other blocks (embedding, head) join the first unit before them or the last after them.
  bool pipeline_unit = true;
  /// In the order the backward pass completes their gradients.
  std::vector<ParamTensor> params;
  /// Bytes kept from forward for backward, one micro-batch, this device, under each policy.
  std::array<double, kRecomputePolicies> saved_activation_B{};
  /// Bytes the block's backward allocates for a while beyond what it keeps, this device: the
  /// gradients of an unfused loss (TransformerModel::loss_transient_bytes). 0: none worth counting.
  double backward_transient_B = 0;
  /// Bytes the block's output activation takes on each device of the tensor group (the tensor a
  /// pipeline stage would send on).
  double output_B = 0;
  /// The output is the same on every tensor-parallel rank (not sequence-sharded): scatter/gather
  /// may send 1/t of it between stages and re-form it with an all-gather.
  bool output_replicated = true;

  /// Embedding tables a sparse optimizer updates inside the backward pass (DLRM's sharded tables):
  /// not in `params` (no dense gradient, reduction or optimizer step), their bytes counted here,
  /// per expert rank (the devices the tables are sharded over). Empty: none.
  std::vector<double> sparse_weights_B_by_expert_rank;
  std::vector<double> sparse_optimizer_B_by_expert_rank;  // their optimizer state
  double sparse_model_parameters = 0;                     // their elements in the model, counted once

  /// Parameter elements of this block on this device.
  [[nodiscard]] double device_parameters() const;
  /// Parameter elements of this block in the model (tied copies not counted).
  [[nodiscard]] double model_parameters() const;
};

/// Sums of kernel FLOPs over a list of segments (the mean expert rank's where they differ).
double model_flops(const std::vector<Segment>& pass);
double matmul_flops(const std::vector<Segment>& pass);
double matmul_flops(const std::vector<kernels::Kernel>& kernels);

/// How evenly the MoE layers spread their token copies over the expert ranks (docs/moe.md).
struct ExpertLoad {
  int moe_layers = 0;          // 0: a dense model
  double imbalance = 1;        // busiest expert rank's copies over the mean, averaged over MoE layers
  double dropped_share = 0;    // of the routed token copies, dropped at the capacity limit (mean)
};

struct ModelDescription {
  std::string type;                         // the workload type that made it: "transformer", "cnn"
  std::vector<Block> blocks;                // in model order
  int micro_batch = 1;                      // samples per pass the kernels are sized for
  int tensor_parallel = 1;                  // t the kernels are sharded over
  int expert_parallel = 1;                  // ep: devices sharing the experts (1: no experts split)
  double tokens_per_sample = 0;             // sequence length of language models; 0: no tokens
  std::string sample_unit = "samples";      // "sequences", "images"
  ExpertLoad expert_load;

  /// Parameters of the model (every block, tied copies once).
  [[nodiscard]] double parameters() const;
  /// Index of the block named `name`; throws clearfog::Error naming the model's blocks if absent.
  [[nodiscard]] std::size_t block_index(const std::string& name) const;
};

}  // namespace clearfog::workload
