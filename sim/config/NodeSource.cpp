#include "config/NodeSource.hpp"

#include "config/YamlFile.hpp"

namespace clearfog::config {

namespace {

constexpr std::string_view kOverrideFile = "--set";

}  // namespace

SourceLocation override_location() { return SourceLocation{std::string(kOverrideFile), 0, 0}; }

SourceLocation NodeSource::location(const YAML::Mark& mark, const SourceLocation& fallback) const {
  if (from_override) return override_location();
  return location_of(mark, file, fallback);
}

std::string NodeSource::display(std::string_view path) const { return display_prefix + std::string(path); }

}  // namespace clearfog::config
