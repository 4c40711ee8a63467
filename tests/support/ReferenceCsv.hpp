#pragma once
// Reads a table of shared/reference/ (CLEARFOG_REFERENCE_DIR): '#' lines are the source notes, the
// first other line the header; each row becomes a map from column name to text.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace clearfog::test {

using CsvRow = std::map<std::string, std::string>;

inline std::vector<CsvRow> read_reference_csv(const std::string& name) {
  std::ifstream in(std::filesystem::path(CLEARFOG_REFERENCE_DIR) / name);
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

}  // namespace clearfog::test
