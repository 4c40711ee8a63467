#pragma once
// `clearfog run --csv DIR`: the replayed iteration as CSV tables.
//   ops.csv      rank,stream,op,category,start_s,end_s        one row per op, ranks then program order
//   devices.csv  rank,<category>_s...,compute_busy_s,comm_busy_s,idle_s   one row per device
//   collectives.csv  name,op,members,bytes,algorithm,protocol,channels   one row per collective
// Reducing switches are plan ranks (they run their part of in-switch collectives) but not devices:
// only ranks below `devices` are listed (devices < 0: every rank).
// idle_s is the step time minus the compute stream's busy time. Numbers are printed with
// round-trip precision, so the files are deterministic and exact.
#include <filesystem>
#include <string>

#include "collectives/CollectiveLog.hpp"
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

std::string ops_csv(const program::Plan& plan, const engine::SimulationResult& result, int devices = -1);
std::string devices_csv(const program::Plan& plan, const engine::SimulationResult& result, int devices = -1);
std::string collectives_csv(const collectives::CollectiveLog& log);

/// Quotes a CSV field if it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& text);

/// Writes ops.csv, devices.csv and, with a log, collectives.csv into `dir` (created if missing).
void write_csv_tables(const std::filesystem::path& dir, const program::Plan& plan,
                      const engine::SimulationResult& result, int devices = -1,
                      const collectives::CollectiveLog* log = nullptr);

/// Ranks of `plan` that are devices: `devices`, or every rank when it is negative.
int device_ranks(const program::Plan& plan, int devices);

}  // namespace clearfog::report
