#include "compare/WhyBest.hpp"

#include <fmt/format.h>

#include <vector>

namespace clearfog::compare {
namespace {

nlohmann::ordered_json side(const nlohmann::ordered_json& summary, const StepBreakdown& b) {
  return {{"knobs", knobs_of(summary)},
          {"step_time_s", summary.at("step_time_s")},
          {"exposed_comm_s", b.exposed_comm_s},
          {"bubble_s", b.bubble_s},
          {"memory_B", summary.at("memory").at("total_B")}};
}


std::string value_text(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  return v.dump();
}

/// "tp 1 pp 1 dp 8 mb 4, ZeRO 0, recompute none, SP off, attention fused, bf16".
std::string knobs_text(const nlohmann::ordered_json& k) {
  return fmt::format("tp {} pp {} dp {} mb {}, ZeRO {}, recompute {}, SP {}, attention {}, {}", k.at("tp").dump(),
                     k.at("pp").dump(), k.at("dp").dump(), k.at("micro_batch").dump(), k.at("zero_stage").dump(),
                     value_text(k.at("recompute")), value_text(k.at("sequence_parallel")),
                     value_text(k.at("attention")), value_text(k.at("precision")));
}

}  // namespace

std::string duration_text(double s) {
  if (s >= 1) return fmt::format("{:.4g} s", s);
  if (s >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  return fmt::format("{:.4g} us", s * 1e6);
}

nlohmann::ordered_json why_best_json(const PlatformResult& r) {
  if (r.best.is_null()) return nullptr;
  nlohmann::ordered_json j;
  j["winner"] = side(r.best, r.best_breakdown);
  if (r.runner_up.is_null()) {
    j["runner_up"] = nullptr;
    j["faster_by"] = nullptr;
    j["differs_in"] = nlohmann::ordered_json::array();
    return j;
  }
  j["runner_up"] = side(r.runner_up, r.runner_up_breakdown);
  const double a = j["winner"]["step_time_s"].get<double>(), b = j["runner_up"]["step_time_s"].get<double>();
  j["faster_by"] = b > 0 ? (b - a) / b : 0.0;
  auto& differs = j["differs_in"] = nlohmann::ordered_json::array();
  for (const auto& [key, value] : j["winner"]["knobs"].items())
    if (j["runner_up"]["knobs"].at(key) != value) differs.push_back(key);
  return j;
}

std::string why_best_text(const PlatformResult& r) {
  const auto j = why_best_json(r);
  if (j.is_null()) return "";
  const auto& w = j.at("winner");
  if (j.at("runner_up").is_null())
    return fmt::format("{} is the only configuration that ran within the memory headroom", knobs_text(w.at("knobs")));
  const auto& u = j.at("runner_up");
  const auto bytes = [](const nlohmann::ordered_json& v) {
    const double b = v.get<double>();
    return b >= 1e9 ? fmt::format("{:.1f} GB", b / 1e9) : fmt::format("{:.1f} MB", b / 1e6);
  };
  std::vector<std::string> differs;
  for (const auto& key : j.at("differs_in")) {
    const auto k = key.get<std::string>();
    differs.push_back(fmt::format("{} {} vs {}", k, value_text(w.at("knobs").at(k)), value_text(u.at("knobs").at(k))));
  }
  return fmt::format(
      "{}; the runner-up differs in {}: step {} vs {} ({:.1f} % faster), exposed communication {} vs {}, "
      "pipeline bubble {} vs {}, memory {} vs {}",
      knobs_text(w.at("knobs")),
      differs.empty() ? std::string("nothing (same knobs)") : fmt::format("{}", fmt::join(differs, ", ")),
      duration_text(w.at("step_time_s").get<double>()), duration_text(u.at("step_time_s").get<double>()),
      100 * j.at("faster_by").get<double>(), duration_text(w.at("exposed_comm_s").get<double>()),
      duration_text(u.at("exposed_comm_s").get<double>()), duration_text(w.at("bubble_s").get<double>()),
      duration_text(u.at("bubble_s").get<double>()), bytes(w.at("memory_B")), bytes(u.at("memory_B")));
}

}  // namespace clearfog::compare
