#pragma once
// A collective algorithm as data: who sends how many bytes to whom in which round. Participants
// are positions (0 … participants-1): the request's members in order, then any extra endpoint
// (the reducing switch). Both ends of a message post it in the same round, and a participant's
// rounds run in order, so any schedule built from rounds is deadlock-free by construction.
// Building schedules is pure; AppendSchedule.hpp turns one into ops of a Plan.
#include <vector>

namespace clearfog::collectives {

struct Message {
  int from = 0;      // participant position
  int to = 0;        // participant position
  double bytes = 0;  // B
  int round = 0;     // the round both ends post it in
  int lane = 0;      // independent flow it belongs to (a tree of a double tree, a channel): the
                     // fluid plan merges a pair's messages per lane
};

class Schedule {
public:
  explicit Schedule(int participants);

  /// Adds one message. Throws clearfog::Error for a position out of range, a self-message or a
  /// negative round or size (these are bugs in an algorithm, caught where they happen).
  void send(int from, int to, double bytes, int round, int lane = 0);

  /// Runs `later` after this schedule: its round r becomes rounds() + r.
  void then(const Schedule& later);
  /// Declares that the schedule lasts at least `rounds` rounds even if its messages are posted
  /// earlier: a compact schedule for fluid plans folds many rounds into one message per pair.
  void stretch_to(int rounds);
  /// Runs `other` in the same rounds as this one (groups working side by side), its round r in
  /// round r + offset.
  void alongside(const Schedule& other, int offset = 0);
  /// This schedule with participant i renamed positions[i], in a schedule of `participants`
  /// (a sub-group's algorithm placed inside a larger group).
  [[nodiscard]] Schedule embedded(const std::vector<int>& positions, int participants) const;
  /// This schedule with every lane l renumbered l * lanes + lane: for copies of an algorithm that
  /// run side by side (channels), so that fluid plans keep their flows apart.
  [[nodiscard]] Schedule in_lane(int lane, int lanes) const;

  [[nodiscard]] int participants() const { return participants_; }
  /// Rounds from the first to the last message: the step plan's critical path in messages.
  [[nodiscard]] int rounds() const { return rounds_; }
  [[nodiscard]] const std::vector<Message>& messages() const { return messages_; }
  [[nodiscard]] double bytes_sent(int participant) const;
  [[nodiscard]] double bytes_received(int participant) const;
  /// Rounds in which `participant` sends or receives anything (its number of exchanges).
  [[nodiscard]] int active_rounds(int participant) const;

private:
  int participants_;
  int rounds_ = 0;
  std::vector<Message> messages_;
};

/// Number of pipeline chunks for messages of `bytes` with chunk size `chunk_B` (0: no chunking):
/// ceil(bytes / chunk_B) when bytes > chunk_B > 0, else 1.
int chunk_count(double bytes, double chunk_B);

}  // namespace clearfog::collectives
