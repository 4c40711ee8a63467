#pragma once
// The communication profile of a run (Anthony et al., HOTI 2024, asked of any scenario): every
// collective and pipeline point-to-point message of the iteration with its parallel axis, size,
// algorithm, time and the part of that time its device could not compute (exposed), as a CSV; per
// axis the count, volume and time; a histogram of message sizes per axis as SVG.
// `clearfog run --comm-profile DIR`; columns and definitions: docs/output.md.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/CollectiveLog.hpp"
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

struct CommEvent {
  std::string name;
  std::string axis;       // tp, dp, zero (ZeRO's reduce-scatters and gathers), ep, pp, tied (sums of tied copies)
  std::string op;         // all_reduce, ..., sendrecv (a pipeline message)
  int members = 2;        // devices in the group
  double payload_B = 0;   // nccl-tests convention (all_gather: the gathered total); p2p: the message
  double sent_B = 0;      // data the measured member sent (its transfers, efficiency factored out)
  std::string algorithm;  // the collective's, or p2p
  std::string protocol;
  int rank = 0;           // the member measured: the group's first (a p2p message: its sender)
  double start_s = 0, end_s = 0;
  double exposed_s = 0;   // of [start, end): the time its rank's compute stream was idle
};

struct CommProfile {
  std::vector<CommEvent> events;  // in the order the plan laid them out
  int devices = 0;
};

/// Every collective the log recorded (its ops' timings on the first member) and every pipeline
/// send outside them, on the first `devices` ranks; events of no bytes (handshakes) left out.
/// `zero_stage` >= 1 files data-parallel reduce-scatters and all-gathers under "zero".
CommProfile build_comm_profile(const program::Plan& plan, const engine::SimulationResult& result,
                               const collectives::CollectiveLog& log, int devices, int zero_stage);

/// What one event counts for in a per-device mean: a collective for each of its members, a
/// pipeline message for its sender: members / devices or 1 / devices.
double per_device_share(const CommEvent& e, int devices);

/// One axis's communication per device and iteration: each event weighted by per_device_share.
struct CommAxisTotals {
  double collectives = 0, messages = 0;  // calls a device makes; messages: pipeline point-to-point sends
  double payload_B = 0, sent_B = 0, time_s = 0, exposed_s = 0;
};
std::map<std::string, CommAxisTotals> comm_axis_totals(const CommProfile& profile);

/// Messages below this payload count as small: below about 1 MiB NCCL's bus bandwidth on NVLink and
/// InfiniBand is well under half its peak (nccl-tests curves), so latency, not bandwidth, prices them.
constexpr double kSmallMessage_B = 1 << 20;

/// The profile in one JSON object (the `comm` section of a sweep point, docs/output.md): per axis
/// its totals, median and largest message; over all axes the shares of point-to-point messages
/// (by count and by bytes sent) and of small messages.
nlohmann::ordered_json comm_profile_json(const CommProfile& profile);

std::string comm_profile_csv(const CommProfile& profile);
/// Per axis: collectives, p2p messages, payload and sent bytes per device per iteration (each event
/// weighted by per_device_share), time and exposed time per device likewise.
std::string render_comm_summary(const CommProfile& profile);
/// Message sizes per axis in power-of-two bins, as grouped bars.
std::string comm_histogram_svg(const CommProfile& profile, const std::string& title);
/// comm.csv, comm-summary.txt and comm-sizes.svg in `dir` (which must exist).
void write_comm_profile(const std::filesystem::path& dir, const CommProfile& profile, const std::string& title);

}  // namespace clearfog::report
