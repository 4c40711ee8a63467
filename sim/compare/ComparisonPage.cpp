#include "compare/ComparisonPage.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <set>

#include "core/Units.hpp"
#include "report/HtmlPage.hpp"
#include "report/ParetoPlot.hpp"

namespace clearfog::compare {
namespace {

using report::html_escape;
using Json = nlohmann::ordered_json;


/// j[a][b]... as a number; nullopt when a key is missing or not a number.
std::optional<double> number_at(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &j;
  for (const char* k : path) {
    if (!at->is_object() || !at->contains(k)) return std::nullopt;
    at = &at->at(k);
  }
  return at->is_number() ? std::optional(at->get<double>()) : std::nullopt;
}

std::string text_at(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : "";
}

std::string parallelism_text(const Json& best) {
  if (!best.is_object()) return "";
  const auto v = [&](std::initializer_list<const char*> path) {
    const auto n = number_at(best, path);
    return n ? fmt::format("{:g}", *n) : std::string("?");
  };
  return fmt::format("tp {} pp {} dp {} mb {}", v({"parallelism", "tp"}), v({"parallelism", "pp"}),
                     v({"parallelism", "dp"}), v({"training", "micro_batch"}));
}

std::string text_cell(const std::string& text, const char* extra = "") {
  return fmt::format("<td class=\"text{}\">{}</td>", extra, html_escape(text));
}

std::string platforms_table(const Json& platforms) {
  using units::Dimension;
  std::string o = "<div class=\"table-box\"><table class=\"sortable\" id=\"platforms-table\"><thead><tr><th class=\"text\">platform</th>"
                  "<th>devices</th><th class=\"text\">status</th><th class=\"text\">bound</th>"
                  "<th class=\"text\">best configuration</th><th>step time</th><th>throughput (/s)</th><th>MFU</th>"
                  "<th>memory / device</th><th>capacity</th><th>considered</th><th>simulated</th><th>OOM</th>"
                  "<th>invalid</th><th>failed</th></tr></thead>\n<tbody>\n";
  for (const auto& p : platforms) {
    const auto& best = p.contains("best") ? p.at("best") : Json();
    const std::string status = text_at(p, "status");
    o += "<tr class=\"" + html_escape(status) + "\">" + text_cell(text_at(p, "platform"), " wrap");
    const auto devices = number_at(p, {"devices"});
    o += report::html_number_cell(devices, devices ? fmt::format("{:g}", *devices) : "");
    o += text_cell(status) + text_cell(text_at(p, "bound")) + text_cell(parallelism_text(best));
    const auto step = number_at(best, {"step_time_s"});
    const auto rate = number_at(best, {"samples_per_s"});
    const auto mfu = number_at(best, {"mfu"});
    const auto memory = number_at(best, {"memory", "total_B"});
    const auto capacity = number_at(best, {"memory", "capacity_B"});
    o += report::html_number_cell(step, step ? units::format(*step, Dimension::Time) : "");
    o += report::html_number_cell(rate, rate ? fmt::format("{:.4g}", *rate) : "");
    o += report::html_number_cell(mfu, mfu ? fmt::format("{:.1f} %", 100 * *mfu) : "");
    o += report::html_number_cell(memory, memory ? units::format(*memory, Dimension::Bytes) : "");
    o += report::html_number_cell(capacity, capacity ? units::format(*capacity, Dimension::Bytes) : "");
    for (const char* k : {"considered", "simulated", "oom", "invalid", "failed"}) {
      const auto n = number_at(p, {"configurations", k});
      o += report::html_number_cell(n, n ? fmt::format("{:g}", *n) : "");
    }
    o += "</tr>\n";
  }
  return o + "</tbody></table></div>\n";
}

/// The simulated configurations of one platform: step time against memory per device.
std::string platform_plot(const Json& p) {
  std::vector<report::ScatterPoint> points;
  std::set<double> capacities;
  if (p.contains("configurations_tried") && p.at("configurations_tried").is_array())
    for (const auto& c : p.at("configurations_tried")) {
      const auto step = number_at(c, {"step_time_s"});
      const auto memory = number_at(c, {"memory", "total_B"});
      if (const auto capacity = number_at(c, {"memory", "capacity_B"})) capacities.insert(*capacity);
      if (text_at(c, "status") != "ok" || !step || !memory) continue;
      const auto n = [&](const char* k) { const auto v = number_at(c, {k}); return v ? fmt::format("{:g}", *v) : "?"; };
      points.push_back({*memory / units::kBytesPerGB, *step,
                        fmt::format("tp {} pp {} dp {} mb {}", n("tp"), n("pp"), n("dp"), n("micro_batch")), false});
    }
  if (points.empty()) return "<p class=\"note\">No configuration of this platform was simulated.</p>\n";
  std::optional<report::XLimit> limit;
  if (capacities.size() == 1)
    limit = report::XLimit{*capacities.begin() / units::kBytesPerGB,
                           "capacity " + units::format(*capacities.begin(), units::Dimension::Bytes)};
  return "<div class=\"plot\">" +
         report::pareto_plot_svg(text_at(p, "platform"), "memory per device (GB)", "step time at search fidelity (s)",
                                 points, false, limit) +
         "</div>\n";
}

}  // namespace

bool is_comparison_json(const Json& j) {
  return j.is_object() && j.contains("platforms") && j.at("platforms").is_array();
}

std::string comparison_html(const Json& comparison, const std::string& inputs_text) {
  // The workload's name from a platform's best run; its file's stem otherwise.
  std::string workload = std::filesystem::path(text_at(comparison, "workload")).stem().string();
  for (const auto& p : comparison.at("platforms"))
    if (p.contains("best") && !text_at(p.at("best"), "workload").empty()) {
      workload = text_at(p.at("best"), "workload");
      break;
    }
  const auto batch = number_at(comparison, {"global_batch"});
  const auto& platforms = comparison.at("platforms");
  std::string o = report::html_page_head("clearfog compare — " + workload);
  o += fmt::format("<h1>compare: {}</h1>\n<p class=\"note\">{} platforms, global batch {}; the best configuration "
                   "of each, found by the search, then simulated at its step fidelity</p>\n",
                   html_escape(workload), platforms.size(), batch ? fmt::format("{:g}", *batch) : "?");
  o += "<div class=\"cards\">\n";
  for (const auto& p : platforms) {
    const auto step = number_at(p, {"best", "step_time_s"});
    o += report::html_card(text_at(p, "platform"),
                           step ? "step " + units::format(*step, units::Dimension::Time) : "no configuration fits", !step);
  }
  o += "</div>\n";
  o += report::html_section("platforms", "Platforms",
                            "<p class=\"note\">Click a heading to sort. The best configuration of each platform "
                            "is the fastest one that fits; OOM configurations were not simulated.</p>\n" +
                                platforms_table(platforms));
  std::string plots = "<p class=\"note\">Every configuration the search simulated, step time (at the search "
                      "fidelity) against memory per device; the front holds those no other beats on both.</p>\n"
                      "<div class=\"plots\">\n";
  for (const auto& p : platforms) plots += platform_plot(p);
  o += report::html_section("configurations", "Configurations per platform", plots + "</div>\n");
  o += report::html_section("inputs", "Inputs", "<pre>" + html_escape(inputs_text) + "</pre>\n");
  return o + report::html_page_tail(report::table_page_script("platforms-table"));
}

}  // namespace clearfog::compare
