#include "parallel/HostLaunches.hpp"

#include <algorithm>

namespace clearfog::parallel {

using program::Category;
using program::OpIndex;
using program::Stream;

HostLaunches::HostLaunches(const config::HostIssue& model, program::Plan& plan, bool elide)
    : model_(model), plan_(plan), elide_(elide), ranks_(plan.ranks.size()) {}

OpIndex HostLaunches::add_host_op(int rank, double seconds) {
  auto& h = ranks_.at(static_cast<std::size_t>(rank));
  const double total_s = h.carried_s + seconds;
  h.carried_s = 0;
  return plan_.ranks[static_cast<std::size_t>(rank)].add_compute(Stream::Host, Category::Host, "host.launch", total_s);
}

double HostLaunches::launch_s(Category category) const {
  // The backward's kernels are issued by the C++ autograd engine; everything else from Python.
  return category == Category::Backward ? model_.backward_launch_s : model_.forward_launch_s;
}

std::optional<OpIndex> HostLaunches::launch(int rank, Category category, std::size_t kernels, double device_s) {
  if (!active() || kernels == 0) return std::nullopt;
  auto& h = ranks_.at(static_cast<std::size_t>(rank));
  // A captured graph is replayed by one call; eagerly, each kernel is its own launch.
  const double first_s = model_.cuda_graphs ? model_.graph_launch_s : launch_s(category);
  const double host_op_s = h.owed_s + first_s;
  h.owed_s = model_.cuda_graphs ? 0.0 : static_cast<double>(kernels - 1) * launch_s(category);
  h.host_s += host_op_s;
  if (elide_ && !h.waited && h.host_s <= h.device_s) {  // issued before the device could start it
    h.carried_s += host_op_s;
    h.device_s += device_s;
    return std::nullopt;
  }
  h.device_s = std::max(h.device_s, h.host_s) + device_s;
  return add_host_op(rank, host_op_s);
}

void HostLaunches::flush(int rank) {
  auto& h = ranks_.at(static_cast<std::size_t>(rank));
  h.host_s += h.owed_s;
  // The last launches hold nothing back if the host is done before the device could be.
  const bool needed = h.waited || !elide_ || h.host_s > h.device_s;
  if (needed && h.carried_s + h.owed_s > 0) add_host_op(rank, h.owed_s);
  h.owed_s = 0;
}

void HostLaunches::wait_for(int rank, std::span<const OpIndex> ops) {
  if (!active() || ops.empty()) return;
  auto& h = ranks_.at(static_cast<std::size_t>(rank));
  h.waited = true;  // from here every host op is kept
  flush(rank);
  auto& program = plan_.ranks[static_cast<std::size_t>(rank)];
  program.add_compute(Stream::Host, Category::Host, program.intern("host.sync"), 0.0, ops);
}

void HostLaunches::finish() {
  if (!active()) return;
  for (std::size_t r = 0; r < plan_.ranks.size(); ++r) flush(static_cast<int>(r));
}

}  // namespace clearfog::parallel
