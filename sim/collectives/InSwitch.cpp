#include "collectives/InSwitch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "core/Errors.hpp"

namespace clearfog::collectives {

Schedule in_switch_all_reduce_schedule(int p, double bytes, double chunk_B) {
  const int sw = p;
  Schedule s(p + 1);
  if (p < 2) return s;
  const int chunks = chunk_count(bytes, chunk_B);
  const double chunk = bytes / chunks;
  for (int j = 0; j < chunks; ++j)
    for (int i = 0; i < p; ++i) {
      s.send(i, sw, chunk, j);
      s.send(sw, i, chunk, j + 1);
    }
  return s;
}


namespace {

/// What NVLS moves per pipeline round (src/enqueue.cc computeColl): every channel a chunk per head
/// (each member of a node), 128 KiB cut to 64, 32 and 16 KiB for smaller buffers.
double nvls_loop_B(double bytes, int channels, int heads) {
  const double ops = static_cast<double>(std::max(1, channels)) * std::max(1, heads);
  double chunk = 131072;
  if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  return ops * chunk;
}

class InSwitchAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "in-switch"; }
  std::string_view summary() const override { return "the node's switch reduces (NVLS; needs node.in_switch_reduction)"; }
  int version() const override { return 1; }
  bool implements(config::CollectiveOp op) const override { return op == config::CollectiveOp::AllReduce; }
  std::optional<std::string> refusal(config::CollectiveOp /*op*/, const GroupShape& g) const override {
    if (g.reducing_switch == false)
      return "it reduces in the node's switch, and the node has no switch that reduces (node.in_switch_reduction: "
             "false)";
    if (g.spans_nodes == true) return "it reduces in one node's switch, and the group spans nodes";
    if (g.members < 2) return fmt::format("it needs two members at least, got {}", g.members);
    return std::nullopt;
  }
  std::optional<NcclAlgorithm> nccl_counterpart() const override { return NcclAlgorithm::Nvls; }
  bool runs_protocol(config::Protocol p) const override { return p == config::Protocol::Simple; }
  std::optional<double> pipeline_chunk_B(config::CollectiveOp /*op*/, const ChunkContext& c) const override {
    return nvls_loop_B(c.bytes, c.channels, c.members);
  }
  bool pipelined(config::CollectiveOp /*op*/) const override { return true; }
  bool reduces_in_switch() const override { return true; }
  void check(const program::Plan& /*plan*/, const CollectiveRequest& r) const override {
    if (r.switch_endpoints.empty())
      throw Error("needs the reducing switch's endpoint, and the request names none (the platform has no in-switch "
                  "reduction?)");
    if (r.switch_endpoints.size() != 1)
      throw Error(fmt::format("reduces in one switch, got {} switch endpoints", r.switch_endpoints.size()));
  }
  Schedule schedule(const CollectiveRequest& r) const override {
    return in_switch_all_reduce_schedule(static_cast<int>(r.ranks.size()), r.bytes, r.chunk_B);
  }
};

}  // namespace

const CollectiveAlgorithmType& in_switch_algorithm() {
  static const InSwitchAlgorithm algorithm;
  return algorithm;
}

}  // namespace clearfog::collectives
