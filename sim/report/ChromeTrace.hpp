#pragma once
// `clearfog run --trace FILE.json`: the replayed iteration as Chrome trace-event JSON, for Perfetto
// (ui.perfetto.dev) and chrome://tracing. One process per device (pid = rank), one thread per stream
// (tid 0 compute, 1 communication), a complete event ("X") per op, and a flow ("s" -> "f") from each
// point-to-point send to the receive it matches. Times in microseconds. Deterministic.
// `--trace-ranks 0-7,64` keeps only the events of those devices (and the flows between two of them).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collectives/CollectiveLog.hpp"
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

/// Which devices a trace keeps: kept[rank]; empty keeps every one.
using TraceRanks = std::vector<bool>;

/// Parses `--trace-ranks`: comma-separated ranks and inclusive ranges ("0-7,64"), each below
/// `devices`. Throws ConfigError located at --trace-ranks saying what is allowed.
TraceRanks parse_trace_ranks(const std::string& text, int devices);

/// The trace as a JSON object {"traceEvents": [...], "displayTimeUnit": "ms"}. Only ranks below
/// `devices` are processes (reducing switches are plan ranks, not devices; < 0: every rank), and of
/// those only the ones `ranks` keeps; a flow is kept when both its ends are. With a log, each op of a
/// collective carries its algorithm, protocol and channels in its args.
nlohmann::ordered_json chrome_trace_json(const program::Plan& plan, const engine::SimulationResult& result,
                                         int devices = -1, const collectives::CollectiveLog* log = nullptr,
                                         const TraceRanks& ranks = {});

}  // namespace clearfog::report
