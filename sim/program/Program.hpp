#pragma once
// The intermediate form between planning and simulation: one program per rank, made of compute
// and exchange operations with dependencies. Planners write it without knowing SimGrid; the engine
// carries it out without knowing models.
//
// Execution rules (docs/step-model.md):
//  - each op runs on one stream of its rank; ops of a stream run one after another in program order;
//  - an op also waits for every op listed in `deps` (same rank, any stream);
//  - an Exchange pays its overhead_s, then posts all its sends and receives at once and ends when all
//    have completed; a transfer starts when both its send and its receive are posted;
//  - a send to `peer` with tag t matches the receive from this rank with the same tag on `peer`.
//
// Storage is flat (docs/engine.md): a rank's ops are 20-byte records, their dependencies and
// 16-byte transfers two arrays; names, durations and message sizes are ids into tables the ranks of
// a plan share. Ranks whose ops are identical can share one copy of them (share_identical_ops()).
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "program/NameTable.hpp"
#include "program/OpName.hpp"
#include "program/Slice.hpp"
#include "program/TransferList.hpp"
#include "program/ValueTable.hpp"

namespace clearfog::program {

using OpIndex = std::uint32_t;

/// Gather: ZeRO-3 / FSDP parameter all-gathers, on their own stream (FSDP's all-gather stream) so
/// that they neither wait behind nor hold up the gradient reductions of Comm.
/// P2p: pipeline sends of frameworks that give them a communicator of their own (P2pMode::Async).
/// P2pReverse: the pipeline sends of DualPipe's second direction (micro-batches entering at the
/// last stage), a FIFO apart from the first direction's.
/// Background: a lower-priority job's kernels multiplexed on the device (DeepPool): one runs only
/// while no Compute-stream kernel runs or waits, and a Compute kernel that becomes ready while one
/// runs waits for it to end (kernels are not preempted). docs/burst-parallelism.md.
/// Host: the rank's CPU thread issuing kernels (eager launches, CUDA-graph replays) and waiting for
/// the device where the framework copies a result to the host; its ops occupy no device, and a
/// device op waits for the host op that launched it (docs/host-time.md).
enum class Stream : std::uint8_t { Compute, Comm, Gather, P2p, P2pReverse, Background, Host };
inline constexpr int kStreamCount = 7;

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
  TiedGradientComm,    // the sum of a tied parameter's gradients between the two pipeline stages
                       // holding it (Megatron's embedding-gradient all-reduce), after the dp reduction
  Host,                // the host issuing kernels or waiting for the device (Stream::Host)
};
inline constexpr int kCategoryCount = 10;

std::string_view stream_name(Stream s);
std::string_view category_name(Category c);

/// One op as reports read it: a view into its program, valid while the program is not changed.
struct Op {
  OpKind kind = OpKind::Compute;
  Stream stream = Stream::Compute;
  Category category = Category::Forward;
  OpName name;                      // "L3.fwd", "allreduce.b2.rs4"
  double duration_s = 0;            // Compute: time on the device
  TransferList sends;               // Exchange only
  TransferList recvs;               // Exchange only
  double overhead_s = 0;            // Exchange only: fixed cost paid before the transfers start
                                    // (kernel launch, protocol, synchronisation; also the latency
                                    // of the steps a fluid collective folds into one exchange)
  Slice<OpIndex> deps;              // ops of the same rank that must finish first
};

/// What reports ask of every op: read from the op's record, without its name, transfers or deps.
struct OpHead {
  OpKind kind;
  Stream stream;
  Category category;
};

class RankProgram;

/// The ops of one program as a random-access sequence of Op views.
class OpList {
public:
  class iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Op;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Op;
    iterator(const RankProgram* program, OpIndex i) : program_(program), i_(i) {}
    Op operator*() const;
    iterator& operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++i_;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }

  private:
    const RankProgram* program_;
    OpIndex i_;
  };

  explicit OpList(const RankProgram& program) : program_(&program) {}
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] bool empty() const { return size() == 0; }
  Op operator[](std::size_t i) const;
  [[nodiscard]] Op at(std::size_t i) const;
  [[nodiscard]] Op front() const { return at(0); }
  [[nodiscard]] Op back() const { return at(size() - 1); }
  [[nodiscard]] iterator begin() const { return {program_, 0}; }
  [[nodiscard]] iterator end() const { return {program_, static_cast<OpIndex>(size())}; }

private:
  const RankProgram* program_;
};

/// The tables the ranks of a plan share.
struct PlanTables {
  NameTable names;
  ValueTable values;
};

class RankProgram {
public:
  /// The flat form of one op (20 bytes): its transfers are `send_count` sends then receives from
  /// `first_transfer` up to the next op's; its dependencies run from `first_dep` up to the next op's.
  struct Record {
    NameId name = 0;
    ValueId seconds = 0;  // Compute: duration; Exchange: overhead
    std::uint32_t first_dep = 0;
    std::uint32_t first_transfer = 0;
    std::uint16_t send_count = 0;
    OpKind kind = OpKind::Compute;
    std::uint8_t stream_category = 0;  // stream in the high nibble, category in the low one
    friend bool operator==(const Record&, const Record&) = default;
  };

  /// A program with its own tables (tests, tools); plans give their ranks shared ones.
  RankProgram();
  explicit RankProgram(std::shared_ptr<PlanTables> tables);

  // Planner API.
  OpIndex add_compute(Stream stream, Category category, std::string_view name, double duration_s,
                      const std::vector<OpIndex>& deps = {});
  OpIndex add_exchange(Stream stream, Category category, std::string_view name,
                       const std::vector<Transfer>& sends, const std::vector<Transfer>& recvs,
                       const std::vector<OpIndex>& deps = {}, double overhead_s = 0);
  // The same without temporaries: a name interned once (intern()) and views of the caller's arrays.
  [[nodiscard]] NameId intern(std::string_view name) { return tables_->names.intern(name); }
  OpIndex add_compute(Stream stream, Category category, NameId name, double duration_s,
                      std::span<const OpIndex> deps);
  OpIndex add_exchange(Stream stream, Category category, NameId name, std::span<const Transfer> sends,
                       std::span<const Transfer> recvs, std::span<const OpIndex> deps, double overhead_s);

  /// Multiplies the duration of every device compute op by `factor` (a straggler); exchanges and
  /// host ops keep theirs.
  void scale_compute(double factor);

  // Report API.
  [[nodiscard]] OpList ops() const { return OpList(*this); }
  [[nodiscard]] Op op(OpIndex i) const;  // throws std::out_of_range
  [[nodiscard]] OpIndex size() const { return static_cast<OpIndex>(body_->records.size()); }
  [[nodiscard]] bool empty() const { return body_->records.empty(); }

  // Flat access for checks and engines (no bounds checks).
  [[nodiscard]] const Record& record(OpIndex i) const { return body_->records[i]; }
  [[nodiscard]] OpKind kind(OpIndex i) const { return body_->records[i].kind; }
  [[nodiscard]] OpHead head(OpIndex i) const { return {kind(i), stream(i), category(i)}; }
  [[nodiscard]] Stream stream(OpIndex i) const { return static_cast<Stream>(body_->records[i].stream_category >> 4); }
  [[nodiscard]] Category category(OpIndex i) const {
    return static_cast<Category>(body_->records[i].stream_category & 0xf);
  }
  /// Duration of a compute op, overhead of an exchange.
  [[nodiscard]] double seconds(OpIndex i) const { return tables_->values.value(body_->records[i].seconds); }
  [[nodiscard]] std::string_view name(OpIndex i) const { return tables_->names.name(body_->records[i].name); }
  [[nodiscard]] Slice<OpIndex> deps(OpIndex i) const;
  [[nodiscard]] std::uint32_t transfer_begin(OpIndex i) const { return body_->records[i].first_transfer; }
  [[nodiscard]] std::uint32_t sends_end(OpIndex i) const {
    return body_->records[i].first_transfer + body_->records[i].send_count;
  }
  [[nodiscard]] std::uint32_t transfer_end(OpIndex i) const;
  /// An exchange that moves data off the compute stream (a collective's step, a send): it takes
  /// compute units and memory bandwidth from the kernels beside it; a receive posted ahead does not.
  [[nodiscard]] bool sends_beside_compute(OpIndex i) const {
    return kind(i) == OpKind::Exchange && stream(i) != Stream::Compute && sends_end(i) > transfer_begin(i);
  }
  /// A kernel that occupies the device (Compute or Background stream, nonzero time): it streams
  /// from the memory the transfers through the device's links use.
  [[nodiscard]] bool occupies_device(OpIndex i) const {
    return kind(i) == OpKind::Compute && (stream(i) == Stream::Compute || stream(i) == Stream::Background) &&
           seconds(i) > 0;
  }
  [[nodiscard]] TransferList sends(OpIndex i) const;
  [[nodiscard]] TransferList recvs(OpIndex i) const;
  /// Every transfer of the rank, op by op (sends before receives within an op).
  [[nodiscard]] std::uint32_t transfer_count() const { return static_cast<std::uint32_t>(transfers_.size()); }
  [[nodiscard]] int peer(std::uint32_t t) const { return transfers_[t].peer; }
  [[nodiscard]] std::uint64_t tag(std::uint32_t t) const { return transfers_[t].tag; }
  [[nodiscard]] ValueId bytes_id(std::uint32_t t) const { return transfers_[t].bytes; }
  [[nodiscard]] double bytes(std::uint32_t t) const { return tables_->values.value(transfers_[t].bytes); }
  /// The op holding transfer `t`.
  [[nodiscard]] OpIndex op_of_transfer(std::uint32_t t) const;
  [[nodiscard]] const PlanTables& tables() const { return *tables_; }
  /// Whether `other` has the same op records and dependencies (names included).
  [[nodiscard]] bool same_ops(const RankProgram& other) const;
  [[nodiscard]] bool shares_ops_with(const RankProgram& other) const { return body_ == other.body_; }
  /// Makes this program use `other`'s (equal) ops and dependencies instead of its own copy.
  void share_ops_of(const RankProgram& other);
  /// Heap bytes held by this program (shared ops counted once per holder), for memory estimates.
  [[nodiscard]] std::size_t memory_bytes() const;
  /// The same as if its ops were its own (as the planner built them, before identical ones were shared).
  [[nodiscard]] std::size_t unshared_memory_bytes() const;

private:
  struct Body {
    std::vector<Record> records;
    std::vector<OpIndex> deps;
  };
  Body& writable_body();
  OpIndex append(Record record, std::span<const OpIndex> deps);

  std::shared_ptr<PlanTables> tables_;
  std::shared_ptr<Body> body_;
  std::vector<PackedTransfer> transfers_;
};

/// The programs of a plan, all sharing the plan's name table: used like a vector of programs.
class RankList {
public:
  RankList() : tables_(std::make_shared<PlanTables>()) {}
  void resize(std::size_t n);
  void reserve(std::size_t n) { programs_.reserve(n); }
  /// A new, empty program at the end, sharing the plan's names.
  RankProgram& emplace_back() { return programs_.emplace_back(tables_); }
  void push_back(RankProgram program) { programs_.push_back(std::move(program)); }
  [[nodiscard]] std::size_t size() const { return programs_.size(); }
  [[nodiscard]] bool empty() const { return programs_.empty(); }
  RankProgram& operator[](std::size_t r) { return programs_[r]; }
  const RankProgram& operator[](std::size_t r) const { return programs_[r]; }
  RankProgram& at(std::size_t r) { return programs_.at(r); }
  [[nodiscard]] const RankProgram& at(std::size_t r) const { return programs_.at(r); }
  auto begin() { return programs_.begin(); }
  auto end() { return programs_.end(); }
  [[nodiscard]] auto begin() const { return programs_.begin(); }
  [[nodiscard]] auto end() const { return programs_.end(); }
  [[nodiscard]] const NameTable& names() const { return tables_->names; }
  [[nodiscard]] const PlanTables& tables() const { return *tables_; }

private:
  std::shared_ptr<PlanTables> tables_;
  std::vector<RankProgram> programs_;
};

/// A permutation of the ranks under which a planner expects its plan to be unchanged (moving every
/// rank of data-parallel replica d to replica d+1, say). Planners MAY list them; the engine proves
/// each one against the programs and the platform's routes before using it (docs/engine.md).
struct RankSymmetry {
  std::string axis;        // what moves, for the run summary: "data-parallel", "tensor-parallel"
  std::vector<int> image;  // image[r]: the rank r maps to; one entry per rank of the plan
};

/// Compute-communication interference (docs/frameworks.md): the factors by which a device's
/// compute and the transfers through its links run slower while the other is under way on it.
struct Interference {
  /// A compute-stream kernel runs this many times slower while an exchange of another stream
  /// sends from its rank.
  double compute = 1;
  /// A transfer runs this many times slower over a link that touches a device running a kernel
  /// (the link's bandwidth divided by it while the kernel runs).
  double collective = 1;
  [[nodiscard]] bool any() const { return compute != 1.0 || collective != 1.0; }
};

/// Programs of every rank of one simulated step.
struct Plan {
  RankList ranks;
  std::vector<RankSymmetry> symmetries;  // optional hint, see RankSymmetry
  Interference interference;  // compute and collectives slowed beside each other (1, 1: none)
  [[nodiscard]] int rank_count() const { return static_cast<int>(ranks.size()); }
  [[nodiscard]] std::uint64_t op_count() const;
  [[nodiscard]] std::uint64_t transfer_count() const;  // sends + receives
};

/// Ranks with identical ops (and dependencies) keep one copy of them. Returns the number of ranks
/// that now share another's ops.
int share_identical_ops(Plan& plan);

/// Throws SimulationError if the plan cannot be carried out: a dependency on a later op or
/// out of range, a peer out of range, a send without its receive (or sizes that differ), or a
/// tag used twice on the same (src, dst) pair. Runs in O(messages log messages); see
/// MessageIndex.hpp for the matching it builds.
void check_plan(const Plan& plan);

}  // namespace clearfog::program
