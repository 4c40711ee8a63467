#include "sweep/SweepSpec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>

#include "config/DidYouMean.hpp"
#include "config/YamlFile.hpp"
#include "core/CheckedMath.hpp"
#include "core/Quote.hpp"
#include "runfile/FileKeys.hpp"

namespace clearfog::sweep {
namespace {

/// Memory a sweep keeps per point: its overrides (~0.5 kB: a 100,000-point grid adds 45 MB to the
/// sweep's peak RSS) and, once it has run, its record (~14 kB: `clearfog merge` of 20,000 points
/// peaks at 314 MB); docs/reliability.md.
constexpr double kBytesPerPoint = 15e3;

bool looks_like_path(const std::string& s) { return s.ends_with(".yaml") || s.ends_with(".yml"); }

}  // namespace

std::string override_value(const YAML::Node& n, const std::filesystem::path& dir) {
  if (n.IsScalar()) {
    const std::string s = n.Scalar();
    if (looks_like_path(s) && std::filesystem::path(s).is_relative()) return (dir / s).lexically_normal().string();
    return s;
  }
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

namespace {

std::string label(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  if (n.IsNull()) return "";
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

/// Reads one sweep file into a SweepSpec, collecting every problem.
class SweepReader {
public:
  explicit SweepReader(const std::filesystem::path& file)
      : file_(file), name_(file.string()), dir_(std::filesystem::absolute(file).parent_path()) {}

  SweepSpec read() {
    std::vector<Diagnostic> problems;
    const auto root = config::read_yaml_file(file_, std::nullopt, problems);
    if (!root) throw ConfigError(std::move(problems));
    if (!root->IsMap())
      throw ConfigError({{where(*root), "", "a sweep file is a mapping that starts with \"kind: sweep\""}});
    spec_.file = file_;
    check_keys(*root);
    read_kind((*root)["kind"], *root);
    read_name((*root)["name"]);
    read_base((*root)["base"], *root);
    read_combine((*root)["combine"]);
    read_axes((*root)["axes"], *root);
    read_set((*root)["set"]);
    read_filter((*root)["filter"]);
    if (const YAML::Node budget = (*root)["budget"]) {
      std::vector<std::string> keys;
      for (const auto& a : spec_.axes) keys.push_back(a.key);
      for (const auto& o : spec_.fixed) keys.push_back(o.key);
      spec_.budget = read_sweep_budget(budget, keys, name_, errors_);
    }
    if (errors_.empty()) check_point_count();
    if (!errors_.empty()) {
      std::stable_sort(errors_.begin(), errors_.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::pair(a.location.line, a.location.column) < std::pair(b.location.line, b.location.column);
      });
      throw ConfigError(std::move(errors_));
    }
    return std::move(spec_);
  }

private:
  SourceLocation where(const YAML::Node& n) const {
    return config::location_of(n.Mark(), name_, SourceLocation{name_, 1, 1});
  }
  void error(const YAML::Node& n, std::string key, std::string message) {
    errors_.push_back({where(n), std::move(key), std::move(message)});
  }

  void check_keys(const YAML::Node& root) {
    const auto known = runfile::key_names(runfile::sweep_file_keys());
    for (const auto& kv : root) {
      if (!kv.first.IsScalar()) {
        error(kv.first, "", fmt::format("keys must be plain names; known: {}", fmt::join(known, ", ")));
        continue;
      }
      const std::string& key = kv.first.Scalar();
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string message = fmt::format("unknown key; known: {}", fmt::join(known, ", "));
      if (auto close = config::closest_match(key, known)) message = fmt::format("unknown key; did you mean \"{}\"?", *close);
      error(kv.first, shorten(key), message);
    }
  }

  void read_kind(const YAML::Node& kind, const YAML::Node& root) {
    if (!kind) error(root, "kind", "missing required key \"kind\"; a sweep file starts with \"kind: sweep\"");
    else if (!kind.IsScalar() || kind.Scalar() != "sweep")
      error(kind, "kind", fmt::format("must be \"sweep\", got {}", quote(label(kind))));
  }

  void read_name(const YAML::Node& name) {
    if (name && !name.IsScalar()) error(name, "name", "must be a name (a string)");
    spec_.name = name && name.IsScalar() ? name.Scalar() : file_.stem().string();
  }

  void read_base(const YAML::Node& base, const YAML::Node& root) {
    if (!base) {
      error(root, "base", "missing required key \"base\": the path of the base scenario");
      return;
    }
    if (!base.IsScalar() || base.Scalar().empty()) {
      error(base, "base", "must be the path of the base scenario");
      return;
    }
    spec_.base = (dir_ / base.Scalar()).lexically_normal();
    std::error_code ec;
    const auto status = std::filesystem::status(spec_.base, ec);
    if (!std::filesystem::exists(status))
      error(base, "base", fmt::format("no such file: {}", spec_.base.string()));
    else if (!std::filesystem::is_regular_file(status))
      error(base, "base", fmt::format("{} is not a regular file", spec_.base.string()));
  }

  void read_combine(const YAML::Node& c) {
    if (!c) return;
    if (c.IsScalar() && (c.Scalar() == "grid" || c.Scalar() == "zip"))
      spec_.zip = c.Scalar() == "zip";
    else
      error(c, "combine", fmt::format("must be grid or zip, got {}", quote(label(c))));
  }

  void read_axes(const YAML::Node& axes, const YAML::Node& root) {
    if (!axes || !axes.IsMap() || axes.size() == 0) {
      error(axes ? axes : root, "axes", "must be a mapping of key: [values], e.g. parallelism.dp: [1, 2, 4]");
      return;
    }
    for (const auto& kv : axes) {
      if (!kv.first.IsScalar()) {
        error(kv.first, "axes", "keys must be scenario key paths such as parallelism.dp");
        continue;
      }
      Axis a;
      a.key = kv.first.Scalar();
      a.location = where(kv.first);
      const std::string key = "axes." + shorten(a.key);
      if (!kv.second.IsSequence() || kv.second.size() == 0) {
        error(kv.second ? kv.second : kv.first, key, "must be a non-empty list of values");
        continue;
      }
      for (const auto& v : kv.second) {
        a.labels.push_back(label(v));
        a.values.push_back(override_value(v, dir_));
        a.value_locations.push_back(where(v));
      }
      if (spec_.zip && !spec_.axes.empty() && a.values.size() != spec_.axes.front().values.size())
        error(kv.second, key,
              fmt::format("combine: zip needs axes of equal length: {} has {} values, {} has {}", shorten(a.key),
                          a.values.size(), shorten(spec_.axes.front().key), spec_.axes.front().values.size()));
      spec_.axes.push_back(std::move(a));
    }
  }

  void read_set(const YAML::Node& set) {
    if (!set) return;
    if (!set.IsMap()) {
      error(set, "set", "must be a mapping of key: value");
      return;
    }
    for (const auto& kv : set) {
      if (!kv.first.IsScalar()) {
        error(kv.first, "set", "keys must be scenario key paths such as training.micro_batch");
        continue;
      }
      spec_.fixed.push_back({kv.first.Scalar(), override_value(kv.second, dir_)});
      spec_.fixed_locations.push_back(where(kv.second ? kv.second : kv.first));
    }
  }

  void read_filter(const YAML::Node& f) {
    if (!f) return;
    std::vector<YAML::Node> names;
    if (f.IsSequence())
      for (const auto& n : f) names.push_back(n);
    else
      names.push_back(f);
    for (const auto& n : names) {
      if (n.IsScalar() && n.Scalar() == "devices_match")
        spec_.filters.push_back(SweepFilter::DevicesMatch);
      else
        error(n, "filter", fmt::format("unknown filter {}; known: devices_match", quote(label(n))));
    }
  }

  /// A grid multiplies its axes: refuse one beyond kMaxSweepPoints before anything is allocated.
  void check_point_count() {
    std::optional<std::int64_t> count = spec_.zip ? static_cast<std::int64_t>(spec_.axes.front().values.size()) : 1;
    std::vector<std::string> factors;
    for (const Axis& a : spec_.axes) {
      factors.push_back(std::to_string(a.values.size()));
      if (!spec_.zip && count) count = checked_mul(*count, static_cast<std::int64_t>(a.values.size()));
    }
    if (count && *count <= static_cast<std::int64_t>(kMaxSweepPoints)) return;
    const double points = count ? static_cast<double>(*count) : 9.2e18;
    errors_.push_back({spec_.axes.front().location, "axes",
                       fmt::format("the {} has {} = {} points, too many: at most {}; this machine would need ~{:.3g} "
                                   "GB for them (~{:.0f} kB per point: its overrides and its record) "
                                   "and far longer than a day to run them",
                                   spec_.zip ? "zip" : "grid", fmt::join(factors, " x "),
                                   count ? std::to_string(*count) : "more than 2^63", kMaxSweepPoints,
                                   points * kBytesPerPoint / 1e9, kBytesPerPoint / 1e3)});
  }

  std::filesystem::path file_;
  std::string name_;
  std::filesystem::path dir_;
  SweepSpec spec_;
  std::vector<Diagnostic> errors_;
};

/// FNV-1a over the fields that decide the points, each followed by a separator byte.
class Fingerprint {
public:
  void add(std::string_view text) {
    for (char c : text) mix(static_cast<unsigned char>(c));
    mix(0);
  }
  [[nodiscard]] std::string hex() const { return fmt::format("{:016x}", hash_); }

private:
  void mix(unsigned char byte) {
    hash_ ^= byte;
    hash_ *= 0x100000001b3ULL;
  }
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

bool SweepSpec::has_filter(SweepFilter f) const {
  return std::find(filters.begin(), filters.end(), f) != filters.end();
}

std::size_t SweepSpec::point_count() const {
  if (axes.empty()) return 0;
  std::size_t count = zip ? axes.front().values.size() : 1;
  if (!zip)
    for (const auto& a : axes) count *= a.values.size();  // load_sweep checked it against kMaxSweepPoints
  return count;
}

std::vector<SweepPoint> SweepSpec::points() const {
  std::vector<SweepPoint> out;
  const std::size_t count = point_count();
  out.reserve(count);
  for (std::size_t id = 0; id < count; ++id) {
    SweepPoint p;
    p.id = static_cast<int>(id);
    p.overrides = fixed;
    // Grid: mixed-radix digits of id, the last axis varying fastest.
    std::vector<std::size_t> index(axes.size(), id);
    if (!zip) {
      std::size_t rest = id;
      for (std::size_t a = axes.size(); a-- > 0;) {
        index[a] = rest % axes[a].values.size();
        rest /= axes[a].values.size();
      }
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      p.overrides.push_back({axes[a].key, axes[a].values[index[a]]});
      p.axes.emplace_back(axes[a].key, axes[a].labels[index[a]]);
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string SweepSpec::fingerprint() const {
  Fingerprint f;
  f.add(base.string());
  f.add(zip ? "zip" : "grid");
  for (const auto& o : fixed) {
    f.add(o.key);
    f.add(o.value);
  }
  for (const auto& a : axes) {
    f.add(a.key);
    for (const auto& v : a.values) f.add(v);
  }
  for (SweepFilter filter : filters) f.add(filter == SweepFilter::DevicesMatch ? "devices_match" : "?");
  if (budget) {
    f.add(fmt::format("budget {} {} {}", budget->name, budget->max, budget->base));
    for (const auto& t : budget->terms) f.add(fmt::format("{} {} {}", t.key, t.cost, t.per));
  }
  return f.hex();
}

SweepSpec load_sweep(const std::filesystem::path& file) { return SweepReader(file).read(); }

}  // namespace clearfog::sweep
