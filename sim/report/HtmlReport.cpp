#include "report/HtmlReport.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Units.hpp"
#include "report/CommProfile.hpp"
#include "report/ExchangeWaits.hpp"
#include "report/HtmlPage.hpp"
#include "report/TimelineSvg.hpp"

namespace clearfog::report {
namespace {

using units::Dimension;

constexpr double kChartWidth = 1200;  // px, as the timeline
constexpr double kChartLabel = 120;   // px, labels on the left
constexpr double kChartRight = 180;   // px, legend on the right

std::string seconds(double s) { return units::format(s, Dimension::Time); }
std::string size_text(double b) { return units::format(b, Dimension::Bytes); }

// Script: count the timeline's lanes (a headless test reads them from the DOM) and zoom the timeline
// horizontally with the wheel (double click resets).
constexpr const char* kScript = R"JS(
(function () {
  var box = document.getElementById("timeline-chart");
  var svg = box ? box.querySelector("svg") : null;
  if (!svg) { document.body.dataset.ready = "yes"; return; }
  document.body.dataset.timelineRows = String(svg.querySelectorAll("rect.lane").length);
  var full = svg.viewBox.baseVal, x0 = full.x, w0 = full.width, h = full.height;
  var view = { x: x0, w: w0 };
  function apply() { svg.setAttribute("viewBox", view.x + " 0 " + view.w + " " + h); }
  svg.addEventListener("wheel", function (e) {
    e.preventDefault();
    var r = svg.getBoundingClientRect();
    var at = view.x + view.w * (e.clientX - r.left) / r.width;
    var w = Math.min(w0, Math.max(w0 / 200, view.w * (e.deltaY < 0 ? 0.8 : 1.25)));
    view.x = Math.min(x0 + w0 - w, Math.max(x0, at - (at - view.x) * w / view.w));
    view.w = w;
    apply();
  }, { passive: false });
  svg.addEventListener("dblclick", function () { view = { x: x0, w: w0 }; apply(); });
  document.body.dataset.ready = "yes";
})();
)JS";

constexpr const char* kReportStyle = R"CSS(
#timeline-chart svg { cursor: zoom-in; }
)CSS";

std::string summary_cards(const HtmlReportInputs& in) {
  const auto& m = in.metrics;
  std::string o = "<div class=\"cards\">\n";
  o += html_card("step time", seconds(m.step_time_s));
  o += html_card("throughput", fmt::format("{:.4g} {}/s", m.samples_per_s, m.sample_unit.empty() ? "samples" : m.sample_unit));
  o += html_card("MFU", m.flops_known ? fmt::format("{:.1f} %", 100 * m.mfu) : std::string("unknown"));
  o += html_card("exposed communication", seconds(m.exposed_comm_s));
  // Named as the summary names them: the stage that idles most, and the busiest device's waits.
  if (m.bubble_fraction > 0)
    o += html_card(fmt::format("pipeline bubble (stage {})", m.bubble_stage),
                   fmt::format("{:.1f} % (ideal {:.1f} %)", 100 * m.bubble_fraction, 100 * m.ideal_bubble_fraction));
  if (m.pipeline_wait_s > 0)
    o += html_card(fmt::format("pipeline waits (device {})", m.busiest_device), seconds(m.pipeline_wait_s));
  o += html_card("memory per device", fmt::format("{} of {}", size_text(m.memory.total_B()), size_text(m.memory.capacity_B)),
            !m.memory.fits());
  return o + "</div>\n";
}

/// One horizontal stacked bar: segments (label, value, colour) scaled so that `scale` spans the plot.
std::string stacked_bar(double y, double bar_h, double scale,
                        const std::vector<std::tuple<std::string, double, std::string>>& segments) {
  const double plot_w = kChartWidth - kChartLabel - kChartRight;
  std::string o;
  double x = kChartLabel;
  for (const auto& [label, value, colour] : segments) {
    if (value <= 0) continue;
    const double w = plot_w * value / scale;
    o += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"><title>{}: {}"
                     "</title></rect>\n",
                     x, y, w, bar_h, colour, html_escape(label), html_escape(seconds(value)));
    x += w;
  }
  return o;
}

std::string legend(double x, double y, const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string o;
  for (const auto& [label, colour] : entries) {
    o += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.0f}\" "
                     "y=\"{:.0f}\" font-size=\"12\">{}</text>\n",
                     x, y, colour, x + 18, y + 10, html_escape(label));
    y += 18;
  }
  return o;
}

std::string breakdown_svg(const program::Plan& plan, const engine::SimulationResult& result, int devices) {
  const int shown = std::min(devices, kTimelineMaxDevices);
  const double bar_h = shown <= 16 ? 16 : 8, gap = 3, top = 10;
  const double height = std::max(top + shown * (bar_h + gap) + 30, top + 18.0 * (program::kCategoryCount + 1) + 10);
  const double span = result.makespan_s > 0 ? result.makespan_s : 1;
  std::string o = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
                              "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\">\n",
                              kChartWidth, height, kChartWidth, height);
  std::vector<std::pair<std::string, std::string>> entries;
  for (int c = 0; c < program::kCategoryCount; ++c) {
    const std::string name(program::category_name(static_cast<program::Category>(c)));
    entries.emplace_back(name, category_colour(name));
  }
  entries.emplace_back("idle", "#cccccc");
  ExchangeWaits waits(plan, result);
  for (int r = 0; r < shown; ++r) {
    const auto b = device_breakdown(plan, result, r, waits);
    std::vector<std::tuple<std::string, double, std::string>> segments;
    for (int c = 0; c < program::kCategoryCount; ++c)
      segments.emplace_back(entries[c].first, b.category_s[c], entries[c].second);
    segments.emplace_back("idle", b.idle_s, "#cccccc");
    const double y = top + r * (bar_h + gap);
    o += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"middle\">"
                     "device {}</text>\n",
                     kChartLabel - 8, y + bar_h / 2, r);
    o += stacked_bar(y, bar_h, span, segments);
  }
  o += legend(kChartWidth - kChartRight + 16, top, entries);
  return o + "</svg>\n";
}

std::string memory_svg(const parallel::MemoryEstimate& m) {
  const double scale = std::max(m.total_B(), m.capacity_B) * 1.05;
  const double plot_w = kChartWidth - kChartLabel - kChartRight;
  const std::vector<std::tuple<std::string, double, std::string>> parts = {
      {"weights", m.weights_B, "#4c78a8"},   {"gradients", m.gradients_B, "#f58518"},
      {"optimizer", m.optimizer_B, "#54a24b"}, {"activations", m.activations_B, "#e45756"},
      {"buffers", m.buffers_B, "#b279a2"}};
  std::string o = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"110\" "
                              "viewBox=\"0 0 {:.0f} 110\" font-family=\"sans-serif\">\n",
                              kChartWidth, kChartWidth);
  double x = kChartLabel;
  for (const auto& [label, value, colour] : parts) {
    const double w = plot_w * value / scale;
    o += fmt::format("<rect x=\"{:.2f}\" y=\"10\" width=\"{:.2f}\" height=\"24\" fill=\"{}\"><title>{}: {}</title></rect>\n",
                     x, w, colour, label, html_escape(size_text(value)));
    x += w;
  }
  const double cap_x = kChartLabel + plot_w * m.capacity_B / scale;
  o += fmt::format("<line x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"4\" y2=\"40\" stroke=\"#d62728\" stroke-width=\"2\"/>"
                   "<text x=\"{0:.2f}\" y=\"54\" font-size=\"12\" text-anchor=\"middle\" fill=\"#d62728\">capacity {1}"
                   "</text>\n",
                   cap_x, html_escape(size_text(m.capacity_B)));
  o += fmt::format("<text x=\"{:.0f}\" y=\"26\" font-size=\"12\" text-anchor=\"end\">per device</text>\n", kChartLabel - 8);
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [label, value, colour] : parts) entries.emplace_back(label + " " + size_text(value), colour);
  return o + legend(kChartWidth - kChartRight + 16, 4, entries) + "</svg>\n";
}

}  // namespace

DeviceBreakdown device_breakdown(const program::Plan& plan, const engine::SimulationResult& result, int rank) {
  ExchangeWaits waits(plan, result);
  return device_breakdown(plan, result, rank, waits);
}

DeviceBreakdown device_breakdown(const program::Plan& plan, const engine::SimulationResult& result, int rank,
                                 ExchangeWaits& waits) {
  DeviceBreakdown b;
  b.category_s.assign(program::kCategoryCount, 0.0);
  const auto& p = plan.ranks[rank];
  double busy_s = 0;
  for (program::OpIndex i = 0; i < p.size(); ++i) {
    if (p.stream(i) != program::Stream::Compute) continue;
    // An exchange's wait for its peer is idle (a pipeline receive before its sender: the bubble).
    const double d = result.ops[rank][i].duration_s() - waits.wait_s(rank, i);
    b.category_s[static_cast<int>(p.category(i))] += d;
    busy_s += d;
  }
  b.idle_s = std::max(0.0, result.makespan_s - busy_s);
  return b;
}

std::string html_report(const HtmlReportInputs& in) {
  const auto& s = in.scenario;
  const int devices = s.platform.device_count();
  std::string o = html_page_head("clearfog — " + s.name, kReportStyle);
  o += fmt::format("<h1>{}</h1>\n<p class=\"note\">{} on {}, {} devices — one simulated training iteration</p>\n",
                   html_escape(s.name), html_escape(s.workload.name), html_escape(s.platform.name), devices);
  o += summary_cards(in);
  o += html_section("breakdown", "Where each device's time goes (compute stream)",
               "<p class=\"note\">Busy time by category; grey is idle: waits for a pipeline peer (the "
               "bubble) and for communication. An exchange that waits for its peer is idle until its data can "
               "move. Hover for values.</p>\n" + breakdown_svg(in.plan, in.simulation, devices));
  o += html_section("memory", "Memory per device (estimate) against capacity", memory_svg(in.metrics.memory));
  o += html_section("timeline", "Timeline",
               "<p class=\"note\">Wheel to zoom, double click to reset; hover a bar for the op.</p>\n<div id=\"timeline-chart\">" +
                   inline_svg(timeline_svg(in.plan, in.simulation, s.name, devices)) + "</div>\n");
  const auto profile = build_comm_profile(in.plan, in.simulation, in.collectives, devices, s.parallelism.zero_stage);
  o += html_section("communication", "Communication profile",
               "<pre>" + html_escape(render_comm_summary(profile)) + "</pre>\n" +
                   inline_svg(comm_histogram_svg(profile, s.name + " — message sizes")));
  o += html_section("summary", "Summary", "<pre>" + html_escape(in.summary_text) + "</pre>\n");
  if (!in.platform_text.empty())
    o += html_section("platform", "Platform", "<pre>" + html_escape(in.platform_text) + "</pre>\n");
  o += html_section("inputs", "Inputs", "<pre>" + html_escape(in.inputs_text) + "</pre>\n");
  return o + html_page_tail(kScript);
}

}  // namespace clearfog::report
