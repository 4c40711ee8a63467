// Options that several commands share, checked in one place.
#include <fmt/format.h>

#include <cmath>

#include "app/Command.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "core/Units.hpp"

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

}  // namespace clearfog::app
