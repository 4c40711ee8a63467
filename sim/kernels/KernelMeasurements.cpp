#include "kernels/KernelMeasurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/Errors.hpp"
#include "core/Quote.hpp"

namespace clearfog::kernels {
namespace {

constexpr std::size_t kColumns = 18;
constexpr double kMostCount = 1e12;     // dimensions, rows, batches: far beyond any kernel, and products stay exact
constexpr double kMostSmall = 1e6;      // heads, sequence, head dimension (int)
enum Column { kKind, kDtype, kM, kN, kK, kBatch, kHeads, kSeq, kHeadDim, kCausal, kPass, kBytes, kRows, kDim, kBag,
              kKernels, kTime, kHost };
constexpr std::array<std::string_view, kColumns> kNames = {"kind", "dtype", "m", "n", "k", "batch", "heads", "seq",
                                                           "head_dim", "causal", "pass", "bytes", "rows", "dim",
                                                           "bag", "kernels", "time_s", "host_s"};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

/// One row being read: its cells and where it is, so that every complaint names both.
class Row {
public:
  Row(std::vector<std::string> cells, std::string file, int line)
      : cells_(std::move(cells)), file_(std::move(file)), line_(line) {}

  [[noreturn]] void fail(Column c, const std::string& what) const {
    int column = 1;  // of the cell's first character
    for (int i = 0; i < c; ++i) column += static_cast<int>(cells_[static_cast<std::size_t>(i)].size()) + 1;
    throw ConfigError({Diagnostic{{file_, line_, column}, std::string(kNames[c]), what}});
  }
  [[nodiscard]] const std::string& text(Column c) const { return cells_[c]; }
  [[nodiscard]] double number(Column c, bool positive) const {
    const std::string& s = cells_[c];
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < 0 ||
        (positive && v == 0))
      fail(c, fmt::format("expected a number {} for a {} row, got {}", positive ? "> 0" : ">= 0", cells_[kKind],
                          quote(s)));
    return v;
  }
  /// A whole number from 1 to `most`.
  [[nodiscard]] long long count(Column c, double most = kMostCount) const {
    const double v = number(c, true);
    if (v != std::floor(v) || v > most)
      fail(c, fmt::format("expected a whole number from 1 to {:g}, got {}", most, quote(cells_[c])));
    return static_cast<long long>(v);
  }
  /// One of `allowed`.
  [[nodiscard]] const std::string& one_of(Column c, std::initializer_list<std::string_view> allowed) const {
    for (auto a : allowed)
      if (cells_[c] == a) return cells_[c];
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(c, fmt::format("expected one of {}{}, got {}", list, c == kKind ? "" : " for a " + cells_[kKind] + " row",
                        quote(cells_[c])));
  }
  /// An operator's name: letters, digits and '_', as scripts/measure-eager-ops.py writes them.
  [[nodiscard]] const std::string& op_name(Column c) const {
    const std::string& s = cells_[c];
    const bool ok = !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    });
    if (!ok) fail(c, fmt::format("expected an operator's name (letters, digits, _) for an elementwise row, got {}", quote(s)));
    return s;
  }
  [[nodiscard]] int line() const { return line_; }

private:
  std::vector<std::string> cells_;
  std::string file_;
  int line_;
};

DType dtype_of(const Row& row) {
  const auto d = parse_dtype(row.text(kDtype));
  if (!d) row.fail(kDtype, fmt::format("unknown dtype {}; allowed: fp32, tf32, fp16, bf16, fp8, int8", quote(row.text(kDtype))));
  return *d;
}

KernelMeasurement read_row(const Row& row) {
  KernelMeasurement r;
  r.line = row.line();
  const std::string& kind = row.one_of(kKind, {"gemm", "copy", "gather", "attention", "launch", "elementwise"});
  r.time_s = row.number(kTime, true);
  if (kind == "gemm") {
    r.kind = MeasurementKind::Gemm;
    r.dtype = dtype_of(row);
    r.m = row.count(kM), r.n = row.count(kN), r.k = row.count(kK), r.batch = row.count(kBatch);
  } else if (kind == "copy") {
    r.kind = MeasurementKind::Copy;
    r.pass = row.one_of(kPass, {"copy", "triad"});
    r.bytes = row.number(kBytes, true);
  } else if (kind == "gather") {
    r.kind = MeasurementKind::Gather;
    r.dtype = dtype_of(row);
    r.rows = row.count(kRows), r.dim = row.count(kDim), r.bag = row.count(kBag), r.batch = row.count(kBatch);
    r.bytes = row.number(kBytes, true);
  } else if (kind == "attention") {
    r.kind = MeasurementKind::Attention;
    r.dtype = dtype_of(row);
    r.batch = row.count(kBatch);
    r.heads = static_cast<int>(row.count(kHeads, kMostSmall)), r.seq = static_cast<int>(row.count(kSeq, kMostSmall));
    r.head_dim = static_cast<int>(row.count(kHeadDim, kMostSmall));
    r.causal = row.one_of(kCausal, {"0", "1"}) == "1";
    r.pass = row.one_of(kPass, {"fwd", "bwd"});
  } else if (kind == "elementwise") {
    r.kind = MeasurementKind::Elementwise;
    r.pass = row.op_name(kPass);
    r.bytes = row.number(kBytes, true);
  } else {
    r.kind = MeasurementKind::Launch;
    r.pass = row.one_of(kPass, {"eager", "graph"});
    r.kernels = row.count(kKernels);
    r.host_s = row.number(kHost, false);
  }
  return r;
}

/// The attention kernel a comment line names for the rows after it: "# attention kernel: NAME" (a
/// registry name), or the line scripts/measure-accelerator.py writes before each attention shape,
/// "# sdpa backend for ...: BACKEND (...)" (PyTorch's backend names: flash runs FlashAttention-2).
/// `current` unchanged where the line names none; an unknown name or backend clears it.
void read_attention_kernel(const std::string& line, std::optional<AttentionKernel>& current) {
  constexpr std::string_view kNamed = "# attention kernel:", kSdpa = "# sdpa backend for ";
  std::string word;
  if (line.rfind(kNamed, 0) == 0) {
    std::istringstream(line.substr(kNamed.size())) >> word;
    current = parse_attention_kernel(word);
  } else if (line.rfind(kSdpa, 0) == 0) {
    const auto colon = line.rfind(": ");
    if (colon == std::string::npos) return;
    std::istringstream(line.substr(colon + 2)) >> word;
    current = word == "flash" ? std::optional(AttentionKernel::Flash2) : parse_attention_kernel(word);
  }
}

}  // namespace

std::string_view measurement_kind_name(MeasurementKind k) {
  switch (k) {
    case MeasurementKind::Gemm: return "gemm";
    case MeasurementKind::Copy: return "copy";
    case MeasurementKind::Gather: return "gather";
    case MeasurementKind::Attention: return "attention";
    case MeasurementKind::Launch: return "launch";
    case MeasurementKind::Elementwise: return "elementwise";
  }
  return "?";
}

KernelMeasurements parse_kernel_measurements(const std::string& text, const std::string& name) {
  KernelMeasurements out;
  std::istringstream in(text);
  bool header = false;
  int line_no = 0;
  std::optional<AttentionKernel> attention_kernel;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line.front() == '#') {
      if (line.rfind("# gpu:", 0) == 0)
        if (const auto start = line.find_first_not_of(' ', 6); start != std::string::npos) out.gpu = line.substr(start);
      read_attention_kernel(line, attention_kernel);
      continue;
    }
    if (!header) {
      if (line != kMeasurementHeader)
        throw ConfigError({Diagnostic{{name, line_no, 1}, "", fmt::format("expected the header \"{}\" "
                                                                          "(clearfog kernel measurements v1, "
                                                                          "docs/calibration.md)",
                                                                          kMeasurementHeader)}});
      header = true;
      continue;
    }
    auto cells = split(line);
    if (cells.size() != kColumns)
      throw ConfigError({Diagnostic{{name, line_no, 1}, "",
                                    fmt::format("expected {} comma-separated columns, got {}", kColumns, cells.size())}});
    out.rows.push_back(read_row(Row(std::move(cells), name, line_no)));
    if (out.rows.back().kind == MeasurementKind::Attention) out.rows.back().attention_kernel = attention_kernel;
  }
  if (!header)
    throw ConfigError({Diagnostic{{name, 0, 0}, "", "no header line: not a file of clearfog kernel measurements"}});
  return out;
}

KernelMeasurements read_kernel_measurements(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({Diagnostic{{file.string(), 0, 0}, "", "cannot read the file"}});
  std::ostringstream text;
  text << in.rdbuf();
  return parse_kernel_measurements(text.str(), file.string());
}

}  // namespace clearfog::kernels
