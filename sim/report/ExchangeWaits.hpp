#pragma once
// How long each exchange of a replay waited for its peers. An exchange pays its overhead, then posts
// its transfers; each transfer moves once its other end is posted too (engine/ActivityReplay.cpp,
// post()). Until the first of its transfers has both ends posted nothing of it moves: that time is a
// wait for a peer (a pipeline stage receiving before its neighbour has sent: the bubble), not
// transfer time. Reports draw and count it as idle (docs/outputs.md).
#include <cstdint>
#include <map>
#include <tuple>

#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

class ExchangeWaits {
public:
  ExchangeWaits(const program::Plan& plan, const engine::SimulationResult& result) : plan_(plan), result_(result) {}

  /// Seconds exchange `op` of `rank` waited, from its posting (start + overhead) to the first moment
  /// one of its transfers had both ends posted; within its duration. 0 for a compute op, an exchange
  /// without transfers or one that did not run.
  double wait_s(int rank, program::OpIndex op);

private:
  using End = std::tuple<int, std::uint64_t, bool>;  // (peer, tag, whether this end sends)
  /// Each transfer end of `rank` and the op that holds it, built on first use.
  const std::map<End, program::OpIndex>& ends_of(int rank);
  /// When the op holding the other end of `rank`'s transfer (peer, tag, sends) posted it; -1 if unknown.
  double partner_posted_s(int rank, int peer, std::uint64_t tag, bool sends);

  const program::Plan& plan_;
  const engine::SimulationResult& result_;
  std::map<int, std::map<End, program::OpIndex>> ends_;
};

}  // namespace clearfog::report
