#pragma once
// Reads a table of published figures: '#' lines are the source notes, the first other line the
// header; each row becomes a map from column name to text. Tables of shared/reference/
// (CLEARFOG_REFERENCE_DIR) by name, the repository's own (tests/data/reference/) by path.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace clearfog::test {

using CsvRow = std::map<std::string, std::string>;

inline std::vector<CsvRow> read_csv_table(const std::filesystem::path& path) {
  std::ifstream in(path);
  INFO(path.string());
  REQUIRE(in.good());
  const auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    return cells;
  };
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    const auto cells = split(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    CsvRow row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

inline std::vector<CsvRow> read_reference_csv(const std::string& name) {
  return read_csv_table(std::filesystem::path(CLEARFOG_REFERENCE_DIR) / name);
}

}  // namespace clearfog::test
