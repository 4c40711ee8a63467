#pragma once
// `clearfog run --csv DIR`: the replayed iteration as two CSV tables.
//   ops.csv      rank,stream,op,category,start_s,end_s        one row per op, ranks then program order
//   devices.csv  rank,<category>_s...,compute_busy_s,comm_busy_s,idle_s   one row per device
// idle_s is the step time minus the compute stream's busy time. Numbers are printed with
// round-trip precision, so the files are deterministic and exact.
#include <filesystem>
#include <string>

#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

std::string ops_csv(const program::Plan& plan, const engine::SimulationResult& result);
std::string devices_csv(const program::Plan& plan, const engine::SimulationResult& result);

/// Quotes a CSV field if it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(std::string_view text);

/// Writes ops.csv and devices.csv into `dir` (created if missing).
void write_csv_tables(const std::filesystem::path& dir, const program::Plan& plan,
                      const engine::SimulationResult& result);

}  // namespace clearfog::report
