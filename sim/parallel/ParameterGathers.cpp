#include "parallel/ParameterGathers.hpp"

#include "collectives/Collective.hpp"

namespace clearfog::parallel {

ParameterGathers::ParameterGathers(program::Plan& plan, collectives::TagAllocator& tags,
                                   collectives::ScheduleCache& schedules, const GroupCollectives& collectives)
    : plan_(plan), tags_(tags), schedules_(schedules), collectives_(collectives) {}

ParameterGathers::RankState& ParameterGathers::state(int rank) {
  if (static_cast<std::size_t>(rank) >= ranks_.size()) ranks_.resize(static_cast<std::size_t>(rank) + 1);
  return ranks_[static_cast<std::size_t>(rank)];
}

void ParameterGathers::gather(const std::vector<int>& group, double bytes, const std::string& name) {
  auto request = collectives_.request(config::CollectiveOp::AllGather, group, bytes);
  request.stream = program::Stream::Gather;
  request.category = program::Category::DataParallelComm;
  request.name = name;
  request.deps.assign(group.size(), {});
  for (std::size_t i = 0; i < group.size(); ++i) {
    const auto& used = state(group[i]).used;
    // Two buffers: this gather overwrites the one of the unit before last.
    if (used.size() >= 2) request.deps[i] = {used[used.size() - 2]};
  }
  const auto done = collectives::append_collective(plan_, request, tags_, schedules_);
  for (std::size_t i = 0; i < group.size(); ++i) state(group[i]).pending = done[i];
}

void ParameterGathers::expect(int rank, program::OpIndex gathered) {
  auto& pending = state(rank).pending;
  if (!pending || *pending < gathered) pending = gathered;  // a rank's ops are numbered in issue order
}

std::optional<program::OpIndex> ParameterGathers::take(int rank) {
  auto& s = state(rank);
  const auto pending = s.pending;
  s.pending.reset();
  return pending;
}

void ParameterGathers::release(int rank, program::OpIndex unit_end) { state(rank).used.push_back(unit_end); }

std::optional<program::OpIndex> ParameterGathers::reused_buffer(int rank) {
  const auto& used = state(rank).used;
  if (used.size() < 2) return std::nullopt;
  return used[used.size() - 2];
}

}  // namespace clearfog::parallel
