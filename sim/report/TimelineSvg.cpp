#include "report/TimelineSvg.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/Units.hpp"
#include "report/ExchangeWaits.hpp"

namespace clearfog::report {
namespace {

constexpr double kWidth = 1200;        // px, whole picture
constexpr double kLabelWidth = 120;    // px, device labels on the left
constexpr double kRightMargin = 24;    // px
constexpr double kTitleHeight = 44;    // px
constexpr double kAxisHeight = 36;     // px, ticks and their labels
constexpr double kLegendHeight = 38;   // px
constexpr double kMergeGap = 0.5;      // px: bars of one category closer than this are drawn as one
constexpr double kMinBar = 0.5;        // px: shortest bar drawn

struct Bar {
  double x0, x1;
  std::string category;
  std::string tooltip;  // empty once merged
};

double row_height(int devices) {
  if (devices <= 8) return 16;
  if (devices <= 16) return 11;
  if (devices <= 32) return 7;
  return 4.5;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string category_colour(std::string_view c) {
  if (c == "forward") return "#4c78a8";
  if (c == "backward") return "#f58518";
  if (c == "recompute") return "#e45756";
  if (c == "optimizer") return "#54a24b";
  if (c == "dp_comm") return "#b279a2";
  if (c == "tp_comm") return "#9d755d";
  if (c == "pp_comm") return "#72b7b2";
  if (c == "tied_comm") return "#eeca3b";
  if (c == "host") return "#79706e";
  if (c == "idle") return "#eeeeee";
  // Any other category: a fixed colour chosen by its name, so output stays deterministic.
  static constexpr std::array<const char*, 6> kOthers = {"#eeca3b", "#ff9da6", "#bab0ac", "#8cd17d", "#79706e", "#d37295"};
  std::size_t h = 0;
  for (char ch : c) h = h * 31 + static_cast<unsigned char>(ch);
  return kOthers[h % kOthers.size()];
}

double nice_tick(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

namespace {

/// Where the plot's x is for a simulated time.
struct TimeScale {
  double plot_w = 0, span_s = 1;
  double operator()(double t) const { return kLabelWidth + plot_w * t / span_s; }
};

struct Lane {
  int rank = 0;
  int stream = 0;
};

/// The bars of one device's stream, neighbours of one category merged; categories met for the
/// first time are added to `seen_categories` (the legend's order).
std::vector<Bar> lane_bars(const program::Plan& plan, const engine::SimulationResult& result, ExchangeWaits& waits,
                           Lane lane, const TimeScale& x_of, std::vector<std::string>& seen_categories) {
  const auto [r, s] = lane;
  const auto& ops = plan.ranks[r].ops();
  std::vector<program::OpIndex> order;
  for (program::OpIndex i = 0; i < ops.size(); ++i)
    if (static_cast<int>(ops[i].stream) == s && result.ops[r][i].duration_s() > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    return result.ops[r][a].start_s < result.ops[r][b].start_s;
  });
  std::vector<Bar> bars;
  for (const auto i : order) {
    const auto& t = result.ops[r][i];
    const std::string category(program::category_name(ops[i].category));
    // An exchange waiting for its peer is idle: its overhead and its transfers are drawn, the
    // wait between them is left to the idle lane.
    const double wait = waits.wait_s(r, i);
    std::vector<std::pair<double, double>> drawn = {{t.start_s, t.end_s}};
    if (wait > 0) {
      const double posted = t.start_s + ops[i].overhead_s;
      drawn.clear();
      for (const auto& part : {std::pair{t.start_s, posted}, std::pair{posted + wait, t.end_s}})
        if (part.second > part.first) drawn.push_back(part);
    }
    for (const auto& [from, to] : drawn) {
      if (std::find(seen_categories.begin(), seen_categories.end(), category) == seen_categories.end())
        seen_categories.push_back(category);
      const double x0 = x_of(from);
      const double x1 = std::max(x_of(to), x0 + kMinBar);
      if (!bars.empty() && bars.back().category == category && x0 - bars.back().x1 < kMergeGap) {
        bars.back().x1 = std::max(bars.back().x1, x1);
        bars.back().tooltip.clear();
        continue;
      }
      std::string tooltip = fmt::format("{} ({}): {} to {}", ops[i].name, category,
                                        units::format(t.start_s, units::Dimension::Time),
                                        units::format(t.end_s, units::Dimension::Time));
      if (wait > 0) tooltip += fmt::format(", waiting {} for its peer", units::format(wait, units::Dimension::Time));
      bars.push_back({x0, x1, category, std::move(tooltip)});
    }
  }
  return bars;
}

/// The time axis under the plot (its top at `axis_y`), then the legend: categories in order of
/// first appearance, then idle.
std::string axis_and_legend(const TimeScale& x_of, double axis_y, std::vector<std::string> seen_categories) {
  std::string o;
  const double plot_w = x_of.plot_w, span = x_of.span_s;
  // Time axis.
  o += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"black\"/>\n", kLabelWidth,
                   axis_y, kLabelWidth + plot_w, axis_y);
  const double tick = nice_tick(span, 8);
  for (int k = 0; k * tick <= span * (1 + 1e-9); ++k) {
    const double x = x_of(k * tick);
    o += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"black\"/>\n", x, axis_y,
                     x, axis_y + 5);
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", x,
                     axis_y + 18, xml_escape(units::format(k * tick, units::Dimension::Time)));
  }
  o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" text-anchor=\"end\">simulated time</text>\n",
                   kLabelWidth + plot_w, axis_y + 32);

  // Legend: categories in order of first appearance, then idle.
  seen_categories.push_back("idle");
  double lx = kLabelWidth;
  const double ly = axis_y + kAxisHeight + 14;
  for (const auto& c : seen_categories) {
    o += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#999\"/>\n", lx,
                     ly - 11, category_colour(c));
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"12\">{}</text>\n", lx + 19, ly, xml_escape(c));
    lx += 19 + 8.0 * static_cast<double>(c.size()) + 24;
  }
  return o;
}

}  // namespace

std::string timeline_svg(const program::Plan& plan, const engine::SimulationResult& result, std::string_view title,
                         int device_count, std::string_view covers) {
  const int all_devices = device_count < 0 ? plan.rank_count() : std::min(device_count, plan.rank_count());
  const int devices = std::min(all_devices, kTimelineMaxDevices);
  const double row_h = row_height(devices);
  const double device_gap = devices <= 16 ? 4 : 2;
  // One row per stream a drawn device uses, compute and comm always: no empty gather row without ZeRO-3.
  std::array<bool, program::kStreamCount> used{};
  used[static_cast<std::size_t>(program::Stream::Compute)] = used[static_cast<std::size_t>(program::Stream::Comm)] = true;
  for (int r = 0; r < devices; ++r)
    for (program::OpIndex i = 0; i < plan.ranks[r].size(); ++i) used[static_cast<std::size_t>(plan.ranks[r].stream(i))] = true;
  std::vector<int> lanes;
  for (int s = 0; s < program::kStreamCount; ++s)
    if (used[static_cast<std::size_t>(s)]) lanes.push_back(s);
  const int streams = static_cast<int>(lanes.size());
  const double device_h = streams * row_h + device_gap;
  const double plot_w = kWidth - kLabelWidth - kRightMargin;
  const double plot_top = kTitleHeight;
  const double plot_h = devices * device_h;
  const double height = plot_top + plot_h + kAxisHeight + kLegendHeight + 8;
  const double span = result.makespan_s > 0 ? result.makespan_s : 1;
  const TimeScale x_of{plot_w, span};
  ExchangeWaits waits(plan, result);

  std::string o;
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "font-family=\"sans-serif\">\n",
      kWidth, height, kWidth, height);
  o += fmt::format("<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n", kWidth, height);
  std::string heading = fmt::format("{} — {}, {}", title, covers, units::format(result.makespan_s, units::Dimension::Time));
  if (all_devices > devices)
    heading += fmt::format(" (devices 0–{} of {} shown)", devices - 1, all_devices);
  o += fmt::format("<text x=\"{:.0f}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", kLabelWidth,
                   xml_escape(heading));

  // Rows: idle background, then bars. Labels for every device when there is room, else every k-th.
  const int label_every = device_h >= 10 ? 1 : (device_h >= 6 ? 4 : 8);
  std::vector<std::string> seen_categories;
  for (int r = 0; r < devices; ++r) {
    const double y_dev = plot_top + r * device_h;
    if (r % label_every == 0 || r == devices - 1)
      o += fmt::format("<text x=\"{:.0f}\" y=\"{:.2f}\" font-size=\"{:.0f}\" text-anchor=\"end\" "
                       "dominant-baseline=\"middle\">device {}</text>\n",
                       kLabelWidth - 8, y_dev + row_h, std::clamp(row_h + 1, 8.0, 12.0), r);
    for (int s = 0; s < streams; ++s) {
      const double y = y_dev + s * row_h;
      // class "lane": one per device and stream, counted by the HTML report's script.
      o += fmt::format("<rect class=\"lane\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>\n",
                       kLabelWidth, y, plot_w, row_h - 0.5, category_colour("idle"));
      const auto bars = lane_bars(plan, result, waits, {r, lanes[static_cast<std::size_t>(s)]}, x_of, seen_categories);
      for (const auto& b : bars) {
        o += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"", b.x0, y,
                         b.x1 - b.x0, row_h - 0.5, category_colour(b.category));
        if (b.tooltip.empty())
          o += "/>\n";
        else
          o += fmt::format("><title>{}</title></rect>\n", xml_escape(b.tooltip));
      }
    }
  }
  std::vector<std::string> names;
  for (const int s : lanes) names.emplace_back(program::stream_name(static_cast<program::Stream>(s)));
  if (devices > 0 && streams > 3) {  // too many to fit the label column: a line under the heading
    o += fmt::format("<text x=\"{:.0f}\" y=\"38\" font-size=\"10\" fill=\"#555\">rows of each device, top to "
                     "bottom: {}</text>\n",
                     kLabelWidth, fmt::join(names, ", "));
  } else if (devices > 0 && row_h >= 11) {  // stream names beside the first device
    // Three names fit the label column unspaced.
    o += fmt::format("<text x=\"{:.0f}\" y=\"{:.2f}\" font-size=\"9\" fill=\"#555\" text-anchor=\"end\" "
                     "dominant-baseline=\"middle\">{}</text>\n",
                     kLabelWidth - 8, plot_top + row_h * streams + 5, fmt::join(names, streams > 2 ? "/" : " / "));
  }

  o += axis_and_legend(x_of, plot_top + plot_h + 2, std::move(seen_categories));
  o += "</svg>\n";
  return o;
}

}  // namespace clearfog::report
