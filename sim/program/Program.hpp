#pragma once
// The intermediate form between planning and simulation: one program per rank, made of compute
// and exchange operations with dependencies. Planners write it without knowing SimGrid; the engine
// carries it out without knowing models.
//
// Execution rules (docs/step-model.md):
//  - each op runs on one stream of its rank; ops of a stream run one after another in program order;
//  - an op also waits for every op listed in `deps` (same rank, any stream);
//  - an Exchange posts all its sends and receives at once and ends when all have completed;
//  - a send to `peer` with tag t matches the receive from this rank with the same tag on `peer`.
#include <cstdint>
#include <string>
#include <vector>

namespace clearfog::program {

using OpIndex = std::uint32_t;

/// Gather: ZeRO-3 / FSDP parameter all-gathers, on their own stream (FSDP's all-gather stream) so
/// that they neither wait behind nor hold up the gradient reductions of Comm.
enum class Stream : std::uint8_t { Compute, Comm, Gather };
inline constexpr int kStreamCount = 3;

enum class OpKind : std::uint8_t { Compute, Exchange };

/// What the time of an op is accounted as in reports.
/// Recompute: forward kernels re-run in backward (activation recomputation).
enum class Category : std::uint8_t {
  Forward,
  Backward,
  Optimizer,
  DataParallelComm,    // gradient reduction, ZeRO gathers
  TensorParallelComm,  // Megatron all-reduces (or reduce-scatter + all-gather) inside a layer
  PipelineComm,        // activations and gradients between pipeline stages
  Recompute,
  ExpertParallelComm,  // MoE token dispatch and combine (all-to-all over the expert group)
};
inline constexpr int kCategoryCount = 8;

std::string_view stream_name(Stream s);
std::string_view category_name(Category c);

struct Transfer {
  int peer = -1;            // the other rank
  double bytes = 0;         // payload, B
  std::uint64_t tag = 0;    // matches a send with its receive
};

struct Op {
  OpKind kind = OpKind::Compute;
  Stream stream = Stream::Compute;
  Category category = Category::Forward;
  std::string name;                 // "L3.fwd", "allreduce.b2.rs4"
  double duration_s = 0;            // Compute: time on the device
  std::vector<Transfer> sends;      // Exchange only
  std::vector<Transfer> recvs;      // Exchange only
  double overhead_s = 0;            // Exchange only: fixed cost paid before the transfers start
                                    // (kernel launch, protocol, synchronisation; also the latency
                                    // of the steps a fluid collective folds into one exchange)
  std::vector<OpIndex> deps;        // ops of the same rank that must finish first
};

class RankProgram {
public:
  OpIndex add_compute(Stream stream, Category category, std::string name, double duration_s,
                      std::vector<OpIndex> deps = {});
  OpIndex add_exchange(Stream stream, Category category, std::string name,
                       std::vector<Transfer> sends, std::vector<Transfer> recvs,
                       std::vector<OpIndex> deps = {}, double overhead_s = 0);
  [[nodiscard]] const std::vector<Op>& ops() const { return ops_; }
  [[nodiscard]] const Op& op(OpIndex i) const { return ops_.at(i); }
  [[nodiscard]] OpIndex size() const { return static_cast<OpIndex>(ops_.size()); }

private:
  std::vector<Op> ops_;
};

/// Programs of every rank of one simulated step.
struct Plan {
  std::vector<RankProgram> ranks;
  [[nodiscard]] int rank_count() const { return static_cast<int>(ranks.size()); }
};

/// Throws SimulationError if the plan cannot be carried out: a dependency on a later op or
/// out of range, a peer out of range, a send without its receive (or sizes that differ), or a
/// tag used twice on the same (src, dst) pair. Runs in O(messages log messages).
void check_plan(const Plan& plan);

}  // namespace clearfog::program
