#include "sweep/CompareFile.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <optional>
#include <utility>

#include "config/DidYouMean.hpp"
#include "config/ScaleLimits.hpp"
#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "sweep/FileKeys.hpp"
#include "sweep/SweepSpec.hpp"

namespace clearfog::sweep {

namespace {

/// Reads one comparison file into a CompareRequest in named phases, collecting every problem.
class CompareReader {
public:
  CompareReader(const YAML::Node& root, std::string name, std::filesystem::path dir)
      : root_(root), name_(std::move(name)), dir_(std::move(dir)) {}

  CompareRequest read() {
    check_keys();
    read_files();
    req_.devices = positive("devices", config::kMaxNodeDevices);
    req_.global_batch = positive("global_batch", INT_MAX);
    req_.micro_batch = positive("micro_batch", INT_MAX);
    read_headroom();
    read_set();
    read_search();
    if (!errors_.empty()) {
      std::stable_sort(errors_.begin(), errors_.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::pair(a.location.line, a.location.column) < std::pair(b.location.line, b.location.column);
      });
      throw ConfigError(std::move(errors_));
    }
    return req_;
  }

private:
  SourceLocation where(const YAML::Node& n) const {
    return config::location_of(n.Mark(), name_, SourceLocation{name_, 1, 1});
  }
  void error(const YAML::Node& n, std::string key, std::string message) {
    errors_.push_back({where(n), std::move(key), std::move(message)});
  }

  /// Known keys only, `kind: compare`, and a name and description that are strings.
  void check_keys() {
    const auto known = key_names(compare_file_keys());
    for (const auto& kv : root_) {
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
    if (!root_["kind"])
      error(root_, "kind", "missing required key \"kind\"; a comparison file starts with \"kind: compare\"");
    else if (!root_["kind"].IsScalar() || root_["kind"].Scalar() != "compare")
      error(root_["kind"], "kind", "must be compare");
    for (const char* key : {"name", "description"})
      if (root_[key] && !root_[key].IsScalar()) error(root_[key], key, "must be a string");
  }

  /// A path relative to the file that must be a regular file, located at its node if not.
  std::optional<std::filesystem::path> existing_path(const YAML::Node& n, const std::string& key) {
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

  void read_files() {
    if (!root_["workload"])
      error(root_, "workload", "missing: the workload file");
    else if (auto p = existing_path(root_["workload"], "workload"))
      req_.workload = *p;
    const YAML::Node platforms = root_["platforms"];
    if (!platforms || !platforms.IsSequence() || platforms.size() == 0) {
      error(platforms ? platforms : root_, "platforms", "missing: a non-empty list of platform files");
      return;
    }
    for (const auto& n : platforms)
      if (auto p = existing_path(n, "platforms")) req_.platforms.push_back(*p);
  }

  /// A count >= 1 and at most `max` (devices replaces node.devices: what one node may hold).
  std::optional<int> positive(const char* key, std::int64_t max) {
    const YAML::Node n = root_[key];
    if (!n) return std::nullopt;
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

  void read_headroom() {
    const YAML::Node n = root_["memory_headroom"];
    if (!n) return;
    double v = -1;
    const std::string text = n.IsScalar() ? n.Scalar() : "";
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!n.IsScalar() || ec != std::errc{} || end != text.data() + text.size() || !(v >= 0 && v < 1))
      error(n, "memory_headroom",
            fmt::format("must be a number in [0, 1) (the share of device memory kept free), got {}",
                        quote(n.IsScalar() ? text : "a collection")));
    else
      req_.memory_headroom = v;
  }

  void read_set() {
    const YAML::Node set = root_["set"];
    if (!set) return;
    if (!set.IsMap()) {
      error(set, "set", "must be a mapping of scenario key: value, as for run --set");
      return;
    }
    for (const auto& kv : set) {
      if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
        error(kv.first, "set", "keys must be scenario key paths such as training.optimizer");
        continue;
      }
      req_.set.push_back({kv.first.Scalar(), override_value(kv.second, dir_)});
      req_.set_locations.push_back(where(kv.second ? kv.second : kv.first));
    }
  }

  void read_search() {
    const YAML::Node search = root_["search"];
    if (!search) return;
    if (!search.IsMap()) {
      error(search, "search",
            fmt::format("must be a mapping of knob: [values]; knobs: {}", fmt::join(search_knob_names(), ", ")));
      return;
    }
    for (const auto& kv : search) read_knob(kv.first, kv.second);
  }

  /// One `knob: value` or `knob: [values]` of the search section.
  void read_knob(const YAML::Node& key, const YAML::Node& value) {
    const std::string knob = key.IsScalar() ? key.Scalar() : "";
    std::vector<std::string> values;
    bool scalars = true;
    if (value.IsSequence()) {
      for (const auto& v : value) {
        if (v.IsScalar()) values.push_back(v.Scalar());
        else scalars = false;
      }
    } else if (value.IsScalar()) {
      values.push_back(value.Scalar());
    } else {
      scalars = false;
    }
    std::string problem = scalars ? req_.search.restrict(knob, values) : "must be a value or a list of values";
    if (problem.starts_with("unknown knob")) {
      if (auto close = config::closest_match(knob, search_knob_names()))
        problem = fmt::format("unknown knob; did you mean \"{}\"?", *close);
      error(key, "search." + shorten(knob), problem);
    } else if (!problem.empty()) {
      error(value ? value : key, "search." + knob, problem);
    }
  }

  const YAML::Node& root_;
  std::string name_;
  std::filesystem::path dir_;
  CompareRequest req_;
  std::vector<Diagnostic> errors_;
};

}  // namespace

CompareRequest load_compare_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::vector<Diagnostic> problems;
  const auto parsed = config::read_yaml_file(file, std::nullopt, problems);
  if (!parsed) throw ConfigError(std::move(problems));
  const YAML::Node& root = *parsed;
  if (!root.IsMap())
    throw ConfigError({{config::location_of(root.Mark(), name, SourceLocation{name, 1, 1}), "",
                        "a comparison file is a mapping that starts with \"kind: compare\""}});
  return CompareReader(root, name, std::filesystem::absolute(file).parent_path()).read();
}

}  // namespace clearfog::sweep
