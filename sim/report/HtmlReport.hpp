#pragma once
// `clearfog run --html FILE.html`: one self-contained page (no network: plain SVG, inline CSS and a
// few lines of JS) with the summary, the time breakdown per device, memory against capacity, the
// zoomable timeline, the communication profile, the platform and the inputs. docs/outputs.md.
#include <string>

#include "collectives/CollectiveLog.hpp"
#include "config/ScenarioSpec.hpp"
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"
#include "report/ExchangeWaits.hpp"
#include "report/StepMetrics.hpp"

namespace clearfog::report {

/// Everything one report page shows; all references must outlive the call.
struct HtmlReportInputs {
  const config::ScenarioSpec& scenario;
  const StepMetrics& metrics;
  const program::Plan& plan;
  const engine::SimulationResult& simulation;
  const collectives::CollectiveLog& collectives;
  std::string summary_text;   // what `clearfog run` prints
  std::string platform_text;  // what `clearfog platform info` prints ("" to leave the section out)
  std::string inputs_text;    // the scenario file and the overrides, as run
};

/// Deterministic: the same inputs give the same bytes.
std::string html_report(const HtmlReportInputs& in);

/// Compute-stream time of one device by op category, and its idle time, over one iteration. The
/// time an exchange waits for its peer (report/ExchangeWaits.hpp) is idle, not its category's.
struct DeviceBreakdown {
  std::vector<double> category_s;  // indexed by program::Category
  double idle_s = 0;
};
DeviceBreakdown device_breakdown(const program::Plan& plan, const engine::SimulationResult& result, int rank);
/// The same, with the waits of devices already asked about.
DeviceBreakdown device_breakdown(const program::Plan& plan, const engine::SimulationResult& result, int rank,
                                 ExchangeWaits& waits);

}  // namespace clearfog::report
