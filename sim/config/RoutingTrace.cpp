#include "config/RoutingTrace.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace clearfog::config {

namespace {

/// One row's numbers; a problem is reported at (line, column of the cell).
std::vector<double> parse_row(const std::string& text, const std::string& file, int line, std::vector<Diagnostic>& out) {
  std::vector<double> row;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::size_t end = comma == std::string::npos ? text.size() : comma;
    const std::string cell = text.substr(start, end - start);
    const SourceLocation where{file, line, static_cast<int>(start) + 1};
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(cell, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || cell.find_first_not_of(" \t", used) != std::string::npos) {
      out.push_back({where, "moe.trace", fmt::format("expected a number (an expert's load), got \"{}\"", cell)});
      return {};
    }
    if (!std::isfinite(value) || value < 0) {
      out.push_back({where, "moe.trace", fmt::format("an expert's load must be finite and >= 0, got {}", cell)});
      return {};
    }
    row.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return row;
}

}  // namespace

std::vector<std::vector<double>> read_routing_trace(const ConfigValue& value, const std::string& scenario_file,
                                                    std::vector<Diagnostic>& out) {
  const std::filesystem::path path =
      std::filesystem::path(scenario_file).parent_path() / std::filesystem::path(value.as_string());
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    out.push_back({value.location, value.key,
                   fmt::format("no trace file \"{}\" (resolved from the scenario's folder: {})", value.as_string(),
                               path.string())});
    return {};
  }
  std::ifstream in(path);
  std::vector<std::vector<double>> rows;
  const std::size_t before = out.size();
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.back() == '\r') line.pop_back();
    auto row = parse_row(line, path.string(), line_no, out);
    if (row.empty()) continue;
    double sum = 0;
    for (double x : row) sum += x;
    if (!(sum > 0)) {
      out.push_back({{path.string(), line_no, 1}, "moe.trace", "a layer's loads must not all be 0"});
      continue;
    }
    if (!rows.empty() && row.size() != rows.front().size()) {
      out.push_back({{path.string(), line_no, 1}, "moe.trace",
                     fmt::format("{} loads, but the first layer has {}: one load per expert on every line", row.size(),
                                 rows.front().size())});
      continue;
    }
    for (double& x : row) x /= sum;
    rows.push_back(std::move(row));
  }
  if (rows.empty() && out.size() == before)
    out.push_back({value.location, value.key, fmt::format("trace file \"{}\" has no loads", path.string())});
  return out.size() == before ? rows : std::vector<std::vector<double>>{};
}

}  // namespace clearfog::config
