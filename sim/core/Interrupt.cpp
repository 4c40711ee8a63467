#include "core/Interrupt.hpp"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace clearfog {
namespace {

std::atomic<int> g_signal{0};
struct sigaction g_previous_int, g_previous_term;

extern "C" void on_signal(int signal) { g_signal.store(signal); }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking poll or wait returns EINTR and the loop looks
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptGuard::~InterruptGuard() {
  g_signal.store(0);  // a later pool outside any guard must not see this one's signal
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
}

int interrupt_signal() noexcept { return g_signal.load(); }

void throw_if_interrupted(const std::string& doing) {
  if (const int s = interrupt_signal(); s != 0)
    throw Interrupted(s, fmt::format("interrupted by {} while {}", s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM"
                                                                                          : strsignal(s),
                                     doing));
}

void reset_interrupt_handlers() noexcept {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

}  // namespace clearfog
