// check_plan rejects plans that cannot be carried out, before any simulation.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "program/Program.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

TEST_CASE("program::check_plan: rejects plans that cannot be carried out", "[program]") {
  program::Plan plan;
  plan.ranks.resize(2);
  SECTION("a send nobody receives") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, 8, 0}}, {});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("never receives"));
  }
  SECTION("a receive nobody sends") {
    plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {}, {Transfer{0, 8, 0}});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("never sends"));
  }
  SECTION("sizes that differ") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, 8, 0}}, {});
    plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "y", {}, {Transfer{0, 16, 0}});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("expects 16 B"));
  }
  SECTION("a dependency on a later op") {
    plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "a", 1.0, {1});
    plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "b", 1.0);
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("not earlier"));
  }
  SECTION("a peer out of range") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{5, 8, 0}}, {});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("peer 5"));
  }
  SECTION("a tag used twice on one pair") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, 8, 3}}, {});
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "y", {Transfer{1, 8, 3}}, {});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("reuses tag 3"));
  }
}
