#include "parallel/HostLaunches.hpp"

namespace clearfog::parallel {

using program::Category;
using program::OpIndex;
using program::Stream;

HostLaunches::HostLaunches(const config::HostIssue& model, program::Plan& plan)
    : model_(model), plan_(plan), owed_s_(plan.ranks.size(), 0.0) {}

double HostLaunches::launch_s(Category category) const {
  // The backward's kernels are issued by the C++ autograd engine; everything else from Python.
  return category == Category::Backward ? model_.backward_launch_s : model_.forward_launch_s;
}

std::optional<OpIndex> HostLaunches::launch(int rank, Category category, std::size_t kernels) {
  if (!active() || kernels == 0) return std::nullopt;
  auto& owed = owed_s_.at(static_cast<std::size_t>(rank));
  // A captured graph is replayed by one call; eagerly, each kernel is its own launch.
  const double first_s = model_.cuda_graphs ? model_.graph_launch_s : launch_s(category);
  const double host_s = owed + first_s;
  owed = model_.cuda_graphs ? 0.0 : static_cast<double>(kernels - 1) * launch_s(category);
  return plan_.ranks[static_cast<std::size_t>(rank)].add_compute(Stream::Host, Category::Host, "host.launch", host_s);
}

void HostLaunches::flush(int rank) {
  auto& owed = owed_s_.at(static_cast<std::size_t>(rank));
  if (owed > 0) plan_.ranks[static_cast<std::size_t>(rank)].add_compute(Stream::Host, Category::Host, "host.launch", owed);
  owed = 0;
}

void HostLaunches::wait_for(int rank, std::span<const OpIndex> ops) {
  if (!active() || ops.empty()) return;
  flush(rank);
  auto& program = plan_.ranks[static_cast<std::size_t>(rank)];
  program.add_compute(Stream::Host, Category::Host, program.intern("host.sync"), 0.0, ops);
}

void HostLaunches::finish() {
  if (!active()) return;
  for (std::size_t r = 0; r < plan_.ranks.size(); ++r) flush(static_cast<int>(r));
}

}  // namespace clearfog::parallel
