#include "sweep/SweepReport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "core/Units.hpp"
#include "report/HtmlPage.hpp"
#include "report/ParetoPlot.hpp"
#include "sweep/Plot.hpp"

namespace clearfog::sweep {
namespace {

using report::html_escape;


std::optional<double> number(const PointRecord& p, const char* group, const char* key) {
  if (!p.contains("summary")) return std::nullopt;
  const auto* j = &p.at("summary");
  if (group) {
    if (!j->contains(group)) return std::nullopt;
    j = &j->at(group);
  }
  if (!j->contains(key) || !j->at(key).is_number()) return std::nullopt;
  return j->at(key).get<double>();
}

std::vector<std::string> axis_keys(const std::map<int, PointRecord>& points) {
  std::vector<std::string> axes;
  for (const auto& [id, p] : points)
    for (const auto& [k, v] : p.at("axes").items())
      if (std::find(axes.begin(), axes.end(), k) == axes.end()) axes.push_back(k);
  return axes;
}

std::string axes_text(const PointRecord& p) {
  std::string text;
  for (const auto& [k, v] : p.at("axes").items())
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", k, v.get<std::string>());
  return text;
}

/// The point that ran, fits, and has the highest throughput; nullopt when none.
std::optional<int> best_point(const std::map<int, PointRecord>& points) {
  std::optional<int> best;
  double best_value = 0;
  for (const auto& [id, p] : points) {
    const auto v = number(p, nullptr, "samples_per_s");
    if (p.value("status", "") != "ok" || !v) continue;
    if (!best || *v > best_value) {
      best = id;
      best_value = *v;
    }
  }
  return best;
}

std::string format_or_blank(const std::optional<double>& v, units::Dimension d) {
  return v ? units::format(*v, d) : "";
}

std::string table_html(const std::map<int, PointRecord>& points, const std::vector<std::string>& axes,
                       const std::optional<int>& best) {
  using units::Dimension;
  std::string o = "<div class=\"table-box\"><table class=\"points sortable\" id=\"points-table\"><thead><tr><th>id</th>";
  for (const auto& a : axes) o += "<th class=\"text\">" + html_escape(a) + "</th>";
  o += "<th class=\"text\">status</th><th>step time</th><th>throughput (/s)</th><th>MFU</th><th>memory / device</th>"
       "<th>capacity</th><th>exposed comm.</th><th>bubble</th><th class=\"text\">message</th></tr></thead>\n<tbody>\n";
  for (const auto& [id, p] : points) {
    const std::string status = p.value("status", "");
    o += fmt::format("<tr class=\"{}{}\"><td data-v=\"{}\">{}</td>", html_escape(status),
                     best && *best == id ? " best" : "", id, id);
    for (const auto& a : axes)
      o += "<td class=\"text\">" + html_escape(p.at("axes").value(a, "")) + "</td>";
    o += "<td class=\"text\">" + html_escape(status) + "</td>";
    const auto step = number(p, nullptr, "step_time_s");
    const auto rate = number(p, nullptr, "samples_per_s");
    const auto mfu = number(p, nullptr, "mfu");
    const auto memory = number(p, "memory", "total_B");
    const auto capacity = number(p, "memory", "capacity_B");
    const auto exposed = number(p, "communication", "exposed_s");
    const auto bubble = number(p, "parallel", "bubble_fraction");
    o += report::html_number_cell(step, format_or_blank(step, Dimension::Time));
    o += report::html_number_cell(rate, rate ? fmt::format("{:.4g}", *rate) : "");
    o += report::html_number_cell(mfu, mfu ? fmt::format("{:.1f} %", 100 * *mfu) : "");
    o += report::html_number_cell(memory, format_or_blank(memory, Dimension::Bytes));
    o += report::html_number_cell(capacity, format_or_blank(capacity, Dimension::Bytes));
    o += report::html_number_cell(exposed, format_or_blank(exposed, Dimension::Time));
    o += report::html_number_cell(bubble, bubble ? fmt::format("{:.1f} %", 100 * *bubble) : "");
    o += "<td class=\"text message\">" + html_escape(p.value("message", "")) + "</td></tr>\n";
  }
  return o + "</tbody></table></div>\n";
}

std::string cards_html(const std::map<int, PointRecord>& points, const std::optional<int>& best) {
  std::map<std::string, int> by_status;
  for (const auto& [id, p] : points) ++by_status[p.value("status", "")];
  std::string o = "<div class=\"cards\">\n" + report::html_card("points", std::to_string(points.size()));
  o += report::html_card("ran and fit", std::to_string(by_status["ok"]));
  o += report::html_card("OOM", std::to_string(by_status["oom"]), by_status["oom"] > 0);
  const int failed = by_status["error"] + by_status["timeout"];
  o += report::html_card("failed", std::to_string(failed), failed > 0);
  if (by_status["skipped"] > 0) o += report::html_card("skipped by the filter", std::to_string(by_status["skipped"]));
  if (best) {
    const auto& p = points.at(*best);
    o += report::html_card(fmt::format("best throughput: point {} ({})", *best, axes_text(p)),
                           fmt::format("{:.4g} /s", *number(p, nullptr, "samples_per_s")));
  }
  return o + "</div>\n";
}

std::string plots_html(const std::string& name, const std::map<int, PointRecord>& points,
                       const std::vector<std::string>& axes) {
  std::string o;
  for (const auto& axis : axes) {
    std::set<std::string> values;
    for (const auto& [id, p] : points) values.insert(p.at("axes").value(axis, ""));
    if (values.size() < 2) continue;
    o += "<div class=\"plots\">\n";
    for (const char* metric : {"step_time", "mfu", "memory.total_B"})
      o += "<div class=\"plot\">" + report::inline_svg(sweep_plot_svg(points, metric, axis, name)) + "</div>\n";
    o += "</div>\n";
  }
  return o.empty() ? "<p class=\"note\">No axis takes two values.</p>\n" : o;
}

/// The device's memory capacity, when every point has the same.
std::optional<report::XLimit> capacity_line(const std::set<double>& capacities) {
  if (capacities.size() != 1) return std::nullopt;
  const double c = *capacities.begin();
  return report::XLimit{c / units::kBytesPerGB, "capacity " + units::format(c, units::Dimension::Bytes)};
}

/// Step time against memory per device; throughput against devices when the device count varies.
std::string pareto_html(const std::string& name, const std::map<int, PointRecord>& points) {
  std::vector<report::ScatterPoint> scatter_memory, scatter_devices;
  std::set<double> device_counts, capacities;
  for (const auto& [id, p] : points) {
    const std::string status = p.value("status", "");
    const auto step = number(p, nullptr, "step_time_s");
    const auto rate = number(p, nullptr, "samples_per_s");
    const auto memory = number(p, "memory", "total_B");
    const auto devices = number(p, nullptr, "devices");
    if ((status != "ok" && status != "oom") || !step || !rate || !memory || !devices) continue;
    const auto label = fmt::format("point {} ({})", id, axes_text(p));
    scatter_memory.push_back({*memory / units::kBytesPerGB, *step, label, status == "oom"});
    scatter_devices.push_back({*devices, *rate, label, status == "oom"});
    device_counts.insert(*devices);
    if (const auto capacity = number(p, "memory", "capacity_B")) capacities.insert(*capacity);
  }
  if (scatter_memory.empty()) return "<p class=\"note\">No point ran.</p>\n";
  if (device_counts.size() > 1)
    return "<p class=\"note\">The device count varies: throughput against devices; the front holds the "
           "configurations no other beats with as many devices or fewer.</p>\n<div class=\"plot\">" +
           report::pareto_plot_svg(name + ": throughput against devices", "devices", "samples/s", scatter_devices, true) +
           "</div>\n";
  return "<p class=\"note\">Step time against memory per device; the front holds the configurations no "
         "other beats on both. OOM points are never on it.</p>\n<div class=\"plot\">" +
         report::pareto_plot_svg(name + ": step time against memory per device", "memory per device (GB)",
                                 "step time (s)", scatter_memory, false, capacity_line(capacities)) +
         "</div>\n";
}

std::string read_or_note(const std::filesystem::path& file) {
  std::vector<Diagnostic> problems;
  const auto text = config::read_text_file(file, std::nullopt, problems);
  return text ? *text : fmt::format("({} cannot be read from here)\n", file.string());
}

}  // namespace

std::string sweep_html(const std::string& name, const std::map<int, PointRecord>& points, const std::string& inputs_text) {
  const auto axes = axis_keys(points);
  const auto best = best_point(points);
  std::string o = report::html_page_head("clearfog sweep — " + name);
  o += fmt::format("<h1>{}</h1>\n<p class=\"note\">sweep of {} points over {}</p>\n", html_escape(name), points.size(),
                   html_escape(axes.empty() ? std::string("no axis") : fmt::format("{}", fmt::join(axes, ", "))));
  o += cards_html(points, best);
  o += report::html_section("results", "Results",
                            "<p class=\"note\">Click a heading to sort. Red rows do not fit in memory (never "
                            "the best); grey rows did not run. The best throughput among the rows that fit is "
                            "green.</p>\n" + table_html(points, axes, best));
  o += report::html_section("plots", "Against each axis", plots_html(name, points, axes));
  o += report::html_section("pareto", "Pareto front", pareto_html(name, points));
  o += report::html_section("inputs", "Inputs", "<pre>" + html_escape(inputs_text) + "</pre>\n");
  return o + report::html_page_tail(report::table_page_script("points-table"));
}

std::string sweep_report_html(const std::filesystem::path& out_dir, const std::string& where) {
  std::error_code ec;
  if (!std::filesystem::is_directory(out_dir / "points", ec))
    throw ConfigError({{{where, 0, 0}, "",
                        "not a sweep output directory (no points/ inside); give the --out directory of "
                        "`clearfog sweep`"}});
  std::string name = out_dir.filename().string();
  std::string inputs;
  std::vector<Diagnostic> problems;
  if (const auto text = config::read_text_file(out_dir / "sweep.json", std::nullopt, problems)) {
    inputs = "# " + (out_dir / "sweep.json").string() + "\n" + *text;
    const auto manifest = nlohmann::ordered_json::parse(*text, nullptr, false);
    if (manifest.is_object() && manifest.contains("sweep") && manifest.at("sweep").is_string())
      name = manifest.at("sweep").get<std::string>();
    if (manifest.is_object() && manifest.contains("file") && manifest.at("file").is_string()) {
      const std::filesystem::path file = manifest.at("file").get<std::string>();
      inputs += "\n# " + file.string() + "\n" + read_or_note(file);
    }
  }
  const auto files = read_point_files(out_dir);
  for (const auto& d : files.damaged) inputs += fmt::format("\n# damaged point file {}: {}", d.file.string(), d.reason);
  return sweep_html(name, files.points, inputs);
}

}  // namespace clearfog::sweep
