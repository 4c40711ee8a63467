// Where the jobs of a cluster run go (cluster::place_jobs, docs/cluster.md): packed in file order,
// spread in turn, explicit lists first; impossible requests refused.
#include <catch2/catch.hpp>

#include <vector>

#include "core/Errors.hpp"
#include "cluster/JobPlacement.hpp"

using namespace clearfog;
using cluster::JobRequest;
using cluster::Placement;
using Nodes = std::vector<std::vector<int>>;

TEST_CASE("cluster::place_jobs: packed, spread and explicit nodes", "[sweep][cluster]") {
  const std::vector<JobRequest> two = {{2, {}}, {3, {}}};
  CHECK(cluster::place_jobs(two, 6, Placement::Packed) == Nodes{{0, 1}, {2, 3, 4}});
  CHECK(cluster::place_jobs(two, 6, Placement::Spread) == Nodes{{0, 2}, {1, 3, 4}});
  // An explicit job takes its nodes first; the others fill what is left.
  const std::vector<JobRequest> pinned = {{2, {}}, {2, {0, 5}}};
  CHECK(cluster::place_jobs(pinned, 6, Placement::Packed) == Nodes{{1, 2}, {0, 5}});
}

TEST_CASE("cluster::place_jobs: refuses too many nodes, repeated or foreign nodes", "[sweep][cluster]") {
  CHECK_THROWS_AS(cluster::place_jobs({{4, {}}, {3, {}}}, 6, Placement::Packed), ConfigError);
  CHECK_THROWS_AS(cluster::place_jobs({{2, {1, 1}}}, 6, Placement::Packed), ConfigError);
  CHECK_THROWS_AS(cluster::place_jobs({{1, {6}}}, 6, Placement::Packed), ConfigError);
  CHECK_THROWS_AS(cluster::place_jobs({{1, {2}}, {1, {2}}}, 6, Placement::Packed), ConfigError);
  CHECK_THROWS_AS(cluster::place_jobs({{2, {2}}}, 6, Placement::Packed), ConfigError);  // list shorter than the count
}
