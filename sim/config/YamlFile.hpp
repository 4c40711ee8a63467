#pragma once
// Reading YAML text with yaml-cpp and turning its marks into clearfog source locations. Everything a
// hostile file can do to a YAML reader is refused here, located, before any key is looked at: a path
// that is not a regular file (directory, FIFO, device), a file too large, binary bytes, several
// documents, duplicate keys, nesting too deep, aliases that expand without bound.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/Errors.hpp"

namespace clearfog::config {

/// Largest YAML file read: clearfog files are a few kB; a larger one is a mistake (a log, a binary).
inline constexpr std::uintmax_t kMaxYamlFileBytes = 4u << 20;
/// Deepest nesting of mappings and lists: clearfog files nest six levels at most.
inline constexpr int kMaxYamlDepth = 64;
/// Most values (scalars, lists, mappings) a document may hold once its aliases are expanded: bounds
/// the work of every walk over it ("billion laughs" alias bombs). The largest shipped file holds a
/// few hundred; a custom node of 64 fully meshed devices about 20,000.
inline constexpr std::size_t kMaxYamlNodes = 200'000;

/// 1-based location of a yaml-cpp mark (which is 0-based); `fallback` when the mark is unknown.
SourceLocation location_of(const YAML::Mark& mark, const std::string& file, const SourceLocation& fallback);

/// Who asked for a file: the reference key and where it is written. Problems opening the file are
/// reported there, because that is where the user has to fix them.
struct Referrer {
  SourceLocation location;
  std::string key;
};

/// Reads and parses a YAML file. On failure appends diagnostics and returns nullopt: an unreadable
/// file is reported at `referrer` (or at the file itself), everything else in the file.
std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::optional<Referrer>& referrer,
                                         std::vector<Diagnostic>& diagnostics);

/// The bytes of a regular file of at most kMaxYamlFileBytes; nullopt with one diagnostic otherwise
/// (reported at `referrer` when given). Never blocks on a FIFO or reads a device.
std::optional<std::string> read_text_file(const std::filesystem::path& file, const std::optional<Referrer>& referrer,
                                          std::vector<Diagnostic>& diagnostics);

/// Parses YAML text known as `name` (the file name in locations). An empty text is a null node.
std::optional<YAML::Node> parse_yaml_text(const std::string& text, const std::string& name,
                                          std::vector<Diagnostic>& diagnostics);

}  // namespace clearfog::config
