#include "compare/CompareTable.hpp"

#include <fmt/format.h>

#include <cmath>

#include "compare/WhyBest.hpp"

namespace clearfog::compare {
namespace {

/// Step times at step and search fidelity further apart than this get a note under the table.
constexpr double kFidelityNoteShare = 0.05;
constexpr std::size_t kNameWidth = 20;
/// Off-chip memory this many times slower than on-chip SRAM makes a design SRAM-centric: what does
/// not stay on chip is then streamed at a small fraction of the speed the kernel model assumes.
constexpr double kSramCentricRatio = 100;

std::string gb(double bytes) { return fmt::format("{:.1f}", bytes / 1e9); }

/// 4 significant digits without an exponent: 20600 rather than 2.06e+04.
std::string figure(double v) { return v >= 1e4 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v); }



std::string counts(const PlatformResult& r) {
  return fmt::format("{}: {}/{}/{}", r.considered, r.simulated, r.oom, r.invalid);
}

/// The training knobs of a run in a few characters: "Z1 full SP fused bf16".
std::string knobs_cell(const nlohmann::ordered_json& s) {
  const auto k = knobs_of(s);
  return fmt::format("Z{} {}{} {} {}", k.at("zero_stage").get<int>(), k.at("recompute").get<std::string>(),
                     k.at("sequence_parallel").get<bool>() ? " SP" : "", k.at("attention").get<std::string>(),
                     k.at("precision").get<std::string>());
}

std::string status_of(const PlatformResult& r) {
  if (!r.best.is_null()) return "ok";
  if (!r.fastest_over_headroom.is_null()) return "over_headroom";
  return r.oom > 0 && r.simulated == 0 ? "oom" : "error";
}

std::string short_name(const std::string& part) {
  if (part == "memory bandwidth") return "memory bw";
  if (part == "pipeline bubble") return "bubble";
  return part;
}

/// The dominant bound and the runner-up with their shares of the step: "compute 62%, memory bw 30%".
std::string bound_text(const PlatformResult& r) {
  if (r.best.is_null()) return r.oom > 0 && r.simulated == 0 ? "memory capacity" : "-";
  const auto parts = r.best_breakdown.ranked_parts();
  return fmt::format("{} {:.0f}%, {} {:.0f}%", short_name(parts[0].first), 100 * parts[0].second,
                     short_name(parts[1].first), 100 * parts[1].second);
}

/// Why the search stopped early (the same for every platform), empty when it ran to its end.
std::string stopped_text(const std::vector<PlatformResult>& results) {
  return results.empty() ? std::string() : results.front().stopped;
}

/// What the table's columns mean, under it.
std::string legend_text(const CompareRequest& req, const std::vector<PlatformResult>& results) {
  std::string o;
  o += req.confirm_at_step && stopped_text(results).empty() ? "\nstep time: the fastest configurations of the fluid-fidelity search re-simulated at step "
                              "fidelity; the fastest of those is shown.\n"
                            : fmt::format("\nstep time: at the search's fluid fidelity ({}).\n",
                                          req.confirm_at_step ? "interrupted before its confirmation" : "--no-confirm");
  o += "samples/s/kW: accelerator power.peak x devices (n/a: the accelerator file gives no peak "
       "power).\nMFU: model FLOPs / (step time x devices x peak of the training precision).\n"
       "memory/dev: the memory estimate of the busiest device and the device memory; on-chip: whether that\n"
       "estimate fits in the accelerator's on-chip SRAM (sram.shared).\n"
       "bound: the two largest parts of the busiest device's step: compute-bound and memory-bandwidth-bound\n"
       "kernels (as clearfog run --ops classes them), pipeline bubble, interconnect (exposed communication).\n"
       "knobs: ZeRO stage, recomputation, SP (sequence parallelism), attention kernels, precision.\n"
       "configs: configurations considered (layout x micro-batch x knobs): simulated / skipped because the\n"
       "memory estimate exceeds the device / refused by the validator.\n";
  o += fmt::format("A best configuration leaves {:.0f}% of the device memory free (memory headroom).\n",
                   100 * req.memory_headroom);
  return o;
}

}  // namespace

std::string short_platform_name(const std::string& name) {
  const auto paren = name.find(" (");
  return paren == std::string::npos || paren == 0 ? name : name.substr(0, paren);
}

std::string render_comparison(const CompareRequest& req, const std::vector<PlatformResult>& results) {
  const int global_batch = results.empty() ? 0 : results.front().global_batch;
  std::string o = fmt::format("Workload {}, global batch {}: the fastest configuration per platform that fits in device "
                              "memory\n\n",
                              req.workload.filename().string(), global_batch);
  if (const auto stopped = stopped_text(results); !stopped.empty())
    o += fmt::format("PARTIAL: the search was {}; each row is the fastest configuration simulated before, at "
                     "the search fidelity.\n\n",
                     stopped);
  o += fmt::format("{:<{}} {:>3} {:>3} {:>3} {:>3} {:>3} {:<26} {:>10} {:>13} {:>12} {:>6} {:>22} {:>7}  {:<32} {}\n",
                   "platform", kNameWidth, "dev", "tp", "pp", "dp", "mb", "knobs", "step time", "samples/s/dev", "samples/s/kW",
                   "MFU", "memory/dev (free)", "on-chip", "bound (share of step)", "configs: sim/oom/invalid");
  for (const auto& r : results) {
    const std::string name = short_platform_name(r.platform).substr(0, kNameWidth);
    if (r.best.is_null()) {
      std::string why = "no configuration ran";
      if (!r.fastest_over_headroom.is_null()) {
        const auto& m = r.fastest_over_headroom.at("memory");
        why = fmt::format("fits only above the {:.0f}% headroom: {} of {} GB", 100 * req.memory_headroom,
                          gb(m.at("total_B").get<double>()), gb(m.at("capacity_B").get<double>()));
      } else if (!r.least_memory.is_null()) {
        const auto& m = r.least_memory.at("memory");
        why = fmt::format("none fits: at least {} of {} GB", gb(m.at("total_B").get<double>()),
                          gb(m.at("capacity_B").get<double>()));
      }
      o += fmt::format("{:<{}} {:>3} {:<118}  {:<32} {}\n", name, kNameWidth, r.devices, why, bound_text(r), counts(r));
      continue;
    }
    const auto& s = r.best;
    const auto& par = s.at("parallelism");
    const auto& mem = s.at("memory");
    const double rate = s.at("samples_per_s").get<double>();
    const double total = mem.at("total_B").get<double>();
    const double capacity = mem.at("capacity_B").get<double>();
    o += fmt::format("{:<{}} {:>3} {:>3} {:>3} {:>3} {:>3} {:<26} {:>10} {:>13} {:>12} {:>5.1f}% {:>22} {:>7}  {:<32} {}\n",
                     name, kNameWidth, r.devices, par.at("tp").get<int>(), par.at("pp").get<int>(),
                     par.at("dp").get<int>(), s.at("training").at("micro_batch").get<int>(), knobs_cell(s),
                     duration_text(s.at("step_time_s").get<double>()), figure(rate / r.devices),
                     r.power_W > 0 ? figure(rate / (r.power_W / 1e3)) : std::string("n/a"),
                     100 * s.at("mfu").get<double>(),
                     fmt::format("{} of {} GB ({:.0f}%)", gb(total), gb(capacity), 100 * (1 - total / capacity)),
                     r.sram_B > 0 ? (total <= r.sram_B ? "yes" : "no") : "-", bound_text(r), counts(r));
  }

  o += legend_text(req, results);

  o += "\nwhy each best (its knobs; against the runner-up, the next fastest at the same fidelity; winner vs "
       "runner-up):\n";
  for (const auto& r : results)
    if (!r.best.is_null()) o += fmt::format("* {}: {}.\n", short_platform_name(r.platform), why_best_text(r));

  o += "\nplatforms:\n";
  for (const auto& r : results) o += fmt::format("  {:<{}} {} ({})\n", short_platform_name(r.platform) + ":", kNameWidth + 1,
                                                 r.platform, r.platform_file.filename().string());

  std::string notes;
  for (const auto& r : results) {
    if (!r.best.is_null() && r.fidelity == "step" && r.search_step_s > 0) {
      const double step = r.best.at("step_time_s").get<double>();
      if (std::abs(step - r.search_step_s) > kFidelityNoteShare * step)
        notes += fmt::format("* {}: step time {} at step fidelity, {} at fluid fidelity.\n", short_platform_name(r.platform),
                             duration_text(step), duration_text(r.search_step_s));
    }
    if (!r.best.is_null() && r.fidelity != "step")
      notes += fmt::format("* {}: reported at {} fidelity.\n", short_platform_name(r.platform), r.fidelity);
    if (!r.least_memory.is_null()) {
      const auto& p = r.least_memory.at("parallelism");
      const auto& m = r.least_memory.at("memory");
      notes += fmt::format(
          "* {}: no configuration fits. The least memory, tp {} pp {} dp {} micro-batch {} with ZeRO {} and "
          "recompute {}, needs {} GB per device (weights {}, gradients {}, optimizer {}, activations {}, buffers {}) "
          "of {} GB.\n",
          short_platform_name(r.platform), p.at("tp").get<int>(), p.at("pp").get<int>(), p.at("dp").get<int>(),
          p.at("micro_batch").get<int>(), p.at("zero_stage").get<int>(), p.at("recompute").get<std::string>(), gb(m.at("total_B").get<double>()), gb(m.at("weights_B").get<double>()),
          gb(m.at("gradients_B").get<double>()), gb(m.at("optimizer_B").get<double>()),
          gb(m.at("activations_B").get<double>()), gb(m.at("buffers_B").get<double>()),
          gb(m.at("capacity_B").get<double>()));
    }
    if (!r.best.is_null() && r.best_breakdown.dominant() == "compute" && r.best_breakdown.compute_efficiency < 0.5)
      notes += fmt::format("* {}: the compute-bound kernels reach only {:.0f}% of peak on average (clearfog run --ops): "
                           "their tiles fill few of the compute units.\n",
                           short_platform_name(r.platform), 100 * r.best_breakdown.compute_efficiency);
    if (!r.best.is_null() && r.sram_B > 0 && r.dram_Bps > 0 && r.sram_Bps > kSramCentricRatio * r.dram_Bps) {
      const double total = r.best.at("memory").at("total_B").get<double>();
      if (total > r.sram_B)
        notes += fmt::format(
            "* {}: the training state per device ({} GB) exceeds the on-chip SRAM ({} GB). The kernel model prices each "
            "kernel by its own working set and does not charge keeping the rest in off-chip memory ({:.3g} GB/s): "
            "moving the excess even once per step would add at least {} to the {} step.\n",
            short_platform_name(r.platform), gb(total), gb(r.sram_B), r.dram_Bps / 1e9, duration_text((total - r.sram_B) / r.dram_Bps),
            duration_text(r.best.at("step_time_s").get<double>()));
    }
    if (!r.fastest_over_headroom.is_null()) {
      const auto& f = r.fastest_over_headroom;
      const auto& m = f.at("memory");
      notes += fmt::format("* {}: no configuration fits under the {:.0f}% memory headroom. The fastest that fits the "
                           "device, {} ({}), needs {} of {} GB ({:.1f}%); --memory-headroom 0 would choose it.\n",
                           short_platform_name(r.platform), 100 * req.memory_headroom, knobs_cell(f),
                           fmt::format("tp {} pp {} dp {} mb {}", f.at("parallelism").at("tp").get<int>(),
                                       f.at("parallelism").at("pp").get<int>(), f.at("parallelism").at("dp").get<int>(),
                                       f.at("training").at("micro_batch").get<int>()),
                           gb(m.at("total_B").get<double>()), gb(m.at("capacity_B").get<double>()),
                           100 * m.at("total_B").get<double>() / m.at("capacity_B").get<double>());
    }
    if (r.failed > 0) notes += fmt::format("* {}: {} simulations failed; the first: {}\n", short_platform_name(r.platform), r.failed, r.failure);
    if (r.best.is_null() && r.simulated == 0 && r.oom == 0 && !r.invalid_example.empty() && r.stopped.empty())
      notes += fmt::format("* {}: every configuration was refused, e.g. {}\n", short_platform_name(r.platform), r.invalid_example);
  }
  if (!notes.empty()) o += "\n" + notes;
  return o;
}

nlohmann::ordered_json comparison_json(const CompareRequest& req, const std::vector<PlatformResult>& results) {
  nlohmann::ordered_json j;
  j["workload"] = req.workload.string();
  j["global_batch"] = results.empty() ? 0 : results.front().global_batch;
  j["search_fidelity"] = config::fidelity_name(req.search_fidelity);
  j["memory_headroom"] = req.memory_headroom;
  j["complete"] = stopped_text(results).empty();
  j["stopped"] = stopped_text(results);
  auto& set = j["set"] = nlohmann::ordered_json::object();
  for (const auto& o : req.set) set[o.key] = o.value;
  auto& list = j["platforms"] = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    nlohmann::ordered_json p;
    p["platform"] = r.platform;
    p["file"] = r.platform_file.string();
    p["devices"] = r.devices;
    p["power_W"] = r.power_W;
    p["sram_B"] = r.sram_B;
    p["sram_Bps"] = r.sram_Bps;
    p["dram_Bps"] = r.dram_Bps;
    p["capacity_B"] = r.capacity_B;
    p["configurations"] = {{"considered", r.considered}, {"simulated", r.simulated}, {"oom", r.oom},
                           {"invalid", r.invalid},       {"failed", r.failed},       {"over_headroom", r.over_headroom}};
    p["invalid_example"] = r.invalid_example;
    p["failure"] = r.failure;
    p["status"] = status_of(r);
    p["bound"] = r.best.is_null() ? (p["status"] == "ok" ? "-" : p["status"] == "error" ? "-" : "memory capacity")
                                  : r.best_breakdown.dominant();
    p["fidelity"] = r.fidelity;
    p["search_step_time_s"] = r.search_step_s;
    p["best"] = r.best;
    p["knobs"] = r.best.is_null() ? nlohmann::ordered_json() : knobs_of(r.best);
    p["why"] = why_best_json(r);
    p["why_text"] = why_best_text(r);
    p["fastest_over_headroom"] = r.fastest_over_headroom;
    p["breakdown"] = r.best.is_null() ? nlohmann::ordered_json() : breakdown_json(r.best_breakdown);
    p["least_memory"] = r.least_memory;
    p["configurations_tried"] = r.configurations;
    list.push_back(std::move(p));
  }
  return j;
}

}  // namespace clearfog::compare
