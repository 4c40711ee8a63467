#pragma once
// What the readers of clearfog's run files (`kind: compare`, `kind: cluster`) share: located
// errors, the check of the top-level keys and `kind:`, file paths relative to the file, counts.
// Each reader collects every problem and throws them together (finish()).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/Errors.hpp"
#include "runfile/FileKeys.hpp"

namespace clearfog::runfile {

class RunFileReader {
public:
  RunFileReader(const YAML::Node& root, std::string name, std::filesystem::path dir)
      : root_(root), name_(std::move(name)), dir_(std::move(dir)) {}

protected:
  [[nodiscard]] SourceLocation where(const YAML::Node& n) const;
  void error(const YAML::Node& n, std::string key, std::string message);
  /// Known keys only (a close match suggested), `kind: <kind>`, and a name and description that are strings.
  /// `what` names the file in messages ("a comparison file").
  void check_keys(const YAML::Node& map, std::span<const FileKey> keys, const std::string& kind,
                  const std::string& what);
  /// A path relative to the file that must be a regular file, located at its node if not.
  std::optional<std::filesystem::path> existing_path(const YAML::Node& n, const std::string& key);
  /// An integer >= 1 and at most `max`.
  std::optional<int> positive(const YAML::Node& n, const std::string& key, std::int64_t max);
  /// Throws the problems found, sorted by place, if there are any.
  void finish();

  const YAML::Node& root_;
  std::string name_;
  std::filesystem::path dir_;
  std::vector<Diagnostic> errors_;
};

/// Reads `file` as a YAML mapping for a run file of `kind`; throws ConfigError if it is not one.
YAML::Node read_run_file(const std::filesystem::path& file, const std::string& kind, const std::string& what);

}  // namespace clearfog::runfile
