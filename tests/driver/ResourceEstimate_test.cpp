// The resource estimate of a run: counts read off the plan, the floor known before planning, and
// the refusal that names the estimate and the knobs; the progress and timeout watch.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "core/Errors.hpp"
#include "driver/ResourceEstimate.hpp"
#include "driver/RunWatch.hpp"

using namespace clearfog;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("driver::estimate_plan: every op and every send of a plan", "[driver]") {
  program::Plan plan;
  plan.ranks.resize(2);
  plan.ranks[0].add_compute(program::Stream::Compute, program::Category::Forward, "f", 1e-3);
  plan.ranks[0].add_exchange(program::Stream::Comm, program::Category::DataParallelComm, "x",
                             {{1, 8, 1}, {1, 8, 2}}, {{1, 8, 3}});
  plan.ranks[1].add_exchange(program::Stream::Comm, program::Category::DataParallelComm, "x", {{0, 8, 3}},
                             {{0, 8, 1}, {0, 8, 2}});
  const auto e = driver::estimate_plan(plan);
  CHECK(e.ops == 3);
  CHECK(e.messages == 3);  // sends only: each message has one send and one receive
  CHECK_FALSE(e.floor);
  CHECK(e.bytes() == Approx(driver::kBaseBytes + 6 * driver::kBytesPerActivity));
}

TEST_CASE("driver::kBytesPerActivity: calibrated on one published run, checked on another", "[driver]") {
  // Calibration (docs/reliability.md): gpt3-175b-1024gpu replayed in full (--no-symmetry) by the
  // compact engine, 4,807,040 ops + 2,793,184 messages at 604,040 KiB peak RSS.
  const double calibration = (604'040.0 * 1024 - driver::kBaseBytes) / (4'807'040.0 + 2'793'184.0);
  CHECK(driver::kBytesPerActivity == Approx(calibration).epsilon(0.01));
  // Checks (docs/performance.md, scripts/bench --large): the 530B and 1T rows replayed
  // symmetrically hold less than a full replay would; the estimate must cover them, within 40 %.
  const auto covers = [](double ops, double messages, double measured_B) {
    driver::ResourceEstimate e;
    e.ops = static_cast<std::uint64_t>(ops);
    e.messages = static_cast<std::uint64_t>(messages);
    INFO(e.bytes() << " B estimated, " << measured_B << " B measured");
    CHECK(e.bytes() >= measured_B);
    CHECK(e.bytes() <= 1.4 * measured_B);
  };
  covers(25'538'112, 14'877'208, 2158.0 * 1024 * 1024);  // 530B, 2,520 GPUs
  covers(38'159'872, 22'264'608, 3812.0 * 1024 * 1024);  // 1T, 16,384 GPUs
}

TEST_CASE("driver::estimate_floor: devices x micro-batches x chunks x 2 passes", "[driver]") {
  config::ScenarioSpec s;
  s.parallelism.dp = 4;
  s.parallelism.tp = 2;
  s.parallelism.pp = 2;
  s.parallelism.virtual_stages = 3;
  s.training.global_batch = 64;
  s.training.micro_batch = 2;  // 64 / 4 / 2 = 8 micro-batches per replica
  const auto e = driver::estimate_floor(s);
  CHECK(e.floor);
  CHECK(e.ops == 4u * 2 * 2 * 8 * 3 * 2);
}

TEST_CASE("driver::check_memory: refused at --max-memory with the estimate and the knobs", "[driver]") {
  driver::ResourceEstimate e;
  e.ops = 10'000'000;
  e.messages = 5'000'000;
  CHECK_NOTHROW(driver::check_memory(e, e.bytes()));
  try {
    driver::check_memory(e, 1e9);
    FAIL("no error");
  } catch (const ConfigError& error) {
    REQUIRE(error.diagnostics().size() == 1);
    const std::string text = error.diagnostics()[0].str();
    CHECK_THAT(text, StartsWith("--max-memory: the run would need ~1.18 GB (10000000 ops and 5000000 messages"));
    CHECK_THAT(text, Contains("collectives.fidelity: fluid"));
    CHECK_THAT(text, Contains("more than the 1 GB it may use"));
  }
}

TEST_CASE("driver::available_memory_bytes: this machine's MemAvailable", "[driver]") {
  const auto bytes = driver::available_memory_bytes();
  REQUIRE(bytes.has_value());
  CHECK(*bytes > 0);
}

TEST_CASE("driver::RunWatch: a progress line, and the timeout as a located error", "[driver]") {
  CHECK(driver::RunWatch::progress_text("simulating", 12.5, 300, 1200) ==
        "simulating, 12.5 s simulated, ~25 % of 1200 ops and messages");
  CHECK(driver::RunWatch::progress_text("planning", 0, 0, 0) == "planning");
  // More completions than expected (SimGrid's timers count too): capped below 100 %.
  CHECK_THAT(driver::RunWatch::progress_text("simulating", 1, 5000, 1200), Contains("~99 %"));

  std::mutex mutex;
  std::condition_variable done;
  std::string message;
  {
    driver::RunWatch watch(0.05, 60, [&](const Diagnostic& d) {
      std::lock_guard lock(mutex);
      message = d.str();
      done.notify_all();
    });
    watch.phase("planning");
    std::unique_lock lock(mutex);
    done.wait_for(lock, std::chrono::seconds(10), [&] { return !message.empty(); });
  }
  CHECK_THAT(message, StartsWith("--timeout: no result after 0.05 s (planning"));
}
