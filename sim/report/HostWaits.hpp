#pragma once
// How long a rank's compute stream waited for its host to launch the next op (docs/host-time.md):
// the part of the stream's idle time that no device, peer or data dependency explains.
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

/// For each compute-stream op that waits for a host op: the time from when the op would have been
/// ready without it (its stream's previous op and its other dependencies ended) to when the host
/// op ended, where positive; summed over the rank's ops.
double host_wait_s(const program::RankProgram& program, const engine::RankTimings::Timeline& timings);

}  // namespace clearfog::report
