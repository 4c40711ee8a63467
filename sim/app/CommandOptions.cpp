// Options that several commands share, checked in one place.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "app/Command.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "core/Units.hpp"
#include "driver/ResourceEstimate.hpp"

namespace clearfog::app {

void check_timeout_option(double timeout_s) {
  if (!std::isfinite(timeout_s) || timeout_s < 0)
    throw ConfigError({{{"--timeout", 0, 0}, "",
                        fmt::format("must be a number of seconds >= 0 (0: no limit), got {}", timeout_s)}});
}

double parse_max_memory_option(const std::string& text) {
  try {
    const double bytes = units::parse(text, units::Dimension::Bytes);
    if (bytes > 0) return bytes;
  } catch (const units::UnitError& e) {
    throw ConfigError({{{"--max-memory", 0, 0}, "", e.what()}});
  }
  throw ConfigError({{{"--max-memory", 0, 0}, "", fmt::format("must be a data size > 0 such as 8 GB, got {}",
                                                              quote(text))}});
}

void exit_on_timeout(const Diagnostic& d) {
  std::cerr << d.str() << std::endl;
  std::_Exit(kExitBadInput);
}

void LimitOptions::add_to(CLI::App* cmd) {
  cmd->add_option("--timeout", timeout_s, "seconds the command may take before it is stopped (0: no limit)");
  cmd->add_option("--max-memory", max_memory,
                  "refuse a simulation whose estimated memory exceeds SIZE, e.g. 8 GB (default: the available "
                  "memory)");
}

double LimitOptions::checked_max_memory_B() const {
  check_timeout_option(timeout_s);
  return max_memory.empty() ? driver::available_memory_bytes().value_or(0) : parse_max_memory_option(max_memory);
}

}  // namespace clearfog::app
