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
#include <vector>

namespace clearfog::sweep {

using PointRecord = nlohmann::ordered_json;

std::filesystem::path point_file(const std::filesystem::path& out_dir, int id);

/// Writes `text` to `file` durably: a temp file beside it, fsync, rename, fsync of the directory.
void write_file_atomically(const std::filesystem::path& file, const std::string& text);

void write_point(const std::filesystem::path& out_dir, const PointRecord& record);

/// A point file that cannot be trusted: not JSON, not a point, or a point of another id.
struct DamagedPoint {
  std::filesystem::path file;
  std::string reason;
};

struct PointFiles {
  std::map<int, PointRecord> points;  ///< the valid ones, by id
  std::vector<DamagedPoint> damaged;
};

/// Every point file of DIR/points ("<id>.json"; temp files and other names are ignored), checked.
PointFiles read_point_files(const std::filesystem::path& out_dir);

/// The valid point files of DIR/points, by id.
std::map<int, PointRecord> read_points(const std::filesystem::path& out_dir);

/// What is wrong with a point record read from the file of point `id`; empty when it is a point.
std::string point_problem(const PointRecord& record, int id);

/// results.csv: id, every axis, status, message, then every summary figure flattened to dotted
/// column names ("communication.exposed_s"), one column per key: a summary figure named like an axis
/// or `status` is that column (the axis keeps its value as written in the sweep file). Columns are
/// the union over points in id order, so the file depends only on the set of points: the same
/// whatever the number of jobs, shards or resumes.
std::string results_csv(const std::map<int, PointRecord>& points);

/// The summary flattened to (dotted key, value text) pairs, in document order.
std::vector<std::pair<std::string, std::string>> flatten(const nlohmann::ordered_json& j);

}  // namespace clearfog::sweep
