#include "engine/ActivityReplay.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "core/Errors.hpp"
#include "core/Units.hpp"

namespace sg4 = simgrid::s4u;
using clearfog::program::OpIndex;
using clearfog::program::OpKind;

namespace clearfog::engine {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr auto kProgressPeriod = std::chrono::seconds(5);

/// SimGrid's completion signal is global; it reaches the replay of this process through this.
ActivityReplay* g_current = nullptr;

double now() { return sg4::Engine::get_clock(); }

}  // namespace

ActivityReplay::ActivityReplay(const program::Plan& plan, const program::MessageIndex& index, ReplayRanks ranks,
                               const ReplayOptions& options, FlowMerging merging)
    : plan_(plan),
      index_(index),
      ranks_(std::move(ranks)),
      options_(options),
      merging_(std::move(merging)),
      link_slowdown_(plan.interference.collective, ranks_.device_links) {
  slots_.resize(ranks_.ranks.size());
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    Slot& slot = slots_[s];
    slot.rank = ranks_.ranks[s];
    slot.program = &plan.ranks[slot.rank];
    const OpIndex n = slot.program->size();
    if (n >= OpState::kLast)
      throw SimulationError(fmt::format("rank {} has {} ops; the replay handles at most {} per rank", slot.rank, n,
                                        OpState::kLast - 1));
    slot.ops.assign(n, OpState{0, kNone, kNone, 0, OpState::kLast});
    // Each op's successor on its stream, from the end: what is left last is each stream's head.
    std::array<std::uint32_t, program::kStreamCount> next;
    next.fill(OpState::kLast);
    for (OpIndex i = n; i-- > 0;) {
      auto& after = next[static_cast<int>(slot.program->stream(i))];
      slot.ops[i].next_on_stream = after & OpState::kLast;  // < kLast: checked above
      after = i;
    }
    for (std::size_t k = 0; k < next.size(); ++k) slot.head[k] = next[k] == OpState::kLast ? kNone : next[k];
    slot.posted.assign(slot.program->transfer_count(), Posting{kNone, kNone});
    slot.timings.assign(n, OpTiming{});
    ops_total_ += n;
  }
  static bool connected = false;  // a signal cannot be disconnected; connect it once per process
  if (!connected) {
    sg4::Activity::on_completion_cb([](const sg4::Activity& a) {
      if (g_current != nullptr) g_current->on_flow_done(a);
    });
    connected = true;
  }
  g_current = this;
}

ActivityReplay::~ActivityReplay() {
  if (g_current == this) g_current = nullptr;
}

void ActivityReplay::run() {
  started_at_ = last_report_ = std::chrono::steady_clock::now();
  start_streams();
  drain();
  sg4::Engine::get_instance()->run();
  releasing_ = nullptr;
  flows_.clear();
  if (stopped_)
    throw SimulationError(fmt::format("stopped by --timeout at simulated time {} with {} of {} ops done",
                                      units::format(now(), units::Dimension::Time), ops_done_, ops_total_));
  if (ops_done_ != ops_total_)
    throw SimulationError(fmt::format("deadlock: the replay stopped at t = {:.9g} s with {} of {} ops unfinished:{}",
                                      now(), ops_total_ - ops_done_, ops_total_, describe_stuck_ops()));
}

void ActivityReplay::start_streams() {
  for (std::uint32_t s = 0; s < slots_.size(); ++s) {
    Slot& slot = slots_[s];
    for (const std::uint32_t head : slot.head)
      if (head != kNone) try_start(s, head);
  }
}

/// `op` heads its stream: it starts once its dependencies are done, or waits in the list of the
/// first one that is not.
void ActivityReplay::try_start(std::uint32_t s, std::uint32_t op) {
  Slot& slot = slots_[s];
  const auto deps = slot.program->deps(op);
  std::uint32_t& checked = slot.ops[op].pending;
  while (checked < deps.size()) {
    OpState& d = slot.ops[deps[checked]];
    if (!d.done) {
      slot.ops[op].waiting_next = d.waiting_head;
      d.waiting_head = op;
      return;
    }
    ++checked;
  }
  begin(s, op);
}

void ActivityReplay::begin(std::uint32_t s, std::uint32_t op) {
  Slot& slot = slots_[s];
  if (slot.program->kind(op) == OpKind::Compute) {
    if (!hold_for_device(s, op)) start_compute(s, op);
    return;
  }
  const double seconds = slot.program->seconds(op);
  if (slot.program->sends_beside_compute(op)) change_comms(s, +1);
  slot.timings[op].start_s = now();
  if (seconds > 0)
    simgrid::kernel::timer::Timer::set(now() + seconds, [this, s, op] {
      if (stopped_) return;
      post(s, op);
      drain();
    });
  else
    post(s, op);
}

void ActivityReplay::start_compute(std::uint32_t s, std::uint32_t op) {
  Slot& slot = slots_[s];
  const double seconds = slot.program->seconds(op);
  const auto stream = slot.program->stream(op);
  if (stream == program::Stream::Compute) slot.device.foreground_busy = true;
  if (stream == program::Stream::Background) slot.device.background_busy = true;
  slot.timings[op].start_s = now();
  if (slot.program->occupies_device(op)) link_slowdown_.kernel_started(s);
  // Interference: compute runs slower while a collective is under way beside it (factor 1: the
  // plain timer below, so that times stay exactly what they were).
  if (seconds > 0 && plan_.interference.compute != 1.0 && stream == program::Stream::Compute) {
    slot.running = {op, seconds, now(), nullptr};
    time_running_compute(s);
    return;
  }
  // A device runs one compute stream's kernel at a time (the background one only in the
  // foreground's gaps), so a timer is exact where an Exec would be.
  if (seconds > 0)
    simgrid::kernel::timer::Timer::set(now() + seconds, [this, s, op] {
      if (stopped_) return;
      finished_.emplace_back(s, op);
      drain();
    });
  else
    finished_.emplace_back(s, op);
}

bool ActivityReplay::hold_for_device(std::uint32_t s, std::uint32_t op) {
  auto& device = slots_[s].device;
  switch (slots_[s].program->stream(op)) {
    case program::Stream::Compute:
      if (!device.background_busy) return false;
      device.foreground_held = op;
      return true;
    case program::Stream::Background:
      device.background_held = op;
      if (!device.foreground_busy && device.foreground_held == kNone) idle_devices_.push_back(s);
      return true;
    default: return false;
  }
}

/// Compute op `op` of slot `s` ended: the device passes to the held foreground kernel, else (once
/// this instant's events are handled) to the held background one.
void ActivityReplay::release_device(std::uint32_t s, std::uint32_t op) {
  auto& device = slots_[s].device;
  const auto stream = slots_[s].program->stream(op);
  if (stream == program::Stream::Compute) device.foreground_busy = false;
  if (stream == program::Stream::Background) {
    device.background_busy = false;
    if (device.foreground_held != kNone) {
      const std::uint32_t held = std::exchange(device.foreground_held, kNone);
      start_compute(s, held);
      return;
    }
  }
  if (device.background_held != kNone) idle_devices_.push_back(s);
}

void ActivityReplay::start_idle_background() {
  std::vector<std::uint32_t> idle;
  idle.swap(idle_devices_);
  for (const std::uint32_t s : idle) {
    auto& device = slots_[s].device;
    if (device.foreground_busy || device.background_busy || device.foreground_held != kNone ||
        device.background_held == kNone)
      continue;
    start_compute(s, std::exchange(device.background_held, kNone));
  }
}

void ActivityReplay::time_running_compute(std::uint32_t s) {
  Slot& slot = slots_[s];
  const double factor = slot.comms_in_flight > 0 ? plan_.interference.compute : 1.0;
  const std::uint32_t op = slot.running.op;
  slot.running.timer = simgrid::kernel::timer::Timer::set(now() + slot.running.remaining_s * factor, [this, s, op] {
    slots_[s].running = Slot::Running{};
    if (stopped_) return;
    finished_.emplace_back(s, op);
    drain();
  });
}

void ActivityReplay::change_comms(std::uint32_t s, int delta) {
  Slot& slot = slots_[s];
  const bool was_busy = slot.comms_in_flight > 0;
  slot.comms_in_flight = static_cast<std::uint32_t>(static_cast<int>(slot.comms_in_flight) + delta);
  if (was_busy == (slot.comms_in_flight > 0) || slot.running.op == kNone) return;
  // The work done so far at the old rate, the rest at the new one.
  auto& r = slot.running;
  const double factor = was_busy ? plan_.interference.compute : 1.0;
  r.remaining_s = std::max(0.0, r.remaining_s - (now() - r.since_s) / factor);
  r.since_s = now();
  r.timer->remove();
  time_running_compute(s);
}

/// An exchange posts all its transfers; each starts as soon as its other end is posted too.
void ActivityReplay::post(std::uint32_t s, std::uint32_t op) {
  Slot& slot = slots_[s];
  const std::uint32_t begin = slot.program->transfer_begin(op);
  const std::uint32_t sends_end = slot.program->sends_end(op);
  const std::uint32_t end = slot.program->transfer_end(op);
  slot.ops[op].pending = end - begin;
  if (begin == end) {
    finished_.emplace_back(s, op);
    return;
  }
  // A transfer merged into its group's first (carried_by 0) rides on that one's comm: the group
  // leaves this op for one op of the peer, so all its ends are posted at once.
  for (std::uint32_t t = begin; t < sends_end; ++t) {
    Posting& ends = slot.posted[t];
    ends.send_op = op;
    if (ends.recv_op != kNone && merging_.carried_by(s, t) > 0) start_flow(s, t, ends);
  }
  for (std::uint32_t t = sends_end; t < end; ++t) {
    const auto peer_slot = static_cast<std::uint32_t>(ranks_.slot_of_rank[slot.program->peer(t)]);
    const std::uint32_t peer_t = index_.partner(slot.rank, t);
    Posting& ends = slots_[peer_slot].posted[peer_t];
    ends.recv_op = op;
    if (ends.send_op != kNone && merging_.carried_by(peer_slot, peer_t) > 0) start_flow(peer_slot, peer_t, ends);
  }
}

/// Starts the message of send `transfer` of slot `s` as a SimGrid comm between the two hosts.
void ActivityReplay::start_flow(std::uint32_t s, std::uint32_t transfer, const Posting& ends) {
  const Slot& slot = slots_[s];
  const int peer = slot.program->peer(transfer);
  Flow flow;
  flow.send_slot = s;
  flow.send_op = ends.send_op;
  flow.recv_slot = static_cast<std::uint32_t>(ranks_.slot_of_rank[peer]);
  flow.recv_op = ends.recv_op;
  flow.carried = merging_.carried_by(s, transfer);
  std::uint32_t id;
  if (free_flows_.empty()) {
    id = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_flows_.back();
    free_flows_.pop_back();
  }
  auto comm = sg4::Comm::sendto_init();
  comm->set_data(reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
  comm->set_payload_size(flow.carried * static_cast<std::uint64_t>(std::llround(slot.program->bytes(transfer))));
  link_slowdown_.start(ranks_.hosts[s], ranks_.receiver_host[peer], [&] {
    comm->set_source(ranks_.hosts[s]);
    comm->set_destination(ranks_.receiver_host[peer]);  // starts it, unless it carries 0 bytes
    if (comm->get_state() != sg4::Activity::State::STARTED) comm->start();
  });
  flow.comm = std::move(comm);
  messages_started_ += flow.carried;
  flows_[id] = std::move(flow);
}

void ActivityReplay::on_flow_done(const sg4::Activity& activity) {
  const auto id = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(activity.get_data<void>()));
  Flow& flow = flows_[id];
  // SimGrid is still inside this comm's completion: free it only once the next one completes.
  releasing_ = std::move(flow.comm);
  free_flows_.push_back(id);
  if (stopped_) return;
  transfer_done(flow.send_slot, flow.send_op, flow.carried);
  transfer_done(flow.recv_slot, flow.recv_op, flow.carried);
  drain();
}

void ActivityReplay::transfer_done(std::uint32_t s, std::uint32_t op, std::uint32_t count) {
  auto& pending = slots_[s].ops[op].pending;
  pending -= count;
  if (pending == 0) finished_.emplace_back(s, op);
}

void ActivityReplay::drain() {
  do {
    while (!finished_.empty()) {
      const auto [s, op] = finished_.back();
      finished_.pop_back();
      complete(s, op);
    }
    if (!idle_devices_.empty()) start_idle_background();
  } while (!finished_.empty());
}

/// `op` ended: the next op of its stream becomes the head, and the ops waiting for it try again.
void ActivityReplay::complete(std::uint32_t s, std::uint32_t op) {
  Slot& slot = slots_[s];
  slot.ops[op].done = 1;
  slot.timings[op].end_s = now();
  if ((++ops_done_ & 0xfff) == 0) check_clock();
  if (slot.program->kind(op) == OpKind::Compute) {
    if (slot.program->occupies_device(op)) link_slowdown_.kernel_ended(s);
    release_device(s, op);
  }
  const auto stream = slot.program->stream(op);
  if (slot.program->sends_beside_compute(op)) change_comms(s, -1);
  const std::uint32_t next = slot.ops[op].next_on_stream;
  slot.head[static_cast<int>(stream)] = next != OpState::kLast ? next : kNone;
  if (next != OpState::kLast) try_start(s, next);
  std::uint32_t w = slot.ops[op].waiting_head;
  slot.ops[op].waiting_head = kNone;
  while (w != kNone) {
    const std::uint32_t after = slot.ops[w].waiting_next;
    try_start(s, w);
    w = after;
  }
}

void ActivityReplay::check_clock() {
  const auto t = std::chrono::steady_clock::now();
  if (options_.deadline && t > *options_.deadline) stopped_ = true;
  if (options_.progress && t - last_report_ >= kProgressPeriod) {
    last_report_ = t;
    std::fprintf(stderr, "clearfog: replayed %s of simulated time, %.1f %% of %llu ops, %.0f s\n",
                 units::format(now(), units::Dimension::Time).c_str(),
                 100.0 * static_cast<double>(ops_done_) / static_cast<double>(std::max<std::uint64_t>(1, ops_total_)),
                 static_cast<unsigned long long>(ops_total_), std::chrono::duration<double>(t - started_at_).count());
  }
}

std::string ActivityReplay::describe_stuck_ops() const {
  std::string text;
  int listed = 0;
  for (const Slot& slot : slots_) {
    for (const std::uint32_t i : slot.head) {
      if (i == kNone || listed >= 16) continue;
      const auto op = slot.program->op(i);
      text += fmt::format("\n  rank {} {} stream stuck at op {} ({})", slot.rank, program::stream_name(op.stream), i,
                          op.name);
      for (const OpIndex d : op.deps)
        if (!slot.ops[d].done) text += fmt::format("; waits for op {} ({})", d, slot.program->name(d));
      if (slot.timings[i].start_s >= 0) {
        for (const auto& t : op.recvs) text += fmt::format("; waits for tag {} from rank {}", t.tag, t.peer);
        for (const auto& t : op.sends) text += fmt::format("; sends tag {} to rank {}", t.tag, t.peer);
      }
      ++listed;
    }
  }
  return text;
}

}  // namespace clearfog::engine
