#pragma once
// SIGINT and SIGTERM as a flag that long commands (compare, sweep, shard) check between
// simulations: they stop their children, keep what is finished and unwind, so that temp
// directories are removed by their owners and partial results are reported instead of lost.
#include <string>

#include "core/Errors.hpp"

namespace clearfog {

/// A command stopped by SIGINT or SIGTERM; app/main.cpp exits with 128 + signal.
class Interrupted : public Error {
public:
  Interrupted(int signal, const std::string& what) : Error(what), signal_(signal) {}
  [[nodiscard]] int signal() const noexcept { return signal_; }

private:
  int signal_;
};

/// Catches SIGINT and SIGTERM for its lifetime (the previous dispositions come back after it).
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

/// The signal caught since the guard was installed, 0 if none.
int interrupt_signal() noexcept;

/// Throws Interrupted ("interrupted by SIGINT while `doing`") if a signal was caught.
void throw_if_interrupted(const std::string& doing);

/// In a forked child: the default dispositions back, so that the child dies of the signal.
void reset_interrupt_handlers() noexcept;

}  // namespace clearfog
