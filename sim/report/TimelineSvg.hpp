#pragma once
// `clearfog run --timeline FILE.svg`: a Gantt chart of one iteration. Two rows per device (compute
// stream, communication stream), one colour per op category, light grey where a stream is idle,
// a time axis with ticks and a legend. At most kTimelineMaxDevices devices are drawn (the rest are
// named in the title); ops closer than half a pixel that share a category are merged into one bar so
// the file stays small at 64 devices. Deterministic: the same run gives the same bytes.
#include <string>
#include <string_view>

#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

inline constexpr int kTimelineMaxDevices = 64;

/// Ranks at or above `devices` (reducing switches) are not drawn; < 0: every rank is a device.
/// `covers` names what the chart spans, in its heading.
std::string timeline_svg(const program::Plan& plan, const engine::SimulationResult& result, std::string_view title,
                         int devices = -1, std::string_view covers = "one iteration");

/// Escapes &, <, >, " and ' for XML text and attribute values.
std::string xml_escape(std::string_view text);

/// Fill colour of a category in every chart ("forward", "backward", "dp_comm", ...; "idle").
std::string category_colour(std::string_view category);

/// Tick spacing of 1, 2 or 5 x 10^k giving about `target` ticks over [0, span].
double nice_tick(double span, int target);

}  // namespace clearfog::report
