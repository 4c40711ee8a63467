#include "sweep/SweepRunner.hpp"

#include "config/WorkloadTypeSchema.hpp"
#include "sweep/SweepManifest.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "config/ConfigLoader.hpp"
#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "core/Interrupt.hpp"
#include "core/OutputPaths.hpp"
#include "core/Quote.hpp"
#include "driver/ScenarioRun.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "report/CommProfile.hpp"
#include "report/Summary.hpp"

namespace clearfog::sweep {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(10);

std::string one_line(std::string text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      if (i + 1 < text.size()) out += "; ";
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string oom_message(const parallel::MemoryEstimate& memory) {
  return fmt::format("memory estimate {:.4g} GB exceeds the device's {:.4g} GB", memory.total_B() / 1e9,
                     memory.capacity_B / 1e9);
}

PointRecord make_record(const SweepPoint& point, const std::string& status, const std::string& message) {
  PointRecord r;
  r["id"] = point.id;
  auto& axes = r["axes"] = PointRecord::object();
  for (const auto& [k, v] : point.axes) axes[k] = v;
  r["status"] = status;
  r["message"] = one_line(message);
  return r;
}

/// The validator's dp*tp*pp-versus-devices diagnostic (config/SemanticChecks.cpp).
bool is_device_mismatch(const ConfigError& e) {
  return std::any_of(e.diagnostics().begin(), e.diagnostics().end(), [](const Diagnostic& d) {
    return d.key == "parallelism.dp" && d.message.find("must equal the platform") != std::string::npos;
  });
}

std::string format_duration(double s) {
  const int total = static_cast<int>(s + 0.5);
  if (total >= 3600) return fmt::format("{}h{:02}m", total / 3600, total % 3600 / 60);
  if (total >= 60) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}s", total);
}

/// results.csv is rebuilt from every point: at most this often, and once at the end, so that a
/// long sweep does not spend its time rewriting it (quadratic in the points).
constexpr auto kCsvInterval = std::chrono::seconds(1);

void remove_damaged(const DamagedPoint& d) {
  std::error_code ec;
  std::filesystem::remove_all(d.file, ec);
  if (ec) throw Error(fmt::format("cannot remove the damaged point file {}: {}", d.file.string(), ec.message()));
}

struct Running {
  const SweepPoint* point;
  Clock::time_point start;
  bool killed_for_timeout = false;
};

}  // namespace

namespace {

/// Writes the point's communication profile into `dir` (made afresh) and returns its JSON.
nlohmann::ordered_json write_point_comm_profile(const std::filesystem::path& dir, const SweepPoint& point,
                                                const config::ScenarioSpec& scenario, const driver::ScenarioRun& run) {
  const auto profile = report::build_comm_profile(run.step.plan, run.simulation, *run.collectives,
                                                  scenario.platform.device_count(), scenario.parallelism.zero_stage);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // Short enough for the chart's title: the last part of each key, a file's stem for a path.
  std::string title = fmt::format("point {}", point.id);
  for (const auto& [key, label] : point.axes) {
    const std::string name = key.substr(key.rfind('.') + 1);
    const bool path = label.ends_with(".yaml") || label.ends_with(".yml");
    title += fmt::format("{} {} {}", title.ends_with(std::to_string(point.id)) ? ":" : ",", name,
                         path ? std::filesystem::path(label).stem().string() : label);
  }
  report::write_comm_profile(dir, profile, title);
  return report::comm_profile_json(profile);
}

}  // namespace

PointRecord evaluate_point(const SweepSpec& spec, const SweepPoint& point, const std::filesystem::path& comm_dir,
                           bool simulate_oom) {
  try {
    const std::optional<double> cost = spec.budget ? std::optional(spec.budget->value(point.overrides)) : std::nullopt;
    if (cost && *cost > spec.budget->max)
      return make_record(point, "skipped",
                         fmt::format("budget: {} = {:.6g} exceeds its max {:.6g}", spec.budget->name, *cost,
                                     spec.budget->max));
    const auto scenario = config::load_scenario(spec.base, point.overrides);
    // The estimate is the one the run reports; a point that cannot fit is often the slowest to
    // simulate (the largest micro-batch, no recomputation), and its time would not be reachable.
    if (!simulate_oom && !config::workload_traits(scenario.workload.type).imported_programs) {
      const auto memory = parallel::estimate_memory(scenario);
      if (!memory.fits()) {
        auto r = make_record(point, "oom", oom_message(memory) + "; not simulated (--simulate-oom runs it)");
        r["summary"] = {{"memory", report::memory_json(memory)}};
        return r;
      }
    }
    const auto run = driver::run_scenario(scenario);
    auto summary = report::summary_json(scenario, run.metrics);
    if (cost) summary[spec.budget->name] = *cost;
    if (!comm_dir.empty()) summary["comm"] = write_point_comm_profile(comm_dir / std::to_string(point.id), point, scenario, run);
    const bool fits = run.metrics.memory.fits();
    auto r = make_record(point, fits ? "ok" : "oom", fits ? "" : oom_message(run.metrics.memory));
    r["summary"] = summary;
    return r;
  } catch (const ConfigError& e) {
    if (spec.has_filter(SweepFilter::DevicesMatch) && is_device_mismatch(e))
      return make_record(point, "skipped", "filter devices_match: dp*tp*pp differs from the device count");
    std::string message;
    for (const auto& d : e.diagnostics()) message += (message.empty() ? "" : "; ") + d.str();
    return make_record(point, "error", message);
  } catch (const std::exception& e) {
    return make_record(point, "error", e.what());
  }
}

std::pair<int, int> parse_shard(const std::string& text) {
  const auto number = [](std::string_view digits) -> std::optional<int> {
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    return value;
  };
  const auto slash = text.find('/');
  const auto i = slash == std::string::npos ? std::nullopt : number(std::string_view(text).substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : number(std::string_view(text).substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 0 || *i >= *n)
    throw ConfigError({{{"--shard", 0, 0}, "", fmt::format("must be i/n with 0 <= i < n, got {}", quote(text))}});
  return {*i, *n};
}

namespace {

/// The output directory made ready for the sweep: the points a resumed sweep keeps (damaged ones
/// removed, to run again), or none for a fresh one; the manifest written; stray temp files gone.
std::map<int, PointRecord> prepare_sweep_directory(const SweepSpec& spec, const SweepOptions& o) {
  prepare_output_directory(o.out_dir / "points", "--out");
  std::map<int, PointRecord> done;
  if (o.resume) {
    check_resumable(o.out_dir, spec);
    auto files = read_point_files(o.out_dir);
    // A damaged point (a disk filled up, a hand edit) is not trusted: it runs again.
    for (const auto& d : files.damaged) {
      std::cerr << fmt::format("{}: damaged point file ({}); the point runs again\n", d.file.string(), d.reason);
      remove_damaged(d);
    }
    done = std::move(files.points);
  } else {
    // A fresh sweep: forget points from an earlier run in the same directory.
    const auto files = read_point_files(o.out_dir);
    for (const auto& [id, p] : files.points) std::filesystem::remove(point_file(o.out_dir, id));
    for (const auto& d : files.damaged) remove_damaged(d);
    std::filesystem::remove_all(o.out_dir / "comm");
  }
  write_manifest(o.out_dir, spec);
  // Temp files of a killed sweep are never complete points.
  for (const auto& entry : std::filesystem::directory_iterator(o.out_dir / "points"))
    if (entry.path().filename().string().starts_with(".")) std::filesystem::remove(entry.path());

  return done;
}

/// The record of a finished child: the point file it wrote, or what became of it (timeout, signal,
/// exit without a result).
PointRecord record_of_finished(const Running& r, int status, const std::filesystem::path& file,
                               const SweepOptions& o) {
  // The child writes its point itself; the parent writes it only when the child could not.
  PointRecord record;
  if (std::filesystem::exists(file)) {
    std::ifstream f(file);
    record = PointRecord::parse(f, nullptr, false);
    if (record.is_discarded()) record = make_record(*r.point, "error", "unreadable result file");
  } else if (r.killed_for_timeout) {
    record = make_record(*r.point, "timeout", fmt::format("no result after {:g} s", o.timeout_s));
  } else if (WIFSIGNALED(status)) {
    record = make_record(*r.point, "error",
                         fmt::format("process killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
  } else {
    record = make_record(*r.point, "error", fmt::format("process exited with code {} without a result",
                                                        WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
  return record;
}

}  // namespace

SweepTally run_sweep(const SweepSpec& spec, const SweepOptions& o) {
  const auto all = spec.points();
  std::map<int, PointRecord> done = prepare_sweep_directory(spec, o);

  SweepTally tally;
  std::deque<const SweepPoint*> pending;
  for (const auto& p : all) {
    if (p.id % o.shard_count != o.shard_index) continue;
    ++tally.total;
    if (done.count(p.id))
      ++tally.already;
    else
      pending.push_back(&p);
  }
  const auto csv = o.out_dir / "results.csv";
  write_file_atomically(csv, results_csv(done));

  const auto started = Clock::now();
  auto csv_written = started;
  const int to_run = static_cast<int>(pending.size());
  auto report = [&](const PointRecord& r, double seconds) {
    const int finished = tally.ran;
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    const double eta = finished > 0 ? elapsed / finished * (to_run - finished) : 0;
    if (o.progress_bar) {
      constexpr int kBarWidth = 30;
      const int filled = to_run > 0 ? kBarWidth * finished / to_run : kBarWidth;
      std::cerr << fmt::format("\r[{}{}] {}/{} points, {} failed, ETA {}   ", std::string(filled, '#'),
                               std::string(kBarWidth - filled, '.'), finished + tally.already, tally.total,
                               tally.failed, format_duration(eta))
                << std::flush;
      if (finished == to_run) std::cerr << '\n';
    } else {
      std::cerr << fmt::format("[{}/{}] point {} {} ({:.1f} s){}{}\n", finished + tally.already, tally.total,
                               r.at("id").get<int>(), r.at("status").get<std::string>(), seconds,
                               r.at("message").get<std::string>().empty() ? "" : ": ",
                               r.at("message").get<std::string>().substr(0, 200));
    }
  };

  std::map<pid_t, Running> running;
  const int jobs = std::max(1, o.jobs);
  // Ctrl-C or SIGTERM: the running points stop (they run again on --resume), the finished ones are
  // in points/ and results.csv.
  const auto stop_if_interrupted = [&] {
    if (interrupt_signal() == 0) return;
    for (const auto& [child, r] : running) ::kill(child, SIGKILL);
    for (const auto& [child, r] : running) ::waitpid(child, nullptr, 0);
    write_file_atomically(csv, results_csv(done));
    throw_if_interrupted(fmt::format("{} of {} points were done ({} kept in {}; --resume runs the others)",
                                     tally.ran + tally.already, tally.total, done.size(), o.out_dir.string()));
  };
  while (!pending.empty() || !running.empty()) {
    stop_if_interrupted();
    while (static_cast<int>(running.size()) < jobs && !pending.empty()) {
      const SweepPoint* p = pending.front();
      pending.pop_front();
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid < 0) throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
      if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed sweep leaves no orphan simulations behind
        reset_interrupt_handlers();
        int code = 0;
        try {
          write_point(o.out_dir, evaluate_point(spec, *p, o.comm_profile ? o.out_dir / "comm" : std::filesystem::path(),
                                                o.simulate_oom));
        } catch (...) {
          code = 3;
        }
        ::_exit(code);  // no atexit handlers, no SimGrid teardown in the child
      }
      running[pid] = {p, Clock::now()};
    }

    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno != EINTR && errno != ECHILD) throw Error(fmt::format("waitpid: {}", std::strerror(errno)));
    if (pid <= 0) {
      if (o.timeout_s > 0)
        for (auto& [child, r] : running)
          if (!r.killed_for_timeout &&
              std::chrono::duration<double>(Clock::now() - r.start).count() > o.timeout_s) {
            ::kill(child, SIGKILL);
            r.killed_for_timeout = true;
          }
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Running r = it->second;
    running.erase(it);
    const double seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
    const auto file = point_file(o.out_dir, r.point->id);
    // A point the same Ctrl-C killed is not a failed point: it runs again on --resume.
    if (interrupt_signal() != 0 && !std::filesystem::exists(file)) continue;
    PointRecord record = record_of_finished(r, status, file, o);
    if (!std::filesystem::exists(file)) write_point(o.out_dir, record);
    const auto st = record.at("status").get<std::string>();
    if (st == "error" || st == "timeout") ++tally.failed;
    ++tally.ran;
    done[r.point->id] = std::move(record);
    if (Clock::now() - csv_written >= kCsvInterval) {
      write_file_atomically(csv, results_csv(done));
      csv_written = Clock::now();
    }
    report(done[r.point->id], seconds);
  }
  write_file_atomically(csv, results_csv(done));
  return tally;
}

}  // namespace clearfog::sweep
