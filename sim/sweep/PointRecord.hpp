#pragma once
// What a sweep keeps of one point: DIR/points/<id>.json, written atomically (temp file, fsync,
// rename) so a killed sweep never leaves a half-written point and `--resume` can trust every file.
//
//   {"id": 7, "axes": {"parallelism.dp": "4"}, "status": "ok", "message": "", "summary": {...}}
//
// status: ok | oom (ran, but the memory estimate exceeds the device) | error (bad configuration,
// failed simulation or crashed process) | timeout | skipped (removed by a filter).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace clearfog::sweep {

using PointRecord = nlohmann::ordered_json;

std::filesystem::path point_file(const std::filesystem::path& out_dir, int id);

/// Writes `text` to `file` durably: a temp file beside it, fsync, rename, fsync of the directory.
void write_file_atomically(const std::filesystem::path& file, const std::string& text);

void write_point(const std::filesystem::path& out_dir, const PointRecord& record);

/// Every complete point file of DIR/points, by id (temp files are ignored).
std::map<int, PointRecord> read_points(const std::filesystem::path& out_dir);

/// results.csv: id, every axis, status, message, then every summary figure flattened to dotted
/// column names ("communication.exposed_s"). Columns are the union over points in id order, so the
/// file depends only on the set of points: the same whatever the number of jobs, shards or resumes.
std::string results_csv(const std::map<int, PointRecord>& points);

/// The summary flattened to (dotted key, value text) pairs, in document order.
std::vector<std::pair<std::string, std::string>> flatten(const nlohmann::ordered_json& j);

}  // namespace clearfog::sweep
