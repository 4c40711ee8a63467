#include "collectives/Schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/Errors.hpp"

namespace clearfog::collectives {

Schedule::Schedule(int participants) : participants_(participants) {
  if (participants < 0) throw Error(fmt::format("Schedule: participants must be >= 0, got {}", participants));
}

void Schedule::send(int from, int to, double bytes, int round, int lane) {
  if (from < 0 || from >= participants_ || to < 0 || to >= participants_ || from == to)
    throw Error(fmt::format("Schedule: message {} -> {} outside participants 0..{} or to itself", from, to,
                            participants_ - 1));
  if (!(bytes >= 0) || round < 0)
    throw Error(fmt::format("Schedule: message {} -> {} has size {} B in round {}", from, to, bytes, round));
  messages_.push_back(Message{from, to, bytes, round, lane});
  rounds_ = std::max(rounds_, round + 1);
}

void Schedule::then(const Schedule& later) {
  const int offset = rounds_;
  for (const Message& m : later.messages_) send(m.from, m.to, m.bytes, offset + m.round, m.lane);
  rounds_ = offset + later.rounds_;
}

void Schedule::stretch_to(int rounds) { rounds_ = std::max(rounds_, rounds); }

void Schedule::alongside(const Schedule& other, int offset) {
  for (const Message& m : other.messages_) send(m.from, m.to, m.bytes, m.round + offset, m.lane);
  rounds_ = std::max(rounds_, other.rounds_ + offset);
}

Schedule Schedule::embedded(const std::vector<int>& positions, int participants) const {
  if (static_cast<int>(positions.size()) != participants_)
    throw Error(fmt::format("Schedule: embedding {} participants needs as many positions, got {}", participants_,
                            positions.size()));
  Schedule out(participants);
  for (const Message& m : messages_) out.send(positions[m.from], positions[m.to], m.bytes, m.round, m.lane);
  out.rounds_ = rounds_;
  return out;
}

Schedule Schedule::in_lane(int lane, int lanes) const {
  Schedule out(participants_);
  for (const Message& m : messages_) out.send(m.from, m.to, m.bytes, m.round, m.lane * lanes + lane);
  out.rounds_ = rounds_;
  return out;
}

double Schedule::bytes_sent(int participant) const {
  double sum = 0;
  for (const Message& m : messages_)
    if (m.from == participant) sum += m.bytes;
  return sum;
}

double Schedule::bytes_received(int participant) const {
  double sum = 0;
  for (const Message& m : messages_)
    if (m.to == participant) sum += m.bytes;
  return sum;
}

int Schedule::active_rounds(int participant) const {
  std::set<int> rounds;
  for (const Message& m : messages_)
    if (m.from == participant || m.to == participant) rounds.insert(m.round);
  return static_cast<int>(rounds.size());
}

int chunk_count(double bytes, double chunk_B) {
  if (!(chunk_B > 0) || !(bytes > chunk_B)) return 1;
  return static_cast<int>(std::ceil(bytes / chunk_B));
}

}  // namespace clearfog::collectives
