#pragma once
// ZeRO-3 / FSDP FULL_SHARD parameter all-gathers (Rajbhandari et al. SC20; PyTorch FSDP): before a
// unit (a layer, the embedding, the head, or a fused chunk) computes, every member of its
// data-parallel group gathers the unit's parameters. Gathers run on Stream::Gather and are
// prefetched one unit ahead: a member's gather of unit u waits for the end of its unit u-2, whose
// buffer it reuses, so at most two units are materialized (parallel/MemoryEstimate.cpp).
#include <optional>
#include <string>
#include <vector>

#include "collectives/ScheduleCache.hpp"
#include "collectives/TagAllocator.hpp"
#include "parallel/GroupCollectives.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

class ParameterGathers {
public:
  ParameterGathers(program::Plan& plan, collectives::TagAllocator& tags, collectives::ScheduleCache& schedules,
                   const GroupCollectives& collectives);

  /// Appends the all-gather of `bytes` (the unit's whole parameters, nccl-tests convention) over
  /// `group`; the next compute op of each member must wait for it (take()).
  void gather(const std::vector<int>& group, double bytes, const std::string& name);
  /// A gather laid out elsewhere (ZeRO-1/2's all-gather of the updated shards, ahead of the
  /// forward) that the next compute op of `rank` must wait for; of several, the latest.
  void expect(int rank, program::OpIndex gathered);
  /// The gather the next compute op of `rank` waits for, once: empty when there is none.
  std::optional<program::OpIndex> take(int rank);
  /// `unit_end` is the last op of the unit that used `rank`'s latest gather: its buffer is free after it.
  void release(int rank, program::OpIndex unit_end);
  /// The end of the unit whose buffer `rank`'s next gather reuses (the unit before last), if any.
  [[nodiscard]] std::optional<program::OpIndex> reused_buffer(int rank);

private:
  struct RankState {
    std::optional<program::OpIndex> pending;       // gathered, not yet waited for
    std::vector<program::OpIndex> used;            // ends of the units, in execution order
  };
  RankState& state(int rank);

  program::Plan& plan_;
  collectives::TagAllocator& tags_;
  collectives::ScheduleCache& schedules_;
  const GroupCollectives& collectives_;
  std::vector<RankState> ranks_;
};

}  // namespace clearfog::parallel
