// `clearfog sweep FILE --jobs N --out DIR`: run every point of a sweep file in child processes and
// collect DIR/points/<id>.json and DIR/results.csv (docs/sweeps.md).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iostream>

#include "app/Command.hpp"
#include "app/SlurmSweep.hpp"
#include "core/Errors.hpp"
#include "core/Interrupt.hpp"
#include "core/OutputPaths.hpp"
#include "core/Quote.hpp"
#include "sweep/Best.hpp"
#include "sweep/Plot.hpp"
#include "sweep/SweepChecks.hpp"
#include "sweep/SweepReport.hpp"
#include "sweep/SweepRunner.hpp"

namespace clearfog::app {
namespace {

/// Points simulated at the same time: each is a process that may hold gigabytes.
constexpr int kMaxJobs = 256;

/// A name made safe for a file name: anything but letters, digits, '.', '_' and '-' becomes '_'.
std::string file_part(const std::string& name) {
  std::string out = name.substr(0, 64);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return out;
}

/// "METRIC:AXIS": METRIC one of sweep::plot_metrics(), AXIS one of the sweep's axes.
std::pair<std::string, std::string> parse_plot(const std::string& text, const sweep::SweepSpec& spec) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw ConfigError({{{"--plot", 0, 0}, "", fmt::format("must be METRIC:AXIS, got {}", quote(text))}});
  std::string metric = text.substr(0, colon);
  sweep::check_plot_metric(metric);
  std::string axis = text.substr(colon + 1);
  std::vector<std::string> axes;
  for (const auto& a : spec.axes) axes.push_back(a.key);
  if (std::find(axes.begin(), axes.end(), axis) == axes.end())
    throw ConfigError({{{"--plot", 0, 0}, "",
                        fmt::format("{} is not an axis of the sweep; its axes: {}", quote(axis), fmt::join(axes, ", "))}});
  return {std::move(metric), std::move(axis)};
}

}  // namespace

Command add_sweep_command(CLI::App& app) {
  struct Options {
    std::string file;
    int jobs = 1;
    std::string out;
    double timeout_s = 0;
    bool resume = false;
    std::string shard;
    std::string best;
    std::vector<std::string> plots;
    std::string slurm;
    std::string html_file;
    bool comm_profile = false;
    bool simulate_oom = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("sweep", "run a scenario over the points of a sweep file, one process per point");
  cmd->add_option("file", o->file, "sweep YAML file (docs/sweeps.md)")->required();
  cmd->add_option("--jobs,-j", o->jobs, "points simulated at the same time")->check(CLI::Range(1, kMaxJobs));
  cmd->add_option("--out", o->out, "output directory (points/, results.csv)")->required();
  cmd->add_option("--timeout", o->timeout_s, "seconds a point may run before it is killed (0: no limit)");
  cmd->add_flag("--resume", o->resume, "keep the points already in DIR/points and run the others");
  cmd->add_option("--shard", o->shard, "i/n: run only the points with id % n == i (job arrays)");
  cmd->add_option("--best", o->best, "print the top configurations by throughput, mfu or step_time")
      ->check(CLI::IsMember({"throughput", "mfu", "step_time"}));
  cmd->add_option("--plot", o->plots, "METRIC:AXIS, e.g. throughput:parallelism.dp (METRIC: throughput, mfu, step_time or a numeric summary key); writes DIR/plot-METRIC-AXIS.svg");
  cmd->add_option("--html", o->html_file,
                  "write a self-contained HTML page (sortable results table, plots against each axis, Pareto "
                  "front) to FILE.html; `clearfog report DIR` writes it later");
  cmd->add_flag("--comm-profile", o->comm_profile,
                "also write each point's communication profile to DIR/comm/ID/ and its figures (comm.*) to results.csv");
  cmd->add_flag("--simulate-oom", o->simulate_oom,
                "also simulate points whose memory estimate exceeds the device memory (default: recorded as oom "
                "with the estimate, not simulated)");
  auto* slurm = cmd->add_option("--slurm", o->slurm,
                                "N: write DIR/sweep.sbatch (a Slurm job array of N shards) and DIR/merge.sh, "
                                "print how to submit them, run nothing");
  for (const char* other : {"--shard", "--best", "--plot", "--html", "--comm-profile"}) slurm->excludes(other);
  return {cmd, [o, slurm] {
            check_timeout_option(o->timeout_s);
            const auto spec = sweep::load_sweep(o->file);
            std::vector<std::pair<std::string, std::string>> plots;
            for (const auto& p : o->plots) plots.push_back(parse_plot(p, spec));
            // Every axis key and value before the first point: a typo fails here, not in every point.
            sweep::check_sweep_values(spec);
            if (!o->html_file.empty()) {
              prepare_output_directory(o->out, "--out");  // --html DIR/report.html lies in it
              check_output_file(o->html_file, "--html");
            }
            if (slurm->count() > 0) return write_slurm_sweep(spec, {o->slurm, o->out, o->jobs, o->timeout_s});
            sweep::SweepOptions opt;
            opt.jobs = o->jobs;
            opt.out_dir = o->out;
            opt.timeout_s = o->timeout_s;
            opt.resume = o->resume;
            opt.comm_profile = o->comm_profile;
            opt.simulate_oom = o->simulate_oom;
            if (!o->shard.empty()) std::tie(opt.shard_index, opt.shard_count) = sweep::parse_shard(o->shard);
            opt.progress_bar = ::isatty(STDERR_FILENO) != 0;
            const InterruptGuard interrupts;
            const auto tally = sweep::run_sweep(spec, opt);
            std::cout << fmt::format("sweep {}: {} points ({} already done), {} failed; results in {}\n", spec.name,
                                     tally.total, tally.already, tally.failed,
                                     (std::filesystem::path(o->out) / "results.csv").string());
            const auto points = sweep::read_points(o->out);
            if (!o->best.empty()) std::cout << '\n' << sweep::render_best(points, o->best);
            for (const auto& [metric, axis] : plots) {
              const auto file =
                  std::filesystem::path(o->out) / fmt::format("plot-{}-{}.svg", file_part(metric), file_part(axis));
              sweep::write_file_atomically(file, sweep::sweep_plot_svg(points, metric, axis, spec.name));
              std::cout << "wrote " << file.string() << '\n';
            }
            if (!o->html_file.empty()) {
              sweep::write_file_atomically(o->html_file, sweep::sweep_report_html(o->out, "--out"));
              std::cout << "wrote " << o->html_file << '\n';
            }
            return kExitOk;
          }};
}

}  // namespace clearfog::app
