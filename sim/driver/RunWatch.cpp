#include "driver/RunWatch.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>


namespace clearfog::driver {
namespace {

// Written by SimGrid's callbacks on the simulating thread, read by the watch thread.
std::atomic<std::uint64_t> g_completed{0};
std::atomic<double> g_clock_s{0};
std::atomic<bool> g_started{false};  // SimGrid's main loop has begun (the platform and actors exist)

/// SimGrid's signals are global: connected once per process, they only count.
void connect_signals() {
  static const bool connected = [] {
    simgrid::s4u::Activity::on_completion_cb(
        [](const simgrid::s4u::Activity&) { g_completed.fetch_add(1, std::memory_order_relaxed); });
    simgrid::s4u::Engine::on_simulation_start_cb([] { g_started.store(true); });
    simgrid::s4u::Engine::on_time_advance_cb(
        [](double) { g_clock_s.store(simgrid::s4u::Engine::get_clock(), std::memory_order_relaxed); });
    return true;
  }();
  (void)connected;
}

}  // namespace

RunWatch::RunWatch(double timeout_s, double every_s, std::function<void(const Diagnostic&)> on_timeout,
                   std::string command)
    : timeout_s_(timeout_s), every_s_(every_s), on_timeout_(std::move(on_timeout)), command_(std::move(command)) {
  connect_signals();
  thread_ = std::thread([this] { loop(); });
}

RunWatch::~RunWatch() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RunWatch::phase(std::string name, std::uint64_t expected) {
  std::lock_guard lock(mutex_);
  phase_ = std::move(name);
  expected_ = expected;
}

std::string RunWatch::progress_text(const std::string& phase, double simulated_s, std::uint64_t done,
                                    std::uint64_t expected) {
  std::string text = phase;
  if (simulated_s > 0) text += fmt::format(", {:.6g} s simulated", simulated_s);
  // The count includes SimGrid's own activities (timers): the share is approximate and capped.
  if (expected > 0)
    text += fmt::format(", ~{:.0f} % of {} ops and messages",
                        std::min(99.0, 100.0 * static_cast<double>(done) / static_cast<double>(expected)), expected);
  return text;
}

void RunWatch::loop() {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  double next_report_s = every_s_;
  std::unique_lock lock(mutex_);
  while (!stop_) {
    const double deadline_s = timeout_s_ > 0 ? std::min(next_report_s, timeout_s_) : next_report_s;
    wake_.wait_for(lock, std::chrono::duration<double>(std::max(0.0, deadline_s - seconds())));
    if (stop_) break;
    const double now_s = seconds();
    // Between the plan and SimGrid's first event the engine builds SimGrid's platform and actors:
    // minutes for a thousand devices.
    const bool preparing = expected_.load() > 0 && !g_started.load();
    const std::string progress = progress_text(preparing ? phase_ + " (preparing the engine)" : phase_,
                                               g_clock_s.load(std::memory_order_relaxed),
                                               g_completed.load(std::memory_order_relaxed), expected_.load());
    if (timeout_s_ > 0 && now_s >= timeout_s_) {
      on_timeout_({{"--timeout", 0, 0},
                   "",
                   fmt::format("no result after {:g} s ({}); raise --timeout, or shrink the run "
                               "(collectives.fidelity: fluid, granularity: chunk)",
                               timeout_s_, progress)});
      return;
    }
    if (now_s < next_report_s) continue;  // woken early
    while (next_report_s <= now_s) next_report_s += every_s_;
    std::fprintf(stderr, "clearfog %s: %.0f s: %s\n", command_.c_str(), now_s, progress.c_str());
    std::fflush(stderr);
  }
}

}  // namespace clearfog::driver
