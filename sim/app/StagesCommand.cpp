// `clearfog stages --workload W --accelerator A.yaml:COUNT ... --stages S`: where to cut a
// pipeline over devices of different kinds, and which device runs each stage. Every block of the
// workload is priced on every accelerator (forward and backward, the blocked-GEMM model), the
// boundary activations cross --link-bandwidth both ways, and the exhaustive search (where small
// enough), simulated annealing and Shisha's heuristic are compared: bottleneck, gap to the
// optimum, plans evaluated (and the search times on stderr). docs/heterogeneous-pipelines.md.
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "core/Units.hpp"
#include "parallel/StageProblem.hpp"

namespace clearfog::app {

namespace {

struct Options {
  std::string workload;
  std::vector<std::string> accelerators;  // FILE:COUNT
  std::string platform;                   // or: the kinds and devices of a (mixed) platform
  int stages = 2;
  int micro_batch = 1;
  std::string precision = "bf16";
  std::string link;  // empty: the platform's link between nodes, or 25 GB/s
  std::uint64_t seed = 1;
  int steps = 20000;
  std::string format = "text";
};

struct KindOption {
  std::string file;  // the accelerator file, or (--platform) the accelerator's name
  int count = 0;
  std::optional<config::AcceleratorSpec> spec;  // --platform: loaded with it
};

/// A platform's kinds of device (platform key `mixed`) and how many devices of each it has.
std::vector<KindOption> platform_kinds(const config::PlatformSpec& platform) {
  std::vector<KindOption> kinds;
  for (int k = 0; k < platform.kind_count(); ++k) {
    int count = 0;
    for (int d = 0; d < platform.device_count(); ++d) count += platform.kind_of_device(d) == k;
    if (count > 0) kinds.push_back({platform.accelerator_of_kind(k).name, count, platform.accelerator_of_kind(k)});
  }
  return kinds;
}

/// The link between stages: --link-bandwidth, else the platform's NIC (its node link on one node).
std::string link_text(const Options& o) {
  if (!o.link.empty() || o.platform.empty()) return o.link.empty() ? "25 GB/s" : o.link;
  const auto platform = config::load_platform(o.platform);
  const double Bps = platform.fabric.nodes > 1 ? platform.fabric.nic.bandwidth_Bps : platform.node.link.bandwidth_Bps;
  return units::format(Bps, units::Dimension::Bandwidth);
}

KindOption parse_kind(const std::string& text) {
  const auto colon = text.rfind(':');
  const std::string count = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (colon == std::string::npos || count.empty() || count.find_first_not_of("0123456789") != std::string::npos ||
      count.size() > 4 || std::stoi(count) < 1)
    throw option_error("--accelerator", fmt::format("expected FILE:COUNT with a count of 1 to 9999, got \"{}\"", text));
  return {text.substr(0, colon), std::stoi(count), std::nullopt};
}

/// Every block of the workload priced on every kind, and the boundary transfers.
parallel::StageSearchProblem build_problem(const Options& o, const std::vector<KindOption>& kinds) {
  const auto dtype = parse_dtype(o.precision);
  if (!dtype) throw option_error("--precision", fmt::format("unknown data type \"{}\"", o.precision));
  double link_Bps = 0;
  try {
    link_Bps = units::parse(link_text(o), units::Dimension::Bandwidth);
  } catch (const units::UnitError& e) {
    throw option_error("--link-bandwidth", e.what());
  }
  if (!(link_Bps > 0)) throw option_error("--link-bandwidth", "must be > 0");
  std::vector<parallel::DeviceKind> devices;
  for (const auto& kind : kinds) {
    devices.push_back({kind.spec ? *kind.spec : config::load_accelerator(kind.file), kind.count});
    if (!devices.back().accelerator.supports(*dtype))
      throw option_error("--precision", fmt::format("accelerator \"{}\" ({}) has no {} peak; pick a --precision it "
                                                    "runs (its file's peak keys)",
                                                    devices.back().accelerator.name, kind.file, o.precision));
  }
  const auto workload = config::load_workload(o.workload);
  try {
    return parallel::stage_problem(workload, devices, o.stages, o.micro_batch, *dtype, link_Bps);
  } catch (const Error& e) {
    // A workload type that cannot train in the precision says why when it is described.
    if (*dtype == DType::fp8) throw option_error("--precision", e.what());
    throw;
  }
}

struct Timed {
  std::string name;
  std::optional<parallel::SearchResult> result;
  double seconds = 0;
  std::string note;
};

Timed timed(std::string name, const std::function<parallel::SearchResult()>& search) {
  Timed t{std::move(name), std::nullopt, 0, ""};
  const auto start = std::chrono::steady_clock::now();
  try {
    t.result = search();
  } catch (const Error& e) {
    t.note = e.what();  // exhaustive: too large
  }
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

double whole_model_s(const parallel::StageSearchProblem& p, std::size_t kind) {
  double total = 0;
  for (double t : p.layer_s[kind]) total += t;
  return total;
}

/// The searches' table; the heuristic's plan stage by stage on the last line.
void print_text(const Options& o, const std::vector<KindOption>& kinds, const parallel::StageSearchProblem& problem,
                const std::vector<Timed>& runs) {
  std::cout << fmt::format("# clearfog stages: {} blocks of {} on {} stages, micro-batch {}, links {}\n",
                           problem.layers(), o.workload, o.stages, o.micro_batch, link_text(o));
  for (std::size_t k = 0; k < kinds.size(); ++k)
    std::cout << fmt::format("# k{}: {} x {} (whole model on one: {:.3f} ms)\n", k, kinds[k].count, kinds[k].file,
                             whole_model_s(problem, k) * 1e3);
  const auto& optimum = runs.front().result;
  std::cout << fmt::format("{:<11}{:>15}{:>11}{:>13}  {}\n", "search", "bottleneck(ms)", "vs best", "evaluations",
                           "plan (blocks [begin,end) on kind)");
  for (const auto& t : runs) {
    if (!t.result) {
      std::cout << fmt::format("{:<11}{:>15}  {}\n", t.name, "-", t.note);
      continue;
    }
    const double b = t.result->plan.bottleneck_s;
    const std::string gap = optimum ? fmt::format("{:+.1f} %", (b / optimum->plan.bottleneck_s - 1) * 100) : "-";
    std::cout << fmt::format("{:<11}{:>15.3f}{:>11}{:>13}  {}\n", t.name, b * 1e3, gap, t.result->evaluations,
                             parallel::describe_plan(t.result->plan));
  }
  // Where the heuristic's plan spends its time: the bottleneck stage and the others' slack.
  if (const auto& shisha = runs.back().result) {
    std::string times;
    for (double t : parallel::stage_times(problem, shisha->plan))
      times += fmt::format("{}{:.3f}", times.empty() ? "" : " | ", t * 1e3);
    std::cout << fmt::format("# stage times of the shisha plan (ms): {}\n", times);
  }
}

/// The same as JSON: the kinds, and each search's bottleneck, gap, effort and plan stage by stage.
nlohmann::ordered_json to_json(const Options& o, const std::vector<KindOption>& kinds,
                               const parallel::StageSearchProblem& problem, const std::vector<Timed>& runs) {
  nlohmann::ordered_json j = {{"workload", o.workload}, {"blocks", problem.layers()}, {"stages", o.stages},
                              {"micro_batch", o.micro_batch}, {"link_bandwidth", link_text(o)}};
  j["kinds"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < kinds.size(); ++k)
    j["kinds"].push_back({{"kind", k}, {"accelerator", kinds[k].file}, {"count", kinds[k].count},
                          {"whole_model_ms", whole_model_s(problem, k) * 1e3}});
  j["searches"] = nlohmann::ordered_json::array();
  const auto& optimum = runs.front().result;
  for (const auto& t : runs) {
    nlohmann::ordered_json s = {{"search", t.name}};
    if (!t.result) {
      s["skipped"] = t.note;
      j["searches"].push_back(s);
      continue;
    }
    const auto& plan = t.result->plan;
    s["bottleneck_ms"] = plan.bottleneck_s * 1e3;
    s["gap_to_optimum"] = optimum ? nlohmann::ordered_json(plan.bottleneck_s / optimum->plan.bottleneck_s - 1)
                                  : nlohmann::ordered_json(nullptr);
    s["evaluations"] = t.result->evaluations;
    const auto times = parallel::stage_times(problem, plan);
    s["plan"] = nlohmann::ordered_json::array();
    for (std::size_t st = 0; st < plan.ends.size(); ++st)
      s["plan"].push_back({{"begin", st == 0 ? 0 : plan.ends[st - 1]}, {"end", plan.ends[st]},
                           {"kind", plan.kinds[st]}, {"time_ms", times[st] * 1e3}});
    j["searches"].push_back(s);
  }
  return j;
}

int run(const Options& o) {
  if (o.accelerators.empty() == o.platform.empty())
    throw option_error("--accelerator", fmt::format("give the kinds as --accelerator FILE:COUNT (repeatable) or as "
                                                    "--platform FILE{}",
                                                    o.platform.empty() ? "" : ", not both"));
  std::vector<KindOption> kinds;
  for (const auto& text : o.accelerators) kinds.push_back(parse_kind(text));
  if (!o.platform.empty()) kinds = platform_kinds(config::load_platform(o.platform));
  if (o.micro_batch < 1) throw option_error("--micro-batch", fmt::format("must be >= 1, got {}", o.micro_batch));
  if (o.steps < 0 || o.steps > 10'000'000) throw option_error("--steps", "must be between 0 and 10000000");
  const auto problem = build_problem(o, kinds);
  try {
    parallel::check_problem(problem);
  } catch (const Error& e) {
    throw option_error("--stages", e.what());
  }
  const std::vector<Timed> runs = {
      timed("exhaustive", [&] { return parallel::exhaustive_search(problem); }),
      timed("annealing", [&] { return parallel::annealing_search(problem, o.seed, o.steps); }),
      timed("shisha", [&] { return parallel::shisha_search(problem); })};
  if (o.format == "json")
    std::cout << to_json(o, kinds, problem, runs).dump(2) << '\n';
  else
    print_text(o, kinds, problem, runs);
  std::string wall;  // on stderr: stdout stays the same from run to run
  for (const auto& t : runs) wall += fmt::format("{}{} {:.3f} ms", wall.empty() ? "" : ", ", t.name, t.seconds * 1e3);
  std::cout << std::flush;
  std::cerr << "search time: " << wall << "\n";
  return kExitOk;
}

}  // namespace

Command add_stages_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("stages", "search where to cut a pipeline over devices of different kinds");
  cmd->add_option("--workload", o->workload, "workload YAML file")->required();
  cmd->add_option("--accelerator", o->accelerators, "FILE:COUNT, one per device kind (repeatable)");
  cmd->add_option("--platform", o->platform,
                  "a platform file instead: its kinds of device (key mixed) and their counts, its NIC as the link");
  cmd->add_option("--stages", o->stages, "pipeline stages, one device each (default 2)");
  cmd->add_option("--micro-batch", o->micro_batch, "samples per micro-batch (default 1)");
  cmd->add_option("--precision", o->precision, "training precision (default bf16)");
  cmd->add_option("--link-bandwidth", o->link,
                  "bandwidth between stages, e.g. \"25 GB/s\" (the default; with --platform, its NIC's)");
  cmd->add_option("--seed", o->seed, "seed of the simulated annealing (default 1)");
  cmd->add_option("--steps", o->steps, "moves of the simulated annealing (default 20000)");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o] { return run(*o); }};
}

}  // namespace clearfog::app
