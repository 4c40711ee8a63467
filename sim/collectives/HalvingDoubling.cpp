#include "collectives/HalvingDoubling.hpp"

#include "collectives/CollectiveAlgorithmType.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

void require_power_of_two(int p, const char* what) {
  if (!is_power_of_two(p))
    throw Error(fmt::format("{} needs a power-of-two number of members, got {}", what, p));
}

}  // namespace

bool is_power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

Schedule halving_reduce_scatter_schedule(int p, double bytes) {
  require_power_of_two(p, "halving-doubling reduce_scatter");
  Schedule s(p);
  int round = 0;
  double share = bytes / 2;
  for (int distance = p / 2; distance >= 1; distance /= 2, share /= 2, ++round)
    for (int i = 0; i < p; ++i) s.send(i, i ^ distance, share, round);
  return s;
}

Schedule doubling_all_gather_schedule(int p, double bytes) {
  require_power_of_two(p, "halving-doubling all_gather");
  Schedule s(p);
  int round = 0;
  double held = bytes / p;
  for (int distance = 1; distance < p; distance *= 2, held *= 2, ++round)
    for (int i = 0; i < p; ++i) s.send(i, i ^ distance, held, round);
  return s;
}

Schedule halving_doubling_all_reduce_schedule(int p, double bytes) {
  Schedule s(p);
  if (p < 2) return s;
  int core = 1;
  while (core * 2 <= p) core *= 2;
  const int extra = p - core;
  // Core member j: the odd member of the j-th folded pair, then the members past the pairs.
  std::vector<int> core_members(core);
  for (int j = 0; j < core; ++j) core_members[j] = j < extra ? 2 * j + 1 : j + extra;

  Schedule fold_in(p), fold_out(p);
  for (int j = 0; j < extra; ++j) {
    fold_in.send(2 * j, 2 * j + 1, bytes, 0);
    fold_out.send(2 * j + 1, 2 * j, bytes, 0);
  }
  Schedule rabenseifner = halving_reduce_scatter_schedule(core, bytes);
  rabenseifner.then(doubling_all_gather_schedule(core, bytes));
  s.then(fold_in);
  s.then(rabenseifner.embedded(core_members, p));
  s.then(fold_out);
  return s;
}


namespace {

class HalvingDoublingAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "halving-doubling"; }
  std::string_view summary() const override { return "recursive halving-doubling (power-of-two groups)"; }
  int version() const override { return 1; }
  bool implements(config::CollectiveOp op) const override { return config::is_reduce_or_gather(op); }
  /// The all-reduce folds the members beyond a power of two into its core; the halving and the
  /// doubling alone cannot.
  std::optional<std::string> refusal(config::CollectiveOp op, const GroupShape& g) const override {
    if (op == config::CollectiveOp::AllReduce || is_power_of_two(g.members)) return std::nullopt;
    return fmt::format("its {} pairs members at distances 1, 2, 4, ... and needs a power-of-two number of them, got {}",
                       config::collective_op_name(op), g.members);
  }
  Schedule schedule(const CollectiveRequest& r) const override {
    const int p = static_cast<int>(r.ranks.size());
    if (r.op == config::CollectiveOp::AllReduce) return halving_doubling_all_reduce_schedule(p, r.bytes);
    if (r.op == config::CollectiveOp::ReduceScatter) return halving_reduce_scatter_schedule(p, r.bytes);
    return doubling_all_gather_schedule(p, r.bytes);
  }
};

}  // namespace

const CollectiveAlgorithmType& halving_doubling_algorithm() {
  static const HalvingDoublingAlgorithm algorithm;
  return algorithm;
}

}  // namespace clearfog::collectives
