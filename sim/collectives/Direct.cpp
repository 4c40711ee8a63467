#include "collectives/Direct.hpp"

#include "collectives/CollectiveAlgorithmType.hpp"

namespace clearfog::collectives {

Schedule pairwise_all_to_all_schedule(int p, double bytes) {
  Schedule s(p);
  for (int step = 1; step < p; ++step)
    for (int i = 0; i < p; ++i) s.send(i, (i + step) % p, bytes / p, step - 1);
  return s;
}

Schedule grouped_all_to_all_schedule(int p, double bytes) {
  Schedule s(p);
  for (int step = 1; step < p; ++step)
    for (int i = 0; i < p; ++i) s.send(i, (i + step) % p, bytes / p, 0);
  return s;
}

Schedule grouped_all_to_all_v_schedule(const std::vector<std::vector<double>>& matrix) {
  // As NCCL runs an all-to-all-v: one group of sends, every pair at once; empty pairs send nothing.
  const int p = static_cast<int>(matrix.size());
  Schedule s(p);
  for (int step = 1; step < p; ++step)
    for (int i = 0; i < p; ++i) {
      const int j = (i + step) % p;
      if (matrix[i][j] > 0) s.send(i, j, matrix[i][j], 0);
    }
  return s;
}

Schedule direct_all_gather_schedule(int p, double bytes) {
  Schedule s(p);
  for (int i = 0; i < p; ++i)
    for (int step = 1; step < p; ++step) s.send(i, (i + step) % p, bytes / p, 0);
  return s;
}

Schedule direct_reduce_scatter_schedule(int p, double bytes) {
  // Same traffic as the all-gather: member i receives every other member's part i and reduces it.
  return direct_all_gather_schedule(p, bytes);
}

Schedule direct_all_reduce_schedule(int p, double bytes) {
  Schedule s = direct_reduce_scatter_schedule(p, bytes);
  s.then(direct_all_gather_schedule(p, bytes));
  return s;
}

Schedule direct_broadcast_schedule(int p, int root, double bytes) {
  Schedule s(p);
  for (int i = 0; i < p; ++i)
    if (i != root) s.send(root, i, bytes, 0);
  return s;
}

Schedule direct_reduce_schedule(int p, int root, double bytes) {
  Schedule s(p);
  for (int i = 0; i < p; ++i)
    if (i != root) s.send(i, root, bytes, 0);
  return s;
}

Schedule sendrecv_schedule(double bytes) {
  Schedule s(2);
  s.send(0, 1, bytes, 0);
  return s;
}


namespace {

using config::CollectiveOp;

class DirectAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "direct"; }
  std::string_view summary() const override { return "pairwise exchange (flat trees for broadcast and reduce)"; }
  int version() const override { return 1; }
  bool implements(CollectiveOp /*op*/) const override { return true; }
  Schedule schedule(const CollectiveRequest& r) const override {
    const int p = static_cast<int>(r.ranks.size());
    const double n = r.bytes;
    switch (r.op) {
      case CollectiveOp::AllReduce: return direct_all_reduce_schedule(p, n);
      case CollectiveOp::ReduceScatter: return direct_reduce_scatter_schedule(p, n);
      case CollectiveOp::AllGather: return direct_all_gather_schedule(p, n);
      case CollectiveOp::AllToAll:
        return r.matrix.empty() ? grouped_all_to_all_schedule(p, n) : grouped_all_to_all_v_schedule(wire_matrix(r));
      case CollectiveOp::Broadcast: return direct_broadcast_schedule(p, r.root, n);
      case CollectiveOp::Reduce: return direct_reduce_schedule(p, r.root, n);
      case CollectiveOp::SendRecv: return sendrecv_schedule(n);
    }
    return sendrecv_schedule(n);
  }
};

}  // namespace

const CollectiveAlgorithmType& direct_algorithm() {
  static const DirectAlgorithm algorithm;
  return algorithm;
}

}  // namespace clearfog::collectives
