#include "sweep/Best.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/Errors.hpp"

namespace clearfog::sweep {
namespace {

std::optional<double> number(const nlohmann::ordered_json& summary, const std::string& dotted) {
  const auto* j = &summary;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto end = std::min(dotted.find('.', start), dotted.size());
    const auto key = dotted.substr(start, end - start);
    if (!j->is_object() || !j->contains(key)) return std::nullopt;
    j = &j->at(key);
    start = end + 1;
  }
  return j->is_number() ? std::optional(j->get<double>()) : std::nullopt;
}

/// The first numeric figure whose flattened key mentions "bubble" (pipeline schedules report one).
std::optional<double> bubble_share(const nlohmann::ordered_json& summary) {
  for (const auto& [k, v] : flatten(summary))
    if (k.find("bubble") != std::string::npos && (k.ends_with("fraction") || k.ends_with("share")))
      return std::stod(v);
  return std::nullopt;
}

struct Factors {
  double value = 0;
  double exposed_share = 0;    // exposed communication / step time
  double compute_share = 0;    // compute busy / step time
  double headroom = 0;         // 1 - memory total / capacity
  std::optional<double> bubble;
};

Factors factors(const nlohmann::ordered_json& s, const std::string& key) {
  Factors f;
  f.value = number(s, key).value_or(0);
  const double step = number(s, "step_time_s").value_or(0);
  if (step > 0) {
    f.exposed_share = number(s, "communication.exposed_s").value_or(0) / step;
    f.compute_share = number(s, "compute.busy_s").value_or(0) / step;
  }
  const double capacity = number(s, "memory.capacity_B").value_or(0);
  if (capacity > 0) f.headroom = 1 - number(s, "memory.total_B").value_or(0) / capacity;
  f.bubble = bubble_share(s);
  return f;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string pct(double x) { return fmt::format("{:.1f} %", 100 * x); }

}  // namespace

std::string render_best(const std::map<int, PointRecord>& points, const std::string& metric, int top) {
  std::string key;
  bool higher_wins = true;
  if (metric == "throughput") {
    key = "samples_per_s";
  } else if (metric == "mfu") {
    key = "mfu";
  } else if (metric == "step_time") {
    key = "step_time_s";
    higher_wins = false;
  } else {
    throw ConfigError({{{"--best", 0, 0}, "", fmt::format("must be throughput, mfu or step_time, got \"{}\"", metric)}});
  }
  struct Row {
    int id;
    const PointRecord* p;
    Factors f;
  };
  std::vector<Row> rows;
  for (const auto& [id, p] : points)
    if (p.value("status", "") == "ok" && p.contains("summary")) rows.push_back({id, &p, factors(p.at("summary"), key)});
  if (rows.empty()) return "No point ran successfully (status ok): no best configuration.\n";
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return higher_wins ? a.f.value > b.f.value : a.f.value < b.f.value;
  });
  std::vector<double> exposed, compute, headroom;
  for (const auto& r : rows) {
    exposed.push_back(r.f.exposed_share);
    compute.push_back(r.f.compute_share);
    headroom.push_back(r.f.headroom);
  }
  const double med_exposed = median(exposed);
  const double med_compute = median(compute);

  std::string o = fmt::format("Best {} of {} points that ran (by {}; oom, error, timeout and skipped points excluded)\n",
                              std::min<std::size_t>(top, rows.size()), rows.size(), metric);
  for (std::size_t i = 0; i < rows.size() && static_cast<int>(i) < top; ++i) {
    const auto& r = rows[i];
    std::string axes;
    for (const auto& [k, v] : r.p->at("axes").items()) axes += fmt::format("{}{}={}", axes.empty() ? "" : ", ", k, v.get<std::string>());
    const auto& s = r.p->at("summary");
    o += fmt::format("{}. point {}: {}\n", i + 1, r.id, axes);
    o += fmt::format("   step {:.4g} s, {:.1f} samples/s, MFU {}\n", number(s, "step_time_s").value_or(0),
                     number(s, "samples_per_s").value_or(0), pct(number(s, "mfu").value_or(0)));
    std::string why = fmt::format("   why: compute busy {} of the step (median {}), exposed communication {} (median {})",
                                  pct(r.f.compute_share), pct(med_compute), pct(r.f.exposed_share), pct(med_exposed));
    if (r.f.bubble) why += fmt::format(", pipeline bubble {}", pct(*r.f.bubble));
    why += fmt::format(", memory headroom {}\n", pct(r.f.headroom));
    o += why;
  }
  return o;
}

}  // namespace clearfog::sweep
