#pragma once
// The actor-free replay (docs/step-model.md, section 5). The engine's main loop starts SimGrid
// activities itself: a timer for a compute op or an exchange's overhead, a host-to-host comm for a
// transfer once both of its ends are posted. A completion callback finishes the op, which starts
// the next op of its stream and the ops that waited for it. Per-rank state is plain arrays: no
// actor, mailbox, simcall or context switch per op.
//
// It replays "slots": every rank of the plan (full replay) or one representative per class of
// isomorphic ranks (symmetric replay, engine/Symmetry.hpp). A transfer to rank z goes to the host
// `receiver_host[z]` and completes the slot `slot_of_rank[z]`, at the transfer index the plan's
// MessageIndex gives; isomorphic ranks have identical layouts, so that index is valid in the slot.
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/FlowMerging.hpp"
#include "engine/KernelLinkSlowdown.hpp"
#include "engine/ReplayOptions.hpp"
#include "engine/ReplayRanks.hpp"
#include "engine/SimulationResult.hpp"
#include "program/MessageIndex.hpp"
#include "program/Program.hpp"

namespace simgrid::s4u {
class Activity;
}  // namespace simgrid::s4u

namespace clearfog::engine {

class ActivityReplay {
public:
  /// `merging`: the transfers each comm carries (engine/FlowMerging.hpp); empty: one each.
  ActivityReplay(const program::Plan& plan, const program::MessageIndex& index, ReplayRanks ranks,
                 const ReplayOptions& options, FlowMerging merging = {});
  ~ActivityReplay();
  ActivityReplay(const ActivityReplay&) = delete;
  ActivityReplay& operator=(const ActivityReplay&) = delete;

  /// Runs the SimGrid engine until nothing is left to do. Throws SimulationError if ops were left
  /// (a deadlock, naming what waits on what) or the deadline passed.
  void run();

  [[nodiscard]] const ReplayRanks& ranks() const { return ranks_; }
  [[nodiscard]] std::vector<OpTiming>& timings(int slot) { return slots_[slot].timings; }
  [[nodiscard]] std::uint64_t ops() const { return ops_total_; }
  [[nodiscard]] std::uint64_t messages() const { return messages_started_; }

private:
  /// What the replay knows of one op: 16 bytes, so that one cache line holds it.
  struct OpState {
    static constexpr std::uint32_t kLast = 0x7fffffff;  // next_on_stream of a stream's last op
    std::uint32_t pending = 0;       // before the op starts: deps checked; then transfers left
    std::uint32_t waiting_head;      // first op waiting for this one to end (kNone: none)
    std::uint32_t waiting_next;      // next op in the list this op waits in
    std::uint32_t done : 1 = 0;
    std::uint32_t next_on_stream : 31 = kLast;  // the op its stream runs after it
  };
  /// The two ends of a message, kept at its send: the op that posted each (kNone: not yet).
  struct Posting {
    std::uint32_t send_op;
    std::uint32_t recv_op;
  };
  struct Slot {
    const program::RankProgram* program = nullptr;
    int rank = -1;
    std::vector<OpState> ops;
    std::vector<Posting> posted;  // per transfer (used at sends)
    std::array<std::uint32_t, program::kStreamCount> head{};  // op each stream runs or waits to run
    std::vector<OpTiming> timings;
    std::uint32_t comms_in_flight = 0;  // sending exchanges of the other streams under way (interference)
    /// The compute op under way while the plan has interference: its work left, in seconds at full
    /// speed, since `since_s`, and the timer of its end at the present rate.
    struct Running {
      std::uint32_t op = std::numeric_limits<std::uint32_t>::max();
      double remaining_s = 0, since_s = 0;
      simgrid::kernel::timer::Timer* timer = nullptr;
    } running;
    /// The device shared with a background job (Stream::Background): which kernel runs, and the
    /// one of each priority that is ready but held back.
    struct Multiplex {
      bool foreground_busy = false, background_busy = false;
      std::uint32_t foreground_held = std::numeric_limits<std::uint32_t>::max();
      std::uint32_t background_held = std::numeric_limits<std::uint32_t>::max();
    } device;
  };
  struct Flow {
    std::uint32_t send_slot = 0, send_op = 0, recv_slot = 0, recv_op = 0;
    std::uint32_t carried = 1;  // transfers this comm carries (identical flows merged)
    simgrid::s4u::CommPtr comm;
  };

  void start_streams();
  void try_start(std::uint32_t s, std::uint32_t op);
  void begin(std::uint32_t s, std::uint32_t op);
  /// Multiplexing: whether a compute op of the Compute or Background stream must wait for the
  /// device (it is then held); a background kernel waits at least until the event being handled
  /// (a timer or a comm completion, with everything it releases) is done, so that foreground
  /// kernels released by the same event go first. One released by another event of the same
  /// instant, handled later, waits for that background kernel (docs/engine.md, rule 2).
  bool hold_for_device(std::uint32_t s, std::uint32_t op);
  void release_device(std::uint32_t s, std::uint32_t op);
  void start_idle_background();
  void start_compute(std::uint32_t s, std::uint32_t op);
  /// Interference: a compute op at the rate the slot's collectives leave it, and the change of that
  /// rate when the first starts or the last ends (docs/frameworks.md).
  void time_running_compute(std::uint32_t s);
  void change_comms(std::uint32_t s, int delta);
  void post(std::uint32_t s, std::uint32_t op);
  void start_flow(std::uint32_t s, std::uint32_t transfer, const Posting& ends);
  void transfer_done(std::uint32_t s, std::uint32_t op, std::uint32_t count);
  void complete(std::uint32_t s, std::uint32_t op);
  void drain();
  void on_flow_done(const simgrid::s4u::Activity& activity);
  void check_clock();
  [[nodiscard]] std::string describe_stuck_ops() const;

  const program::Plan& plan_;
  const program::MessageIndex& index_;
  ReplayRanks ranks_;
  ReplayOptions options_;
  FlowMerging merging_;
  KernelLinkSlowdown link_slowdown_;  // Interference::collective: a kernel slows its device's links
  std::vector<Slot> slots_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> finished_;  // ops done, to release
  std::vector<std::uint32_t> idle_devices_;  // slots whose held background kernel may now start
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_flows_;
  simgrid::s4u::CommPtr releasing_;  // the comm whose completion is being handled
  std::uint64_t ops_total_ = 0;
  std::uint64_t ops_done_ = 0;
  std::uint64_t messages_started_ = 0;
  bool stopped_ = false;  // past the deadline: let activities drain, start nothing new
  std::chrono::steady_clock::time_point started_at_;
  std::chrono::steady_clock::time_point last_report_;
};

}  // namespace clearfog::engine
