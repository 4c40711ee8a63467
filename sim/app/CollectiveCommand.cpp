// `clearfog collective`: one collective on a platform over a range of sizes, printed with the
// columns of nccl-tests (size, count, time, algbw, busbw) so that simulated and measured tables
// can be laid side by side.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "core/Units.hpp"
#include "driver/CollectiveRun.hpp"
#include "driver/TuningTable.hpp"

namespace clearfog::app {
namespace {

/// Rows of one table: each row is a simulation of the collective over every rank (13 s for 16384
/// ranks at fluid fidelity, docs/performance.md); nccl-tests' default 8 B..128 MB by 2 has 25.
constexpr std::size_t kMaxRows = 1000;

/// nccl-tests size syntax: a number with an optional binary suffix K, M, G (1K = 1024), between
/// 1 B and the largest data size clearfog accepts (1 PB).
double parse_size(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw option_error(option, fmt::format("expected a size such as 1K, 64M or 8G, got {}", quote(text)));
  }
  const std::string suffix = text.substr(used);
  double scale = 1;
  if (suffix == "K" || suffix == "k") scale = 1024.0;
  else if (suffix == "M") scale = 1024.0 * 1024;
  else if (suffix == "G") scale = 1024.0 * 1024 * 1024;
  else if (!suffix.empty())
    throw option_error(option, fmt::format("unknown size suffix {} in {}; allowed: K, M, G (powers of 1024)",
                                           quote(suffix), quote(text)));
  const double bytes = value * scale;
  const auto range = units::plausible_range(units::Dimension::Bytes);
  if (!(bytes >= range.min && bytes <= range.max))
    throw option_error(option, fmt::format("a size must be {}, got {}", units::range_text(units::Dimension::Bytes),
                                           quote(text)));
  return bytes;
}

std::vector<double> parse_sizes(const std::string& range, double factor) {
  const auto colon = range.find(':');
  const double lo = parse_size(range.substr(0, colon), "--sizes");
  const double hi = colon == std::string::npos ? lo : parse_size(range.substr(colon + 1), "--sizes");
  if (hi < lo) throw option_error("--sizes", fmt::format("the range {} ends below where it starts", quote(range)));
  if (!(factor > 1) || !std::isfinite(factor))
    throw option_error("--factor", fmt::format("must be a finite number > 1, got {}", factor));
  // Counted before any row is made: a factor just above 1 would make millions.
  const double rows = std::floor(std::log(hi / lo) / std::log(factor) + 1e-9) + 1;
  if (rows > static_cast<double>(kMaxRows))
    throw option_error("--factor", fmt::format("--sizes {} by a factor of {} makes {:.0f} rows, too many: at most {} "
                                               "(each row simulates the collective); use a larger --factor or a "
                                               "narrower --sizes",
                                               range, factor, rows, kMaxRows));
  std::vector<double> sizes;
  for (double s = lo; s <= hi * (1 + 1e-12) && sizes.size() < kMaxRows; s *= factor) sizes.push_back(std::round(s));
  return sizes;
}

/// "2(n-1)/n", "(n-1)/n" or "1": nccl-tests' busbw factor for `op`, as text.
std::string factor_text(config::CollectiveOp op) {
  if (op == config::CollectiveOp::AllReduce) return "2(n-1)/n";
  if (op == config::CollectiveOp::Broadcast || op == config::CollectiveOp::Reduce || op == config::CollectiveOp::SendRecv)
    return "1";
  return "(n-1)/n";
}

std::string algorithm_names() {
  std::string names;
  for (auto a : config::collective_algorithm_choices())
    names += (names.empty() ? "" : ", ") + std::string(config::collective_algorithm_name(a));
  return names;
}

}  // namespace

Command add_collective_command(CLI::App& app) {
  struct Options {
    std::string platform;
    std::string op = "all_reduce";
    std::string algo = "nccl";
    std::string fidelity = "step";
    int ranks = 0;
    std::string sizes = "1K:1G";
    double factor = 2;
    std::string format = "table";
    bool tuning = false;
    double network_share = 1;
    std::vector<std::string> sets;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("collective", "simulate one collective over a range of sizes (nccl-tests columns)");
  cmd->add_option("--platform", o->platform, "platform YAML file")->required();
  cmd->add_option("--op", o->op, "all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce, sendrecv");
  cmd->add_option("--algo", o->algo,
                  "nccl (default: NCCL's own choice), best (fastest simulated; auto is the same), ring, tree, "
                  "halving-doubling, direct, hierarchical, in-switch");
  cmd->add_option("--fidelity", o->fidelity, "step (every message) or fluid (one flow per link)")
      ->check(CLI::IsMember({"step", "fluid"}));
  cmd->add_option("--ranks", o->ranks, "devices taking part (default: all)");
  cmd->add_option("--sizes", o->sizes, "MIN:MAX in bytes with K, M, G suffixes (powers of 1024), e.g. 1K:8G");
  cmd->add_option("--factor", o->factor, "size multiplier between rows (nccl-tests -f), default 2");
  cmd->add_option("--format", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  cmd->add_flag("--tuning", o->tuning, "print the simulated table best selects from instead");
  cmd->add_option("--set", o->sets,
                  "override a platform key, e.g. --set collectives.intra_node.copy_efficiency=0.67 (repeatable)");
  cmd->add_option("--network-share", o->network_share,
                  "all_to_all --algo hierarchical: bytes crossing the network per byte meant for a node's members, "
                  "in (0, 1]; below 1 where tokens several members of a node want travel once (DeepEP), default 1");
  return {cmd, [o] {
            const auto op = config::parse_collective_op(o->op);
            if (!op) throw option_error("--op", fmt::format("unknown operation {}; allowed: all_reduce, reduce_scatter, "
                                                            "all_gather, all_to_all, broadcast, reduce, sendrecv", quote(o->op)));
            const auto algo = config::parse_collective_algorithm(o->algo);
            if (!algo)
              throw option_error("--algo", fmt::format("unknown algorithm {}; allowed: {} (auto: best)", quote(o->algo),
                                                       algorithm_names()));
            const auto fidelity = *config::parse_fidelity(o->fidelity);
            const auto sizes = parse_sizes(o->sizes, o->factor);  // before anything is simulated
            if (o->network_share != 1 &&
                (*op != config::CollectiveOp::AllToAll || algo->name() != "hierarchical"))
              throw option_error("--network-share", "applies to --op all_to_all with --algo hierarchical only");
            if (!(o->network_share > 0 && o->network_share <= 1))
              throw option_error("--network-share", fmt::format("must be in (0, 1], got {}", o->network_share));
            std::vector<config::Override> overrides;
            for (const auto& text : o->sets) overrides.push_back(config::parse_override(text));
            const auto platform = config::load_platform(o->platform, overrides);
            const auto cluster = topology::ClusterTopology::build(platform);
            const int ranks = o->ranks == 0 ? cluster.device_count() : o->ranks;
            auto members = driver::collective_members(cluster, ranks);  // validates --ranks
            if (*op == config::CollectiveOp::SendRecv) members.resize(std::min<std::size_t>(members.size(), 2));

            if (algo->is_concrete() && !driver::can_run(cluster, *op, members, *algo)) {
              std::string names;
              for (auto a : driver::candidate_algorithms(cluster, *op, members))
                names += (names.empty() ? "" : ", ") + std::string(config::collective_algorithm_name(a));
              const auto why = collectives::supports(*op, *algo)
                                   ? *algo->type().refusal(*op, driver::group_shape(cluster, members))
                                   : fmt::format("it has no {}", o->op);
              throw option_error("--algo", fmt::format("{} cannot run {} over {} ranks of {}: {}; allowed here: nccl, "
                                                       "best, {}",
                                                       o->algo, o->op, ranks, platform.name, why, names));
            }
            const bool best = algo->is_best();
            const auto table = (o->tuning || best) ? driver::cached_tuning_table(cluster, members, fidelity, {*op})
                                                   : driver::TuningTable{};
            if (o->tuning) {
              std::cout << fmt::format("# tuning table: {} ranks of {}, fidelity {}\n", ranks, platform.name, o->fidelity);
              std::cout << table.render();
              return kExitOk;
            }

            nlohmann::ordered_json rows = nlohmann::ordered_json::array();
            std::string text = fmt::format(
                "# clearfog collective: {} over {} ranks of {}, algorithm {}, fidelity {}\n"
                "# busbw = algbw x {} (nccl-tests definitions); nccl(us): NCCL's own time estimate of the algorithm "
                "and protocol that ran (-: NCCL has no such algorithm)\n"
                "{:>14}{:>14}{:>8}  {:<13}{:<9}{:>4}{:>12}{:>12}{:>13}{:>13}\n",
                o->op, ranks, platform.name, config::collective_algorithm_name(*algo), o->fidelity, factor_text(*op),
                "size(B)", "count", "type", "algorithm", "protocol", "ch", "time(us)", "nccl(us)", "algbw(GB/s)",
                "busbw(GB/s)");
            for (double bytes : sizes) {
              driver::CollectiveCase c{*op, *algo, std::nullopt, fidelity, ranks, bytes, {}, o->network_share};
              if (best) {
                const auto choice = table.select(*op, bytes);
                c.algorithm = choice.algorithm;
                c.protocol = choice.protocol;
              }
              const auto t = driver::measure_collective(cluster, c);
              const auto count = static_cast<long long>(bytes / 4);  // float elements, as nccl-tests -d float
              const auto algorithm_name = config::collective_algorithm_name(t.choice.algorithm);
              const auto& nccl = t.choice.nccl_estimate_s;
              text += fmt::format("{:>14.0f}{:>14}{:>8}  {:<13}{:<9}{:>4}{:>12.2f}{:>12}{:>13.2f}{:>13.2f}\n", bytes, count,
                                  "float", algorithm_name, t.choice.protocol.name(), t.choice.channels, t.time_s * 1e6,
                                  nccl ? fmt::format("{:.2f}", *nccl * 1e6) : "-", t.algbw_Bps / 1e9,
                                  t.busbw_Bps / 1e9);
              rows.push_back({{"bytes", bytes}, {"count", count}, {"type", "float"},
                              {"algorithm", algorithm_name}, {"protocol", t.choice.protocol.name()},
                              {"channels", t.choice.channels}, {"time_us", t.time_s * 1e6},
                              {"nccl_model_us", nccl ? nlohmann::ordered_json(*nccl * 1e6) : nlohmann::ordered_json()},
                              {"algbw_GBps", t.algbw_Bps / 1e9},
                              {"busbw_GBps", t.busbw_Bps / 1e9}, {"messages", t.messages}});
            }
            if (o->format == "json") {
              nlohmann::ordered_json j = {{"platform", platform.name}, {"op", o->op}, {"ranks", ranks},
                                          {"algorithm", config::collective_algorithm_name(*algo)},
                                          {"fidelity", o->fidelity}, {"rows", rows}};
              std::cout << j.dump(2) << '\n';
            } else {
              std::cout << text;
            }
            return kExitOk;
          }};
}

}  // namespace clearfog::app
