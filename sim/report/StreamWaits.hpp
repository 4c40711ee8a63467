#pragma once
// How long a rank's compute stream waited for ops of another stream that nothing else explains:
// for its host to launch the next op (docs/host-time.md), or for the ZeRO-3 / FSDP all-gather of
// the parameters it computes with (docs/parallelism.md).
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

/// For each compute-stream op that waits for an op of stream `waited_on`: the time from when the
/// op would have been ready without those (its stream's previous op and its other dependencies
/// ended) to when the last of them ended, where positive; summed over the rank's ops.
double stream_wait_s(const program::RankProgram& program, const engine::RankTimings::Timeline& timings,
                     program::Stream waited_on);

/// The compute stream's waits for its host's launches.
inline double host_wait_s(const program::RankProgram& program, const engine::RankTimings::Timeline& timings) {
  return stream_wait_s(program, timings, program::Stream::Host);
}

}  // namespace clearfog::report
