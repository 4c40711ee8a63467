// `clearfog schedule`: the order of forward and backward passes of a pipeline schedule, as a chart
// of time slots with zero-cost communication, and per stage the micro-batches in flight and the
// bubble fraction, simulated and closed form.
#include <fmt/format.h>

#include <cstdint>
#include <iostream>
#include <optional>

#include "app/Command.hpp"
#include "core/CheckedMath.hpp"
#include "core/Errors.hpp"
#include "schedule/PipelineSchedule.hpp"
#include "schedule/PipelineTimeline.hpp"

namespace clearfog::app {
namespace {

// Built member by member: GCC 12 warns about a Diagnostic brace-initialized inside a vector
// initializer.
Diagnostic option_diagnostic(const std::string& option, const std::string& key, const std::string& message) {
  Diagnostic d;
  d.location.file = option;
  d.key = key;
  d.message = message;
  return d;
}

/// Cells of the printed chart (stages x time slots): it is text for a terminal; beyond this it
/// is unreadable and its rows of strings take gigabytes (~40 B a cell).
constexpr std::int64_t kMaxChartCells = 4'000'000;
constexpr double kBytesPerCell = 40;

/// A chart of p stages runs m*v chunk forwards of 1 slot and backwards of 2, plus the fill and
/// drain of p - 1 such steps: about 3 (m v + p - 1) slots per stage.
std::optional<std::int64_t> chart_cells(std::int64_t p, std::int64_t m, std::int64_t v) {
  const auto mv = checked_mul(m, v);
  const auto steps = mv ? checked_add(*mv, p - 1) : std::nullopt;
  const auto slots = steps ? checked_mul(*steps, 3) : std::nullopt;
  return slots ? checked_mul(*slots, p) : std::nullopt;
}

/// The schedule's own rules; reported on --virtual-stages where v = 1 would pass them, on
/// --schedule otherwise (the message names the values).
void check_shape(const schedule::PipelineScheduleType& type, const schedule::PipelineShape& shape) {
  try {
    type.check(shape);
  } catch (const Error& e) {
    bool v_breaks_it = shape.virtual_stages != 1;
    try {
      type.check({shape.stages, shape.micro_batches, 1});
    } catch (const Error&) {
      v_breaks_it = false;
    }
    throw ConfigError({v_breaks_it ? option_diagnostic("--virtual-stages", "virtual-stages", e.what())
                                   : option_diagnostic("--schedule", "schedule", e.what())});
  }
}

void print_schedule(const schedule::PipelineScheduleType& type, const schedule::PipelineShape& shape) {
  std::cout << schedule::render_pipeline_schedule(type, shape) << '\n';
  const schedule::PassTimes t{1, 2, 1, 0};  // the chart's slots
  const auto timeline = schedule::evaluate_pipeline(type, shape, t);
  std::cout << fmt::format("{:>5}  {:>9}  {:>16}  {:>17}  {:>14}\n", "stage", "in-flight", "activations(mb)",
                           "bubble(simulated)", "bubble(closed)");
  const double closed_form = schedule::ideal_bubble_fraction(type, shape, t);
  for (int s = 0; s < shape.stages; ++s)
    std::cout << fmt::format("{:>5}  {:>9}  {:>16.3f}  {:>17.4f}  {:>14.4f}\n", s,
                             schedule::max_in_flight(type, shape, s),
                             schedule::peak_activation_micro_batches(type, shape, s),
                             1.0 - timeline.busy[s] / timeline.makespan, closed_form);
  if (type.chunks_per_device(shape) > 1)
    std::cout << "# in-flight counts (micro-batch, chunk) pairs; activations(mb) is in micro-batches through p-th of "
                 "the model\n";
}

}  // namespace

Command add_schedule_command(CLI::App& app) {
  struct Options {
    int stages = 4;
    int micro_batches = 8;
    std::string schedule = "1f1b";
    int virtual_stages = 0;  // 0: not given, i.e. 1, or 2 for interleaved
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("schedule", "print a pipeline schedule: passes per stage, in-flight micro-batches, bubble");
  cmd->add_option("--pp", o->stages, "pipeline stages p (default 4)");
  cmd->add_option("--micro-batches", o->micro_batches, "micro-batches per iteration m (default 8)");
  cmd->add_option("--schedule", o->schedule,
                  fmt::format("{} (default 1f1b)", fmt::join(schedule::pipeline_schedule_names(), ", ")));
  cmd->add_option("--virtual-stages", o->virtual_stages, "model chunks per device v (interleaved only; default 2)");
  return {cmd, [o] {
            std::vector<Diagnostic> problems;
            if (o->stages < 1)
              problems.push_back(option_diagnostic("--pp", "pp", fmt::format("must be >= 1, got {}", o->stages)));
            if (o->micro_batches < 1)
              problems.push_back(option_diagnostic("--micro-batches", "micro-batches",
                                                   fmt::format("must be >= 1, got {}", o->micro_batches)));
            if (o->virtual_stages < 0)
              problems.push_back(option_diagnostic("--virtual-stages", "virtual-stages",
                                                   fmt::format("must be >= 1, got {}", o->virtual_stages)));
            const auto* type = schedule::find_pipeline_schedule(o->schedule);
            if (!type)
              problems.push_back(option_diagnostic(
                  "--schedule", "schedule",
                  fmt::format("unknown schedule \"{}\"; allowed: {}", o->schedule,
                              fmt::join(schedule::pipeline_schedule_names(), ", "))));
            if (!problems.empty()) throw ConfigError(std::move(problems));

            const int v = o->virtual_stages != 0 ? o->virtual_stages : type->default_virtual_stages();
            if (const auto cells = chart_cells(o->stages, o->micro_batches, v); !cells || *cells > kMaxChartCells)
              throw ConfigError({option_diagnostic(
                  "--micro-batches", "micro-batches",
                  fmt::format("p = {} stages, m = {} micro-batches and v = {} make a chart of {} cells, too many: "
                              "at most {}; this machine would need ~{:.3g} GB for it",
                              o->stages, o->micro_batches, v, cells ? std::to_string(*cells) : "more than 2^63",
                              kMaxChartCells, static_cast<double>(cells.value_or(INT64_MAX)) * kBytesPerCell / 1e9))});
            const schedule::PipelineShape shape{o->stages, o->micro_batches, v};
            check_shape(*type, shape);
            print_schedule(*type, shape);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
