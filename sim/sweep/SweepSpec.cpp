#include "sweep/SweepSpec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "config/DidYouMean.hpp"
#include "core/Errors.hpp"

namespace clearfog::sweep {
namespace {

const std::vector<std::string> kTopKeys = {"kind", "name", "description", "base", "combine", "axes", "set", "filter"};

Diagnostic at(const std::filesystem::path& file, const YAML::Node& n, std::string key, std::string message) {
  Diagnostic d;
  d.location.file = file.string();
  if (n.IsDefined()) {
    d.location.line = n.Mark().line + 1;
    d.location.column = n.Mark().column + 1;
  }
  d.key = std::move(key);
  d.message = std::move(message);
  return d;
}

bool looks_like_path(const std::string& s) {
  return s.ends_with(".yaml") || s.ends_with(".yml");
}

/// An axis or `set` value as override text: scalars as written (YAML file paths made absolute,
/// since --set paths are relative to the working directory), lists and mappings in flow style.
std::string override_value(const YAML::Node& n, const std::filesystem::path& dir) {
  if (n.IsScalar()) {
    const std::string s = n.Scalar();
    if (looks_like_path(s) && std::filesystem::path(s).is_relative())
      return (dir / s).lexically_normal().string();
    return s;
  }
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

std::string label(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

}  // namespace

bool SweepSpec::has_filter(SweepFilter f) const {
  return std::find(filters.begin(), filters.end(), f) != filters.end();
}

std::vector<SweepPoint> SweepSpec::points() const {
  std::vector<SweepPoint> out;
  if (axes.empty()) return out;
  std::size_t count = zip ? axes.front().values.size() : 1;
  if (!zip)
    for (const auto& a : axes) count *= a.values.size();
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

SweepSpec load_sweep(const std::filesystem::path& file) {
  std::vector<Diagnostic> errors;
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    throw ConfigError({{{file.string(), 0, 0}, "", "cannot open the file"}});
  } catch (const YAML::ParserException& e) {
    throw ConfigError({{{file.string(), e.mark.line + 1, e.mark.column + 1}, "", "malformed YAML: " + e.msg}});
  }
  if (!root.IsMap()) throw ConfigError({at(file, root, "", "a sweep file is a mapping of keys")});

  SweepSpec spec;
  spec.file = file;
  const auto dir = std::filesystem::absolute(file).parent_path();
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end()) {
      std::string message = fmt::format("unknown key; known: {}", fmt::join(kTopKeys, ", "));
      if (auto close = config::closest_match(key, kTopKeys)) message = fmt::format("unknown key; did you mean \"{}\"?", *close);
      errors.push_back(at(file, kv.first, key, message));
    }
  }
  if (!root["kind"] || !root["kind"].IsScalar() || root["kind"].Scalar() != "sweep")
    errors.push_back(at(file, root["kind"], "kind", "must be \"sweep\""));
  spec.name = root["name"] && root["name"].IsScalar() ? root["name"].Scalar() : file.stem().string();
  if (!root["base"] || !root["base"].IsScalar()) {
    errors.push_back(at(file, root, "base", "missing: the path of the base scenario"));
  } else {
    spec.base = (dir / root["base"].Scalar()).lexically_normal();
    if (!std::filesystem::exists(spec.base))
      errors.push_back(at(file, root["base"], "base", fmt::format("no such file: {}", spec.base.string())));
  }
  if (const auto c = root["combine"]) {
    if (c.IsScalar() && (c.Scalar() == "grid" || c.Scalar() == "zip"))
      spec.zip = c.Scalar() == "zip";
    else
      errors.push_back(at(file, c, "combine", fmt::format("must be grid or zip, got \"{}\"", label(c))));
  }
  const auto axes = root["axes"];
  if (!axes || !axes.IsMap() || axes.size() == 0) {
    errors.push_back(at(file, axes.IsDefined() ? axes : root, "axes",
                        "must be a mapping of key: [values], e.g. parallelism.dp: [1, 2, 4]"));
  } else {
    for (const auto& kv : axes) {
      Axis a;
      a.key = kv.first.as<std::string>();
      if (!kv.second.IsSequence() || kv.second.size() == 0) {
        errors.push_back(at(file, kv.second, "axes." + a.key, "must be a non-empty list of values"));
        continue;
      }
      for (const auto& v : kv.second) {
        a.labels.push_back(label(v));
        a.values.push_back(override_value(v, dir));
      }
      if (spec.zip && !spec.axes.empty() && a.values.size() != spec.axes.front().values.size())
        errors.push_back(at(file, kv.second, "axes." + a.key,
                            fmt::format("combine: zip needs axes of equal length: {} has {} values, {} has {}", a.key,
                                        a.values.size(), spec.axes.front().key, spec.axes.front().values.size())));
      spec.axes.push_back(std::move(a));
    }
  }
  if (const auto set = root["set"]) {
    if (!set.IsMap())
      errors.push_back(at(file, set, "set", "must be a mapping of key: value"));
    else
      for (const auto& kv : set) spec.fixed.push_back({kv.first.as<std::string>(), override_value(kv.second, dir)});
  }
  if (const auto f = root["filter"]) {
    std::vector<YAML::Node> names;
    if (f.IsSequence())
      for (const auto& n : f) names.push_back(n);
    else
      names.push_back(f);
    for (const auto& n : names) {
      if (n.IsScalar() && n.Scalar() == "devices_match")
        spec.filters.push_back(SweepFilter::DevicesMatch);
      else
        errors.push_back(at(file, n, "filter", fmt::format("unknown filter \"{}\"; known: devices_match", label(n))));
    }
  }
  if (!errors.empty()) throw ConfigError(std::move(errors));
  return spec;
}

}  // namespace clearfog::sweep
