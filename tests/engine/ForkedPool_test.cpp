// engine::run_forked_all: outcomes in the order of the bodies, a body past the timeout killed and
// marked, a caught SIGINT ending the pool with Interrupted after killing its children.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "core/Interrupt.hpp"
#include "engine/ForkedPool.hpp"

using namespace clearfog;

namespace {

std::function<std::string()> sleeper(double seconds, std::string result) {
  return [seconds, result] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return result;
  };
}

}  // namespace

TEST_CASE("engine::run_forked_all: a body past the timeout is killed and says so, the others finish", "[engine][forked]") {
  std::vector<std::size_t> finished;
  engine::ForkedPoolOptions options{2, 0.5, [&](std::size_t i, const engine::ForkedOutcome&) { finished.push_back(i); },
                                    {}};
  const auto start = std::chrono::steady_clock::now();
  const auto out = engine::run_forked_all({sleeper(0, "quick"), sleeper(30, "never"), sleeper(0, "also quick")}, options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(out.size() == 3);
  CHECK(out[0].ok);
  CHECK(out[0].text == "quick");
  CHECK_FALSE(out[1].ok);
  CHECK(out[1].timed_out);
  CHECK(out[1].text.find("no result after 0.5 s") != std::string::npos);
  CHECK(out[2].ok);
  CHECK(out[2].text == "also quick");
  CHECK(finished.size() == 3);
  // Killed once past 0.5 s (looked at every 0.2 s), long before its 30 s.
  CHECK(wall_s < 5);
}

TEST_CASE("engine::run_forked_all: SIGINT kills the children and throws Interrupted", "[engine][forked]") {
  const InterruptGuard guard;
  std::vector<std::size_t> finished;
  engine::ForkedPoolOptions options{2, 0, [&](std::size_t i, const engine::ForkedOutcome&) {
                                      finished.push_back(i);
                                      // After the first result, as a user's Ctrl-C would come.
                                      ::kill(::getpid(), SIGINT);
                                    },
                                    {}};
  const auto start = std::chrono::steady_clock::now();
  try {
    engine::run_forked_all({sleeper(0, "done"), sleeper(30, "never"), sleeper(30, "never")}, options);
    FAIL("no Interrupted thrown");
  } catch (const Interrupted& e) {
    CHECK(e.signal() == SIGINT);
    CHECK(std::string(e.what()).find("interrupted by SIGINT") != std::string::npos);
  }
  CHECK(finished == std::vector<std::size_t>{0});
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 5);
}
