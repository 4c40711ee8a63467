#include "core/Errors.hpp"

#include <fmt/format.h>

namespace clearfog {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

std::string Diagnostic::str() const {
  if (key.empty()) return fmt::format("{}: {}", location.str(), message);
  return fmt::format("{}: {}: {}", location.str(), key, message);
}

static std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += d.str();
  }
  return text;
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : Error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

ConfigError option_error(const std::string& option, const std::string& message) {
  return ConfigError({Diagnostic{SourceLocation{option, 0, 0}, "", message}});
}

}  // namespace clearfog
