#pragma once
// Several plans as one, for cluster runs (docs/cluster.md): each part's ranks are renumbered onto
// ranks of the merged plan (parts use disjoint ranks), its programs wait for a start op and repeat
// for its iterations, each iteration of a rank starting when every stream of that rank has finished
// the previous one. Tags are shifted per iteration so that messages of different iterations never
// match each other. A pure function of the plans: the engine replays the result like any plan.
#include <span>
#include <vector>

#include "program/Program.hpp"

namespace clearfog::program {

struct PlanPart {
  const Plan* plan = nullptr;
  std::vector<int> ranks;  // ranks[r]: the merged rank of the part's rank r, one entry per rank of the part
  double start_s = 0;      // every rank of the part waits this long before its first op
  int iterations = 1;
};

/// Op `i` of iteration `k` of a part's program lands at this index of its merged rank (op 0 is the
/// start op).
[[nodiscard]] inline OpIndex merged_op_index(OpIndex program_size, int iteration, OpIndex i) {
  return 1 + static_cast<OpIndex>(iteration) * program_size + i;
}

/// The parts as one plan of `rank_count` ranks; ranks no part uses have no ops. Throws
/// clearfog::Error when a part's rank map does not match its plan, maps two ranks (or two parts)
/// to one merged rank or outside [0, rank_count), or its iterations are < 1 or start < 0.
Plan merge_plans(std::span<const PlanPart> parts, int rank_count);

}  // namespace clearfog::program
