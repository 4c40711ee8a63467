#include "sweep/Plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>

#include "config/DidYouMean.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "report/Summary.hpp"
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

void numeric_leaves(const nlohmann::ordered_json& j, const std::string& prefix, std::vector<std::string>& out) {
  if (j.is_object())
    for (const auto& [k, v] : j.items()) numeric_leaves(v, prefix.empty() ? k : prefix + "." + k, out);
  else if (j.is_number())
    out.push_back(prefix);
}

/// The other axes whose value the plotted axis decides (each of its values comes with one value of
/// theirs: zipped axes, one-value axes). They move along the line, so they do not split it.
std::set<std::string> followers(const std::map<int, PointRecord>& points, const std::string& axis) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> seen;  // key -> x -> its values
  for (const auto& [id, p] : points) {
    const auto& axes = p.at("axes");
    if (!axes.contains(axis)) continue;
    for (const auto& [k, v] : axes.items()) seen[k][axes.at(axis).get<std::string>()].insert(v.get<std::string>());
  }
  std::set<std::string> out;
  for (const auto& [k, by_x] : seen)
    if (std::all_of(by_x.begin(), by_x.end(), [](const auto& xv) { return xv.second.size() == 1; })) out.insert(k);
  return out;
}

/// A point's line: the values of the other axes that do not follow the plotted one.
std::string series_name(const PointRecord& p, const std::set<std::string>& skipped) {
  std::string name;
  for (const auto& [k, v] : p.at("axes").items())
    if (!skipped.count(k)) name += fmt::format("{}{}={}", name.empty() ? "" : ", ", k, short_label(v.get<std::string>()));
  return name;
}

/// How a metric is drawn: its values times `scale`, the axis named with `unit`, so that a memory in
/// bytes reads "GB" and a short step time "ms" instead of 1e+11 and 0.00012.
struct PlotUnit {
  double scale = 1;
  std::string unit;  // empty: a plain number
};

PlotUnit plot_unit(const std::string& key, double largest) {
  if (key.ends_with("_Bps")) return {1e-9, "GB/s"};
  if (key.ends_with("_B") || key.ends_with("_bytes")) return largest >= 1e9 ? PlotUnit{1e-9, "GB"} : PlotUnit{1e-6, "MB"};
  if (key.ends_with("_s")) return largest >= 1 ? PlotUnit{1, "s"} : PlotUnit{1e3, "ms"};
  if (key == "mfu" || key.ends_with("_fraction") || key.ends_with("_share")) return {100, "%"};
  return {};
}

}  // namespace

std::string metric_key(const std::string& metric) {
  if (metric == "throughput") return "samples_per_s";
  if (metric == "step_time") return "step_time_s";
  return metric;
}

std::vector<std::string> plot_metrics() {
  std::vector<std::string> out = {"throughput", "mfu", "step_time"};
  // The keys are those of every summary, whatever its values: read them off an empty one.
  std::vector<std::string> keys;
  numeric_leaves(report::summary_json(config::ScenarioSpec{}, report::StepMetrics{}), "", keys);
  for (const auto& k : keys)
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  return out;
}

void check_plot_metric(const std::string& metric) {
  const auto allowed = plot_metrics();
  if (std::find(allowed.begin(), allowed.end(), metric) != allowed.end()) return;
  std::string message = fmt::format("unknown metric {}; ", quote(metric));
  if (const auto close = config::closest_match(metric, allowed)) message += fmt::format("did you mean \"{}\"? ", *close);
  throw ConfigError({{{"--plot", 0, 0}, "", message + fmt::format("allowed: {}", fmt::join(allowed, ", "))}});
}

std::string sweep_plot_svg(const std::map<int, PointRecord>& points, const std::string& metric, const std::string& axis,
                           const std::string& sweep_name) {
  const std::string key = metric_key(metric);
  std::vector<std::string> xs;        // axis values, as written
  std::vector<std::string> series_names;
  std::map<std::pair<std::string, std::string>, double> values;  // (series, x) -> y
  std::set<std::pair<std::string, std::string>> oom;             // (series, x) of points that do not fit
  bool axis_found = false;
  const auto skipped = followers(points, axis);  // the plotted axis among them
  for (const auto& [id, p] : points) {
    if (!p.at("axes").contains(axis)) continue;
    axis_found = true;
    const auto x = p.at("axes").at(axis).get<std::string>();
    if (std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
    const std::string series = series_name(p, skipped);
    if (std::find(series_names.begin(), series_names.end(), series) == series_names.end()) series_names.push_back(series);
    const auto status = p.value("status", "");
    if ((status == "ok" || status == "oom") && p.contains("summary"))
      if (const auto y = lookup(p.at("summary"), key)) values[{series, x}] = *y;
    if (status == "oom") oom.insert({series, x});
  }
  if (!axis_found)
    throw ConfigError({{{"--plot", 0, 0}, "", fmt::format("no point has an axis \"{}\"", axis)}});
  // Numeric axes in increasing order; others as they first appear.
  if (std::all_of(xs.begin(), xs.end(), [](const auto& s) { return as_number(s).has_value(); }))
    std::stable_sort(xs.begin(), xs.end(), [](const auto& a, const auto& b) { return *as_number(a) < *as_number(b); });
  double largest = 0;
  for (const auto& [at, y] : values) largest = std::max(largest, std::fabs(y));
  const PlotUnit unit = plot_unit(key, largest);
  std::vector<report::PlotSeries> series;
  for (const auto& name : series_names) {
    report::PlotSeries s{name, {}, {}};
    for (const auto& x : xs) {
      const auto it = values.find({name, x});
      s.y.push_back(it == values.end() ? std::nullopt : std::optional(it->second * unit.scale));
      s.oom.push_back(oom.count({name, x}) > 0);
    }
    series.push_back(std::move(s));
  }
  std::vector<std::string> labels;
  for (const auto& x : xs) labels.push_back(short_label(x));
  const std::string y_label = unit.unit.empty() ? key : fmt::format("{} ({})", key, unit.unit);
  return report::line_plot_svg(fmt::format("{}: {} against {}", sweep_name, metric, axis), axis, y_label, labels, series);
}

}  // namespace clearfog::sweep
