#include "report/CommProfile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "core/Errors.hpp"
#include "core/Units.hpp"
#include "report/ComputeBusy.hpp"
#include "report/CsvTables.hpp"
#include "report/TimelineSvg.hpp"

namespace clearfog::report {
namespace {

using program::Category;
using program::OpIndex;

std::string bytes_text(double b) { return units::format(b, units::Dimension::Bytes); }
std::string seconds_text(double s) { return units::format(s, units::Dimension::Time); }

constexpr std::array<const char*, 6> kAxes = {"tp", "dp", "zero", "ep", "pp", "tied"};

std::string axis_of(Category category, program::Stream stream, config::CollectiveOp op, int zero_stage) {
  if (stream == program::Stream::Gather) return "zero";
  switch (category) {
    case Category::TensorParallelComm: return "tp";
    case Category::ExpertParallelComm: return "ep";
    case Category::PipelineComm: return "pp";
    case Category::TiedGradientComm: return "tied";
    case Category::DataParallelComm:
      return zero_stage >= 1 && op != config::CollectiveOp::AllReduce ? "zero" : "dp";
    default: return "other";
  }
}

void add_collectives(CommProfile& out, const program::Plan& plan, const engine::SimulationResult& result,
                     const collectives::CollectiveLog& log, int zero_stage, ComputeBusy& busy,
                     std::vector<std::set<OpIndex>>& covered) {
  for (const auto& c : log.records()) {
    for (const auto& range : c.ops)
      if (range.rank < out.devices)
        for (OpIndex i = range.first; i < range.end; ++i) covered[range.rank].insert(i);
    if (c.ops.empty() || c.ops.front().rank >= out.devices || c.ops.front().first == c.ops.front().end) continue;
    const auto& range = c.ops.front();
    const auto& p = plan.ranks[range.rank];
    CommEvent e{c.name, axis_of(p.category(range.first), p.stream(range.first), c.op, zero_stage),
                std::string(config::collective_op_name(c.op)), c.members, c.bytes, 0,
                std::string(config::collective_algorithm_name(c.algorithm)),
                std::string(config::protocol_name(c.protocol)), range.rank, 0, 0, 0};
    e.start_s = result.ops[range.rank][range.first].start_s;
    for (OpIndex i = range.first; i < range.end; ++i) {
      for (const auto& t : p.sends(i)) e.sent_B += t.bytes;
      e.end_s = std::max(e.end_s, result.ops[range.rank][i].end_s);
    }
    // The transfers carry time-equivalent bytes (efficiency folded in): back to data.
    if (c.planned_bytes > 0) e.sent_B *= c.bytes / c.planned_bytes;
    if (e.payload_B <= 0 || e.start_s < 0) continue;
    e.exposed_s = busy.exposed(range.rank, e.start_s, e.end_s);
    out.events.push_back(std::move(e));
  }
}

void add_p2p(CommProfile& out, const program::Plan& plan, const engine::SimulationResult& result, ComputeBusy& busy,
             const std::vector<std::set<OpIndex>>& covered) {
  for (int r = 0; r < out.devices; ++r) {
    const auto& p = plan.ranks[r];
    for (OpIndex i = 0; i < p.size(); ++i) {
      if (p.category(i) != Category::PipelineComm || p.kind(i) != program::OpKind::Exchange || covered[r].count(i))
        continue;
      for (const auto& t : p.sends(i)) {
        const auto& timing = result.ops[r][i];
        if (t.bytes <= 0 || timing.start_s < 0) continue;
        CommEvent e{std::string(p.name(i)), "pp", "sendrecv", 2, t.bytes, t.bytes, "p2p", "-", r,
                    timing.start_s, timing.end_s, 0};
        e.exposed_s = busy.exposed(r, e.start_s, e.end_s);
        out.events.push_back(std::move(e));
      }
    }
  }
}

int size_bin(double bytes) { return std::max(0, static_cast<int>(std::floor(std::log2(std::max(bytes, 1.0))))); }

}  // namespace

double per_device_share(const CommEvent& e, int devices) {
  return (e.op == "sendrecv" ? 1.0 : static_cast<double>(e.members)) / devices;
}

CommProfile build_comm_profile(const program::Plan& plan, const engine::SimulationResult& result,
                               const collectives::CollectiveLog& log, int devices, int zero_stage) {
  CommProfile out;
  out.devices = std::min(devices, plan.rank_count());
  ComputeBusy busy(plan, result);
  std::vector<std::set<OpIndex>> covered(static_cast<std::size_t>(out.devices));
  add_collectives(out, plan, result, log, zero_stage, busy, covered);
  add_p2p(out, plan, result, busy, covered);
  return out;
}

std::string comm_profile_csv(const CommProfile& profile) {
  std::string out = "name,axis,op,members,payload_bytes,sent_bytes,algorithm,protocol,rank,start_s,end_s,time_s,exposed_s\n";
  for (const auto& e : profile.events)
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(e.name), e.axis, e.op, e.members,
                       e.payload_B, e.sent_B, e.algorithm, e.protocol, e.rank, e.start_s, e.end_s, e.end_s - e.start_s,
                       e.exposed_s);
  return out;
}

std::map<std::string, CommAxisTotals> comm_axis_totals(const CommProfile& profile) {
  std::map<std::string, CommAxisTotals> rows;
  for (const auto& e : profile.events) {
    auto& r = rows[e.axis];
    const double w = per_device_share(e, profile.devices);
    (e.op == "sendrecv" ? r.messages : r.collectives) += w;
    r.payload_B += w * e.payload_B;
    r.sent_B += w * e.sent_B;
    r.time_s += w * (e.end_s - e.start_s);
    r.exposed_s += w * e.exposed_s;
  }
  return rows;
}

namespace {

/// The median payload of `sizes` (sorted in place); the mean of the middle two for an even count.
double median_of(std::vector<double>& sizes) {
  std::sort(sizes.begin(), sizes.end());
  const std::size_t n = sizes.size();
  return n % 2 == 1 ? sizes[n / 2] : (sizes[n / 2 - 1] + sizes[n / 2]) / 2;
}

}  // namespace

nlohmann::ordered_json comm_profile_json(const CommProfile& profile) {
  std::map<std::string, std::vector<double>> sizes;
  double count = 0, p2p_count = 0, sent = 0, p2p_sent = 0, small = 0;
  for (const auto& e : profile.events) {
    sizes[e.axis].push_back(e.payload_B);
    const double w = per_device_share(e, profile.devices);
    const bool p2p = e.op == "sendrecv";
    count += w;
    sent += w * e.sent_B;
    if (p2p) p2p_count += w, p2p_sent += w * e.sent_B;
    if (e.payload_B < kSmallMessage_B) small += w;
  }
  nlohmann::ordered_json out;
  const auto totals = comm_axis_totals(profile);
  for (const char* axis : kAxes) {
    const auto it = totals.find(axis);
    if (it == totals.end()) continue;
    const CommAxisTotals& t = it->second;
    auto& sizes_of = sizes[axis];
    out[axis] = {{"collectives", t.collectives}, {"messages", t.messages},   {"payload_B", t.payload_B},
                 {"sent_B", t.sent_B},           {"time_s", t.time_s},       {"exposed_s", t.exposed_s},
                 {"median_message_B", median_of(sizes_of)}, {"max_message_B", sizes_of.back()}};
  }
  out["p2p_message_share"] = count > 0 ? p2p_count / count : 0.0;
  out["p2p_bytes_share"] = sent > 0 ? p2p_sent / sent : 0.0;
  out["small_message_share"] = count > 0 ? small / count : 0.0;
  return out;
}

std::string render_comm_summary(const CommProfile& profile) {
  const auto rows = comm_axis_totals(profile);
  std::string out = fmt::format("Communication per device and iteration (mean over {} devices)\n", profile.devices);
  out += fmt::format("  {:<5} {:>11} {:>9} {:>12} {:>12} {:>12} {:>12}\n", "axis", "collectives", "messages",
                     "payload", "sent", "time", "exposed");
  for (const char* axis : kAxes) {
    const auto it = rows.find(axis);
    if (it == rows.end()) continue;
    const CommAxisTotals& r = it->second;
    out += fmt::format("  {:<5} {:>11.4g} {:>9.4g} {:>12} {:>12} {:>12} {:>12}\n", axis, r.collectives, r.messages,
                       bytes_text(r.payload_B), bytes_text(r.sent_B), seconds_text(r.time_s),
                       seconds_text(r.exposed_s));
  }
  return out;
}

std::string comm_histogram_svg(const CommProfile& profile, const std::string& title) {
  static const std::map<std::string, const char*> colour = {
      {"tp", "#4e79a7"}, {"dp", "#f28e2b"}, {"zero", "#e15759"}, {"ep", "#76b7b2"}, {"pp", "#59a14f"},
      {"tied", "#edc948"}};
  std::map<std::string, std::map<int, int>> counts;
  int low = 64, high = 0, most = 1;
  for (const auto& e : profile.events) {
    const int b = size_bin(e.payload_B);
    most = std::max(most, ++counts[e.axis][b]);
    low = std::min(low, b);
    high = std::max(high, b);
  }
  if (counts.empty()) low = high = 0;
  const int bins = high - low + 1;
  const double width = 900, left = 60, right = 20, top = 50, plot_h = 260, bottom = 70;
  const double slot = (width - left - right) / bins;
  const double bar = slot / (static_cast<double>(counts.size()) + 1);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"24\" font-size=\"15\">{}</text>\n",
      width, top + plot_h + bottom, left, xml_escape(title + ": messages per size and axis"));
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n", left, top + plot_h,
                     width - right);
  svg += fmt::format("<text x=\"12\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 12 {})\">collectives and messages (log scale)</text>\n",
                     top + plot_h / 2, top + plot_h / 2);
  const double log_most = std::log10(most + 1.0);
  int series = 0;
  for (const auto& [axis, bins_of] : counts) {
    for (const auto& [b, n] : bins_of) {
      const double h = plot_h * std::log10(n + 1.0) / log_most;
      const double x = left + (b - low) * slot + (series + 0.5) * bar;
      svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{} "
                         "{} messages of {} to {}</title></rect>\n",
                         x, top + plot_h - h, bar, h, colour.count(axis) ? colour.at(axis) : "#999", axis, n,
                         bytes_text(std::ldexp(1.0, b)), bytes_text(std::ldexp(1.0, b + 1)));
      // The count over its bar: the log-scaled axis has no ticks to read it from.
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"9\">{}</text>\n",
                         x + bar / 2, top + plot_h - h - 3, n);
    }
    const double lx = left + 70.0 * series, ly = 32;  // legend in a row under the title
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                       lx, ly, colour.count(axis) ? colour.at(axis) : "#999", lx + 14, ly + 9, axis);
    ++series;
  }
  for (int b = low; b <= high; b += std::max(1, bins / 12))
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"end\" transform=\"rotate(-40 {:.1f} {})\">{}</text>\n",
                       left + (b - low + 0.5) * slot, top + plot_h + 16, left + (b - low + 0.5) * slot,
                       top + plot_h + 16, bytes_text(std::ldexp(1.0, b)));
  svg += fmt::format("<text x=\"{}\" y=\"{}\">message size (payload, bins of [2^k, 2^(k+1)) bytes)</text>\n",
                     left + (width - left - right) / 2 - 150, top + plot_h + bottom - 6);
  return svg + "</svg>\n";
}

void write_comm_profile(const std::filesystem::path& dir, const CommProfile& profile, const std::string& title) {
  const std::vector<std::pair<const char*, std::string>> files = {
      {"comm.csv", comm_profile_csv(profile)},
      {"comm-summary.txt", render_comm_summary(profile)},
      {"comm-sizes.svg", comm_histogram_svg(profile, title)}};
  for (const auto& [name, text] : files) {
    std::ofstream f(dir / name, std::ios::binary);
    f << text;
    if (!f) throw Error(fmt::format("cannot write {}", (dir / name).string()));
  }
}

}  // namespace clearfog::report
