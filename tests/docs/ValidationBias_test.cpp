// The bias table of docs/validation.md is the per-set tables' own errors, summed up: for every
// table with an `error` column, the signed mean and mean absolute error of its checks (rows whose
// role calibrates are left out; errors of times are turned around so that > 0 always means the
// simulator is fast), per set and over all of them. The test recomputes it from the tables, checks
// the doc's copy, and holds the overall bias within the ±3 % the project aims at.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kBiasSection = "Bias over every set";

struct Table {
  std::string section;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line.substr(1, line.size() - 2));  // without the outer pipes
  for (std::string cell; std::getline(in, cell, '|');) {
    const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

/// The markdown tables of `text` outside code blocks, each with the heading it sits under.
std::vector<Table> tables_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<Table> tables;
  std::string section;
  bool code = false;
  const std::regex rule(R"(^\|[-| :]+\|$)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("```", 0) == 0) code = !code;
    if (code) continue;
    if (l.rfind("## ", 0) == 0 || l.rfind("### ", 0) == 0) section = l.substr(l.find(' ') + 1);
    if (l.empty() || l[0] != '|' || i + 1 >= lines.size() || !std::regex_match(lines[i + 1], rule)) continue;
    Table t{section, cells_of(l), {}};
    for (i += 2; i < lines.size() && !lines[i].empty() && lines[i][0] == '|'; ++i) t.rows.push_back(cells_of(lines[i]));
    tables.push_back(std::move(t));
  }
  return tables;
}

/// "+9.8 %", "−8.9 %" (U+2212), "-18.7 %" as a number of percent.
std::optional<double> percent_of(std::string cell) {
  const std::string minus = "\u2212";
  if (cell.rfind(minus, 0) == 0) cell = "-" + cell.substr(minus.size());
  static const std::regex number(R"(^([+-]?\d+(\.\d+)?) ?%$)");
  std::smatch m;
  if (!std::regex_match(cell, m, number)) return std::nullopt;
  return std::stod(m[1]);
}

bool mentions_time(const std::string& s) {
  for (const char* word : {"time", "forward", "backward", "(ms)", "(s)"})
    if (s.find(word) != std::string::npos) return true;
  return false;
}

struct SetBias {
  std::string set;
  int rows = 0;
  double mean = 0, mean_abs = 0;
};

/// One set per table with an `error` column, except ratios of speed-ups (not the simulator's speed).
/// Rows whose role starts with "open" (a known cause being worked on, which their section names) are
/// left out of their set and summed into `open`, which the doc's table shows on a line of its own.
std::vector<SetBias> biases(const std::vector<Table>& tables, SetBias& open) {
  std::vector<SetBias> out;
  for (const auto& t : tables) {
    if (t.section == kBiasSection) continue;
    bool ratio = false;
    for (const auto& h : t.header) ratio = ratio || h.find("speedup") != std::string::npos;
    if (ratio) continue;
    std::optional<std::size_t> role;
    for (std::size_t k = 0; k < t.header.size(); ++k)
      if (t.header[k] == "role") role = k;
    SetBias b{t.section, 0, 0, 0};
    for (const auto& row : t.rows) {
      if (role && *role < row.size() && row[*role].rfind("calib", 0) == 0) continue;
      const bool is_open = role && *role < row.size() && row[*role].rfind("open", 0) == 0;
      for (std::size_t k = 2; k < t.header.size() && k < row.size(); ++k) {
        if (t.header[k] != "error") continue;
        const auto e = percent_of(row[k]);
        if (!e) continue;
        // A time too long is a simulator too slow: errors of times count the other way round.
        const double fast = mentions_time(t.header[k - 2]) || mentions_time(row[0]) ? -*e : *e;
        SetBias& into = is_open ? open : b;
        into.mean += fast, into.mean_abs += std::fabs(fast), ++into.rows;
      }
    }
    if (b.rows == 0) continue;
    b.mean /= b.rows, b.mean_abs /= b.rows;
    out.push_back(b);
  }
  return out;
}

std::string read_validation_doc() {
  std::ifstream in(std::string(CLEARFOG_SOURCE_DIR) + "/docs/validation.md");
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string signed_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", v);
  std::string s = buf;
  if (s.rfind("-", 0) == 0) s = "\u2212" + s.substr(1);
  return s;
}

}  // namespace

TEST_CASE("docs::validation.md's bias table is its sets' errors, and the overall bias is within 3 %", "[docs]") {
  const auto tables = tables_of(read_validation_doc());
  SetBias open{"open", 0, 0, 0};
  const auto sets = biases(tables, open);
  REQUIRE(sets.size() >= 10);
  const auto row_text = [](const std::vector<std::string>& cells) {
    std::string line = "|";
    for (const auto& c : cells) line += " " + c + " |";
    return line + "\n";
  };
  double set_sum = 0, row_sum = 0, abs_sum = 0;
  int rows = 0;
  std::string expected;
  for (const auto& s : sets) {
    set_sum += s.mean, row_sum += s.mean * s.rows, abs_sum += s.mean_abs * s.rows, rows += s.rows;
    expected += row_text({s.set, std::to_string(s.rows), signed_text(s.mean), signed_text(s.mean_abs).substr(1)});
  }
  const double per_set = set_sum / static_cast<double>(sets.size()), per_row = row_sum / rows;
  expected += row_text({"**every set, each counted once**", std::to_string(sets.size()) + " sets", signed_text(per_set), ""});
  expected += row_text({"**every row**", std::to_string(rows), signed_text(per_row), signed_text(abs_sum / rows).substr(1)});
  if (open.rows > 0)
    expected += row_text({"**open rows, left out above (their sections name the cause)**", std::to_string(open.rows),
                          signed_text(open.mean / open.rows), signed_text(open.mean_abs / open.rows).substr(1)});
  // The doc's table, row for row (what to paste if a set's table changed).
  const auto doc = std::find_if(tables.begin(), tables.end(), [](const Table& t) { return t.section == kBiasSection; });
  REQUIRE(doc != tables.end());
  std::string actual;
  for (const auto& row : doc->rows) actual += row_text(row);
  INFO("expected bias table rows:\n" << expected);
  CHECK(actual == expected);
  CHECK(std::fabs(per_set) <= 3.0);
}
