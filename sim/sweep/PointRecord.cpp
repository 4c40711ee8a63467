#include "sweep/PointRecord.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "report/CsvTables.hpp"

namespace clearfog::sweep {
namespace {

void flatten_into(const nlohmann::ordered_json& j, const std::string& prefix,
                  std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten_into(v, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  out.emplace_back(prefix, j.is_string() ? j.get<std::string>() : j.dump());
}

void fsync_path(const std::filesystem::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::filesystem::path point_file(const std::filesystem::path& out_dir, int id) {
  return out_dir / "points" / fmt::format("{:05}.json", id);
}

void write_file_atomically(const std::filesystem::path& file, const std::string& text) {
  // The temp name carries the pid: two processes never write the same temp file.
  const auto tmp = file.parent_path() / fmt::format(".{}.{}.tmp", file.filename().string(), ::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f) throw Error(fmt::format("cannot write {}", tmp.string()));
  }
  fsync_path(tmp, O_RDONLY);
  if (std::rename(tmp.c_str(), file.c_str()) != 0)
    throw Error(fmt::format("cannot rename {} to {}: {}", tmp.string(), file.string(), std::strerror(errno)));
  fsync_path(file.parent_path(), O_RDONLY | O_DIRECTORY);
}

void write_point(const std::filesystem::path& out_dir, const PointRecord& record) {
  write_file_atomically(point_file(out_dir, record.at("id").get<int>()), record.dump(2) + "\n");
}

std::string point_problem(const PointRecord& r, int id) {
  if (!r.is_object()) return "not a JSON object";
  if (!r.contains("id") || !r.at("id").is_number_integer()) return "no integer \"id\"";
  if (r.at("id").get<std::int64_t>() != id) return fmt::format("its id {} does not match its name", r.at("id").dump());
  static const std::array<std::string_view, 5> kStatuses = {"ok", "oom", "error", "timeout", "skipped"};
  if (!r.contains("status") || !r.at("status").is_string() ||
      std::find(kStatuses.begin(), kStatuses.end(), r.at("status").get<std::string>()) == kStatuses.end())
    return "no \"status\" among ok, oom, error, timeout, skipped";
  if (!r.contains("message") || !r.at("message").is_string()) return "no string \"message\"";
  if (!r.contains("axes") || !r.at("axes").is_object()) return "no \"axes\" object";
  for (const auto& [k, v] : r.at("axes").items())
    if (!v.is_string()) return fmt::format("axis \"{}\" is not a string", k);
  const std::string status = r.at("status").get<std::string>();
  if ((status == "ok" || status == "oom") && (!r.contains("summary") || !r.at("summary").is_object()))
    return fmt::format("status {} without a \"summary\" object", status);
  return "";
}

PointFiles read_point_files(const std::filesystem::path& out_dir) {
  PointFiles out;
  const auto dir = out_dir / "points";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    // Ours are "<digits>.json"; temp files start with '.'.
    const std::string stem = file.stem().string();
    if (file.extension() != ".json" || stem.empty() || stem.size() > 9 ||
        !std::all_of(stem.begin(), stem.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const int id = std::stoi(stem);
    std::vector<Diagnostic> problems;
    const auto text = config::read_text_file(file, std::nullopt, problems);  // never blocks on a FIFO
    if (!text) {
      out.damaged.push_back({file, problems.empty() ? "unreadable" : problems.front().message});
      continue;
    }
    auto record = PointRecord::parse(*text, nullptr, false);
    const std::string problem = record.is_discarded() ? "not valid JSON" : point_problem(record, id);
    if (!problem.empty()) {
      out.damaged.push_back({file, problem});
      continue;
    }
    out.points[id] = std::move(record);
  }
  return out;
}

std::map<int, PointRecord> read_points(const std::filesystem::path& out_dir) {
  return read_point_files(out_dir).points;
}

std::vector<std::pair<std::string, std::string>> flatten(const nlohmann::ordered_json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten_into(j, "", out);
  return out;
}

namespace {

void add_unique(std::vector<std::string>& columns, const std::string& column) {
  if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
}

/// The columns of results.csv, each key once: id, the axes, status, message, then the summary
/// figures that are not already a column (the summary repeats `status` and the scenario's keys, an
/// axis among them: the axis column keeps the value as written in the sweep file).
std::vector<std::string> csv_columns(const std::map<int, PointRecord>& points) {
  std::vector<std::string> axes;
  for (const auto& [id, p] : points)
    for (const auto& [k, v] : p.at("axes").items()) add_unique(axes, k);
  std::vector<std::string> columns = {"id"};
  columns.insert(columns.end(), axes.begin(), axes.end());
  columns.insert(columns.end(), {"status", "message"});
  for (const auto& [id, p] : points)
    if (p.contains("summary"))
      for (const auto& [k, v] : flatten(p.at("summary"))) add_unique(columns, k);
  return columns;
}

/// One point's values by column name: its summary, then its own fields (which win).
std::map<std::string, std::string> csv_values(int id, const PointRecord& p) {
  std::map<std::string, std::string> values;
  if (p.contains("summary"))
    for (auto& [k, v] : flatten(p.at("summary"))) values[k] = std::move(v);
  for (const auto& [k, v] : p.at("axes").items()) values[k] = v.get<std::string>();
  values["id"] = std::to_string(id);
  values["status"] = p.value("status", "");
  values["message"] = p.value("message", "");
  return values;
}

std::string csv_line(const std::vector<std::string>& columns, const std::map<std::string, std::string>& values) {
  std::string line;
  for (const auto& c : columns) {
    if (&c != &columns.front()) line += ',';
    const auto it = values.find(c);
    if (it != values.end()) line += report::csv_field(it->second);
  }
  return line + "\n";
}

}  // namespace

std::string results_csv(const std::map<int, PointRecord>& points) {
  const auto columns = csv_columns(points);
  std::map<std::string, std::string> header;
  for (const auto& c : columns) header[c] = c;
  std::string out = csv_line(columns, header);
  for (const auto& [id, p] : points) out += csv_line(columns, csv_values(id, p));
  return out;
}

}  // namespace clearfog::sweep
