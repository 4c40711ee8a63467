#pragma once
// Reading YAML text with yaml-cpp and turning its marks into clearfog source locations.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/Errors.hpp"

namespace clearfog::config {

/// 1-based location of a yaml-cpp mark (which is 0-based); `fallback` when the mark is unknown.
SourceLocation location_of(const YAML::Mark& mark, const std::string& file, const SourceLocation& fallback);

/// Who asked for a file: the reference key and where it is written. Problems opening the file are
/// reported there, because that is where the user has to fix them.
struct Referrer {
  SourceLocation location;
  std::string key;
};

/// Reads and parses a YAML file. On failure appends one diagnostic and returns nullopt: an
/// unreadable file is reported at `referrer` (or at the file itself), malformed YAML at the
/// parser's mark.
std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::optional<Referrer>& referrer,
                                         std::vector<Diagnostic>& diagnostics);

}  // namespace clearfog::config
