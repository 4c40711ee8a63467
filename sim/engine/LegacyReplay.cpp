// The replay as it was before the actor-free engine (one actor per rank and stream, mailboxes),
// kept only to prove the new engine gives the same times (tests/engine/ReplayEquivalence_test.cpp,
// `clearfog run --legacy-replay`). To be removed once that is established.
#include "engine/LegacyReplay.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cmath>
#include <mutex>
#include <string>

#include "core/Errors.hpp"
#include "topology/SimGridPlatform.hpp"

namespace sg4 = simgrid::s4u;
using clearfog::program::Op;
using clearfog::program::OpIndex;
using clearfog::program::OpKind;

namespace clearfog::engine {
namespace {

// Nominal host speed: an op of d seconds is executed as d * kLegacyHostSpeed units of work, so the
// value cancels out; it only has to keep work amounts well above SimGrid's precision.
constexpr double kLegacyHostSpeed = 1e12;

std::string mailbox_name(int src, int dst, std::uint64_t tag) { return fmt::format("{}>{}#{}", src, dst, tag); }

/// What the actors of one rank share: which ops are done, and a condition variable to wake the
/// other streams when a dependency completes.
struct RankState {
  const program::RankProgram* program = nullptr;
  std::vector<char> done;
  std::vector<OpTiming>* timings = nullptr;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr completed;
};

struct Counters {
  std::uint64_t ops = 0;
  std::uint64_t messages = 0;
};

/// Replays the ops of one stream of one rank, in program order.
class StreamActor {
public:
  StreamActor(RankState& state, int rank, std::vector<OpIndex> ops, Counters& counters)
      : state_(state), rank_(rank), ops_(std::move(ops)), counters_(counters) {}

  void operator()() const {
    for (OpIndex i : ops_) {
      const Op op = state_.program->op(i);
      wait_for(op.deps);
      (*state_.timings)[i].start_s = sg4::Engine::get_clock();
      if (op.kind == OpKind::Compute)
        run_compute(op);
      else
        run_exchange(op);
      (*state_.timings)[i].end_s = sg4::Engine::get_clock();
      ++counters_.ops;
      std::unique_lock lock(*state_.mutex);
      state_.done[i] = 1;
      state_.completed->notify_all();
    }
  }

private:
  void wait_for(program::Slice<OpIndex> deps) const {
    std::unique_lock lock(*state_.mutex);
    for (OpIndex d : deps)
      while (!state_.done[d]) state_.completed->wait(lock);
  }

  static void run_compute(const Op& op) {
    if (op.duration_s <= 0) return;
    // The host thread's work occupies no device: it must not share the device's speed.
    if (op.stream == program::Stream::Host)
      sg4::this_actor::sleep_for(op.duration_s);
    else
      sg4::this_actor::execute(op.duration_s * kLegacyHostSpeed);
  }

  void run_exchange(const Op& op) const {
    static int payload = 0;  // messages carry no data, only their simulated size
    if (op.overhead_s > 0) sg4::this_actor::sleep_for(op.overhead_s);
    std::vector<sg4::CommPtr> comms;
    std::vector<int*> received(op.recvs.size(), nullptr);
    for (std::size_t k = 0; k < op.recvs.size(); ++k) {
      const auto& t = op.recvs[k];
      comms.push_back(sg4::Mailbox::by_name(mailbox_name(t.peer, rank_, t.tag))->get_async<int>(&received[k]));
    }
    for (const auto& t : op.sends) {
      const auto bytes = static_cast<std::uint64_t>(std::llround(t.bytes));
      comms.push_back(sg4::Mailbox::by_name(mailbox_name(rank_, t.peer, t.tag))->put_async(&payload, bytes));
      ++counters_.messages;
    }
    sg4::Comm::wait_all(comms);
  }

  RankState& state_;
  int rank_;
  std::vector<OpIndex> ops_;
  Counters& counters_;
};

std::string describe_stuck_ops(const program::Plan& plan, const std::vector<RankState>& states) {
  std::string text;
  int listed = 0;
  for (int r = 0; r < plan.rank_count() && listed < 16; ++r) {
    const auto& ops = plan.ranks[r].ops();
    for (int s = 0; s < program::kStreamCount; ++s) {
      for (OpIndex i = 0; i < ops.size(); ++i) {
        if (static_cast<int>(ops[i].stream) != s || states[r].done[i]) continue;
        text += fmt::format("\n  rank {} {} stream stuck at op {} ({})", r,
                            program::stream_name(ops[i].stream), i, ops[i].name);
        for (OpIndex d : ops[i].deps)
          if (!states[r].done[d]) text += fmt::format("; waits for op {} ({})", d, ops[d].name);
        if ((*states[r].timings)[i].start_s >= 0) {
          for (const auto& t : ops[i].recvs) text += fmt::format("; waits for tag {} from rank {}", t.tag, t.peer);
          for (const auto& t : ops[i].sends) text += fmt::format("; sends tag {} to rank {}", t.tag, t.peer);
        }
        ++listed;
        break;  // the first unfinished op of a stream is the one that blocks it
      }
    }
  }
  return text;
}

}  // namespace

SimulationResult simulate_legacy(const topology::ClusterTopology& topology, const program::Plan& plan) {
  program::check_plan(plan);
  if (plan.interference.any())
    throw SimulationError("the legacy replay does not model compute-communication interference; the platform's "
                          "collectives.interference must be 0 for it");
  for (const auto& program : plan.ranks)
    for (program::OpIndex i = 0; i < program.size(); ++i)
      if (program.stream(i) == program::Stream::Background)
        throw SimulationError("the legacy replay does not multiplex background jobs on a device; use the default "
                              "replay");
  if (plan.rank_count() > topology.endpoint_count())
    throw SimulationError(fmt::format("plan has {} ranks but the platform only {} endpoints", plan.rank_count(),
                                      topology.endpoint_count()));

  std::vector<std::string> args = {"clearfog",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/crosstraffic:0",
                                   "--log=root.thresh:critical",
                                   "--log=xbt_cfg.thresh:critical",
                                   // Our own deadlock report (below) names the stuck ops.
                                   "--log=ker_engine.app:file:/dev/null", "--log=ker_engine.add:off"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());

  const auto platform = topology::build_simgrid_platform(topology, kLegacyHostSpeed);

  SimulationResult result;
  result.ops.resize(plan.rank_count());
  std::vector<RankState> states(plan.rank_count());
  Counters counters;
  for (int r = 0; r < plan.rank_count(); ++r) {
    const auto& program = plan.ranks[r];
    result.ops[r].assign(program.size(), OpTiming{});
    auto& st = states[r];
    st.program = &program;
    st.done.assign(program.size(), 0);
    st.timings = &result.ops[r];
    st.mutex = sg4::Mutex::create();
    st.completed = sg4::ConditionVariable::create();
    for (int s = 0; s < program::kStreamCount; ++s) {
      std::vector<OpIndex> stream_ops;
      for (OpIndex i = 0; i < program.size(); ++i)
        if (static_cast<int>(program.op(i).stream) == s) stream_ops.push_back(i);
      if (stream_ops.empty()) continue;
      sg4::Actor::create(fmt::format("r{}.{}", r, program::stream_name(static_cast<program::Stream>(s))),
                         platform.hosts[r], StreamActor(st, r, std::move(stream_ops), counters));
    }
  }

  engine.run();

  std::uint64_t total_ops = 0;
  for (const auto& rp : plan.ranks) total_ops += rp.size();
  if (counters.ops != total_ops)
    throw SimulationError(fmt::format("deadlock: the replay stopped at t = {:.9g} s with {} of {} ops unfinished:{}",
                                      sg4::Engine::get_clock(), total_ops - counters.ops, total_ops,
                                      describe_stuck_ops(plan, states)));
  result.makespan_s = sg4::Engine::get_clock();
  result.ops_executed = counters.ops;
  result.replay.mode = "legacy";
  result.messages = counters.messages;
  return result;
}

}  // namespace clearfog::engine
