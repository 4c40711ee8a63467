#include "sweep/Plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "core/Errors.hpp"
#include "report/SweepPlot.hpp"

namespace clearfog::sweep {
namespace {

std::optional<double> as_number(const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

/// Axis values that are file paths are shown by their stem ("dgx-a100").
std::string short_label(const std::string& v) {
  if (v.ends_with(".yaml") || v.ends_with(".yml")) return std::filesystem::path(v).stem().string();
  return v;
}

std::optional<double> lookup(const nlohmann::ordered_json& summary, const std::string& key) {
  for (const auto& [k, v] : flatten(summary))
    if (k == key) return as_number(v);
  return std::nullopt;
}

}  // namespace

std::string metric_key(const std::string& metric) {
  if (metric == "throughput") return "samples_per_s";
  if (metric == "step_time") return "step_time_s";
  return metric;
}

std::string sweep_plot_svg(const std::map<int, PointRecord>& points, const std::string& metric, const std::string& axis,
                           const std::string& sweep_name) {
  const std::string key = metric_key(metric);
  std::vector<std::string> xs;        // axis values, as written
  std::vector<std::string> series_names;
  std::map<std::pair<std::string, std::string>, double> values;  // (series, x) -> y
  bool axis_found = false;
  for (const auto& [id, p] : points) {
    if (!p.contains("axes") || !p.at("axes").contains(axis)) continue;
    axis_found = true;
    const auto x = p.at("axes").at(axis).get<std::string>();
    if (std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
    std::string series;
    for (const auto& [k, v] : p.at("axes").items())
      if (k != axis) series += fmt::format("{}{}={}", series.empty() ? "" : ", ", k, short_label(v.get<std::string>()));
    if (std::find(series_names.begin(), series_names.end(), series) == series_names.end()) series_names.push_back(series);
    const auto status = p.value("status", "");
    if ((status == "ok" || status == "oom") && p.contains("summary"))
      if (const auto y = lookup(p.at("summary"), key)) values[{series, x}] = *y;
  }
  if (!axis_found)
    throw ConfigError({{{"--plot", 0, 0}, "", fmt::format("no point has an axis \"{}\"", axis)}});
  // Numeric axes in increasing order; others as they first appear.
  if (std::all_of(xs.begin(), xs.end(), [](const auto& s) { return as_number(s).has_value(); }))
    std::stable_sort(xs.begin(), xs.end(), [](const auto& a, const auto& b) { return *as_number(a) < *as_number(b); });
  std::vector<report::PlotSeries> series;
  for (const auto& name : series_names) {
    report::PlotSeries s{name, {}};
    for (const auto& x : xs) {
      const auto it = values.find({name, x});
      s.y.push_back(it == values.end() ? std::nullopt : std::optional(it->second));
    }
    series.push_back(std::move(s));
  }
  std::vector<std::string> labels;
  for (const auto& x : xs) labels.push_back(short_label(x));
  return report::line_plot_svg(fmt::format("{}: {} against {}", sweep_name, metric, axis), axis, key, labels, series);
}

}  // namespace clearfog::sweep
