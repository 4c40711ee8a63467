#pragma once
// `clearfog run --trace FILE.json`: the replayed iteration as Chrome trace-event JSON, for Perfetto
// (ui.perfetto.dev) and chrome://tracing. One process per device (pid = rank), one thread per stream
// (tid 0 compute, 1 communication), a complete event ("X") per op, and a flow ("s" -> "f") from each
// point-to-point send to the receive it matches. Times in microseconds. Deterministic.
#include <nlohmann/json.hpp>

#include "collectives/CollectiveLog.hpp"
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

/// The trace as a JSON object {"traceEvents": [...], "displayTimeUnit": "ms"}. Only ranks below
/// `devices` are processes (reducing switches are plan ranks, not devices; < 0: every rank); with a
/// log, each op of a collective carries its algorithm, protocol and channels in its args.
nlohmann::ordered_json chrome_trace_json(const program::Plan& plan, const engine::SimulationResult& result,
                                         int devices = -1, const collectives::CollectiveLog* log = nullptr);

}  // namespace clearfog::report
