#include "runfile/RunFileReader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "config/DidYouMean.hpp"
#include "config/YamlFile.hpp"
#include "core/Quote.hpp"

namespace clearfog::runfile {

SourceLocation RunFileReader::where(const YAML::Node& n) const {
  return config::location_of(n.Mark(), name_, SourceLocation{name_, 1, 1});
}

void RunFileReader::error(const YAML::Node& n, std::string key, std::string message) {
  errors_.push_back({where(n), std::move(key), std::move(message)});
}

void RunFileReader::check_keys(const YAML::Node& map, std::span<const FileKey> keys, const std::string& kind,
                               const std::string& what) {
  const auto known = key_names(keys);
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) {
      error(kv.first, "", fmt::format("keys must be plain names; known: {}", fmt::join(known, ", ")));
      continue;
    }
    const auto& k = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    std::string message = fmt::format("unknown key; known: {}", fmt::join(known, ", "));
    if (auto close = config::closest_match(k, known)) message = fmt::format("unknown key; did you mean \"{}\"?", *close);
    error(kv.first, shorten(k), message);
  }
  if (kind.empty()) return;
  if (!map["kind"])
    error(map, "kind", fmt::format("missing required key \"kind\"; {} starts with \"kind: {}\"", what, kind));
  else if (!map["kind"].IsScalar() || map["kind"].Scalar() != kind)
    error(map["kind"], "kind", "must be " + kind);
  for (const char* key : {"name", "description"})
    if (map[key] && !map[key].IsScalar()) error(map[key], key, "must be a string");
}

std::optional<std::filesystem::path> RunFileReader::existing_path(const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar() || n.Scalar().empty()) {
    error(n, key, "must be a file path");
    return std::nullopt;
  }
  auto p = (dir_ / n.Scalar()).lexically_normal();
  std::error_code ec;
  const auto status = std::filesystem::status(p, ec);
  if (!std::filesystem::exists(status)) {
    error(n, key, fmt::format("no such file: {}", p.string()));
    return std::nullopt;
  }
  if (!std::filesystem::is_regular_file(status)) {
    error(n, key, fmt::format("{} is not a regular file", p.string()));
    return std::nullopt;
  }
  return p;
}

std::optional<int> RunFileReader::positive(const YAML::Node& n, const std::string& key, std::int64_t max) {
  const std::string text = n.IsScalar() ? n.Scalar() : "";
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (!n.IsScalar() || ec != std::errc{} || end != text.data() + text.size() || v < 1) {
    error(n, key, fmt::format("must be an integer >= 1, got {}", quote(n.IsScalar() ? text : "a collection")));
    return std::nullopt;
  }
  if (v > max) {
    error(n, key, fmt::format("must be at most {}, got {}", max, quote(text)));
    return std::nullopt;
  }
  return static_cast<int>(v);
}

void RunFileReader::finish() {
  if (errors_.empty()) return;
  std::stable_sort(errors_.begin(), errors_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair(a.location.line, a.location.column) < std::pair(b.location.line, b.location.column);
  });
  throw ConfigError(std::move(errors_));
}

YAML::Node read_run_file(const std::filesystem::path& file, const std::string& kind, const std::string& what) {
  const std::string name = file.string();
  std::vector<Diagnostic> problems;
  auto parsed = config::read_yaml_file(file, std::nullopt, problems);
  if (!parsed) throw ConfigError(std::move(problems));
  if (!parsed->IsMap())
    throw ConfigError({{config::location_of(parsed->Mark(), name, SourceLocation{name, 1, 1}), "",
                        fmt::format("{} is a mapping that starts with \"kind: {}\"", what, kind)}});
  return *parsed;
}

}  // namespace clearfog::runfile
