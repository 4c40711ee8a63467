#include "core/Units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "core/Quote.hpp"

namespace clearfog::units {

namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// Decimal prefixes are powers of 1000, binary prefixes powers of 1024 (IEC 80000-13).
constexpr std::array<Prefix, 6> kDecimalPrefixes = {{
    {"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}}};
constexpr double kKi = 1024.0;
constexpr std::array<Prefix, 5> kBinaryPrefixes = {{{"Ki", kKi},
                                                   {"Mi", kKi * kKi},
                                                   {"Gi", kKi * kKi * kKi},
                                                   {"Ti", kKi * kKi * kKi * kKi},
                                                   {"Pi", kKi * kKi * kKi * kKi * kKi}}};

/// A unit that takes prefixes: "B" in "GiB", "b/s" in "Gb/s".
struct PrefixedUnit {
  std::string_view symbol;
  Dimension dimension;
  double factor;         // SI value of one unprefixed unit
  bool binary_prefixes;  // whether Ki Mi Gi ... are accepted
};

constexpr double kBitsPerByte = 8.0;

// Longest symbols first, so that "FLOP/s" is tried before "OP/s" and "B/s" before "B".
constexpr std::array<PrefixedUnit, 6> kPrefixedUnits = {{
    {"FLOP/s", Dimension::FlopRate, 1.0, false},
    {"OP/s", Dimension::FlopRate, 1.0, false},
    {"B/s", Dimension::Bandwidth, 1.0, true},
    {"b/s", Dimension::Bandwidth, 1.0 / kBitsPerByte, true},
    {"B", Dimension::Bytes, 1.0, true},
    {"b", Dimension::Bytes, 1.0 / kBitsPerByte, true},
}};

/// A unit spelled out in full (no prefix arithmetic).
struct FixedUnit {
  std::string_view symbol;
  Dimension dimension;
  double factor;
};

constexpr std::array<FixedUnit, 18> kFixedUnits = {{
    {"s", Dimension::Time, 1.0},
    {"ms", Dimension::Time, 1e-3},
    {"us", Dimension::Time, 1e-6},
    {"\xC2\xB5s", Dimension::Time, 1e-6},  // U+00B5 MICRO SIGN
    {"\xCE\xBCs", Dimension::Time, 1e-6},  // U+03BC GREEK SMALL LETTER MU
    {"ns", Dimension::Time, 1e-9},
    {"ps", Dimension::Time, 1e-12},
    {"min", Dimension::Time, 60.0},
    {"h", Dimension::Time, 3600.0},
    {"Hz", Dimension::Frequency, 1.0},
    {"kHz", Dimension::Frequency, 1e3},
    {"MHz", Dimension::Frequency, 1e6},
    {"GHz", Dimension::Frequency, 1e9},
    {"THz", Dimension::Frequency, 1e12},
    {"mW", Dimension::Power, 1e-3},
    {"W", Dimension::Power, 1.0},
    {"kW", Dimension::Power, 1e3},
    {"MW", Dimension::Power, 1e6},
}};

struct UnitMeaning {
  Dimension dimension;
  double factor;
};

std::optional<UnitMeaning> lookup_unit(std::string_view unit) {
  for (const auto& u : kFixedUnits)
    if (u.symbol == unit) return UnitMeaning{u.dimension, u.factor};
  for (const auto& u : kPrefixedUnits) {
    if (unit.size() < u.symbol.size() || !unit.ends_with(u.symbol)) continue;
    const std::string_view prefix = unit.substr(0, unit.size() - u.symbol.size());
    for (const auto& p : kDecimalPrefixes)
      if (p.symbol == prefix) return UnitMeaning{u.dimension, p.factor * u.factor};
    if (u.binary_prefixes)
      for (const auto& p : kBinaryPrefixes)
        if (p.symbol == prefix) return UnitMeaning{u.dimension, p.factor * u.factor};
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

/// "a bandwidth such as \"300 GB/s\"" (plus the list of units when `with_units`).
std::string expectation(Dimension d, bool with_units) {
  std::string text = fmt::format("expected a {} such as \"{}\"", dimension_name(d), dimension_example(d));
  if (with_units && d != Dimension::Dimensionless)
    text += fmt::format(" (units: {})", dimension_units_help(d));
  return text;
}

/// Number printed with up to 6 significant digits and no trailing zeros: 300, 2.039, 1.5.
std::string format_number(double v) { return fmt::format("{:.6g}", v); }

/// Largest prefix whose factor is <= |v| (the first one when none is).
template <std::size_t N>
const Prefix& choose_prefix(const std::array<Prefix, N>& prefixes, double v) {
  const Prefix* chosen = &prefixes.front();
  for (const auto& p : prefixes)
    if (std::fabs(v) >= p.factor) chosen = &p;
  return *chosen;
}

/// Bytes and bytes/s: decimal prefixes, unless the value is a whole number of binary units and not
/// of decimal ones (164 KiB stays "164 KiB", 80e9 B is "80 GB").
std::string format_bytes_like(double v, std::string_view symbol) {
  const Prefix& decimal = choose_prefix(kDecimalPrefixes, v);
  if (std::fabs(v) >= kKi && std::fmod(v, decimal.factor) != 0.0) {
    const Prefix& binary = choose_prefix(kBinaryPrefixes, v);
    if (std::fmod(v, binary.factor) == 0.0)
      return fmt::format("{} {}{}", format_number(v / binary.factor), binary.symbol, symbol);
  }
  return fmt::format("{} {}{}", format_number(v / decimal.factor), decimal.symbol, symbol);
}

std::string format_decimal(double v, std::string_view symbol) {
  const Prefix& p = choose_prefix(kDecimalPrefixes, v);
  return fmt::format("{} {}{}", format_number(v / p.factor), p.symbol, symbol);
}

std::string format_time(double seconds) {
  struct TimeUnit {
    std::string_view symbol;
    double factor;
  };
  constexpr std::array<TimeUnit, 5> kTimeUnits = {
      {{"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}}};
  const TimeUnit* chosen = &kTimeUnits.back();
  if (seconds != 0.0) {
    chosen = &kTimeUnits.front();
    for (const auto& u : kTimeUnits)
      if (std::fabs(seconds) >= u.factor) chosen = &u;
  }
  return fmt::format("{} {}", format_number(seconds / chosen->factor), chosen->symbol);
}

std::string format_power(double watts) {
  if (watts != 0.0 && std::fabs(watts) < 1.0) return fmt::format("{} mW", format_number(watts * 1e3));
  if (std::fabs(watts) >= 1e6) return fmt::format("{} MW", format_number(watts / 1e6));
  if (std::fabs(watts) >= 1e3) return fmt::format("{} kW", format_number(watts / 1e3));
  return fmt::format("{} W", format_number(watts));
}

}  // namespace

std::string_view dimension_name(Dimension d) {
  switch (d) {
    case Dimension::Dimensionless: return "plain number";
    case Dimension::Time: return "time";
    case Dimension::Bytes: return "data size";
    case Dimension::Bandwidth: return "bandwidth";
    case Dimension::FlopRate: return "compute rate";
    case Dimension::Frequency: return "frequency";
    case Dimension::Power: return "power";
  }
  return "?";
}

std::string_view dimension_example(Dimension d) {
  switch (d) {
    case Dimension::Dimensionless: return "8";
    case Dimension::Time: return "1.5 us";
    case Dimension::Bytes: return "80 GB";
    case Dimension::Bandwidth: return "300 GB/s";
    case Dimension::FlopRate: return "312 TFLOP/s";
    case Dimension::Frequency: return "1.41 GHz";
    case Dimension::Power: return "400 W";
  }
  return "?";
}

std::string_view dimension_units_help(Dimension d) {
  switch (d) {
    case Dimension::Dimensionless: return "none";
    case Dimension::Time: return "s, ms, us (or \xC2\xB5s), ns, ps, min, h";
    case Dimension::Bytes: return "B (bytes), b (bits) with prefixes k M G T P or Ki Mi Gi Ti Pi";
    case Dimension::Bandwidth: return "B/s (bytes), b/s (bits) with prefixes k M G T P or Ki Mi Gi Ti Pi";
    case Dimension::FlopRate: return "FLOP/s, OP/s with prefixes k M G T P";
    case Dimension::Frequency: return "Hz, kHz, MHz, GHz, THz";
    case Dimension::Power: return "mW, W, kW, MW";
  }
  return "?";
}

double parse(std::string_view text, Dimension expected) {
  const std::string_view s = trim(text);
  // std::from_chars does not take a leading '+'; accept it by hand.
  const std::string_view digits = s.starts_with('+') ? s.substr(1) : s;
  double number = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (end == digits.data() || (s.size() != digits.size() && (digits.starts_with('-') || digits.starts_with('+'))))
    throw UnitError(fmt::format("not a number: {}; {}", quote(text), expectation(expected, false)));
  if (ec == std::errc::result_out_of_range || !std::isfinite(number))
    throw UnitError(fmt::format("not a finite number: {}; {}", quote(text), expectation(expected, false)));
  if (number == 0.0) number = 0.0;  // -0 is 0

  const auto unit_length = static_cast<std::size_t>(digits.data() + digits.size() - end);
  const std::string_view unit = trim(std::string_view(end, unit_length));
  if (unit.empty()) {
    if (expected == Dimension::Dimensionless) return number;
    throw UnitError(fmt::format("missing unit: {}; {}", quote(text), expectation(expected, true)));
  }
  const auto meaning = lookup_unit(unit);
  if (!meaning)
    throw UnitError(fmt::format("unknown unit {} in {}; {}", quote(unit), quote(text), expectation(expected, true)));
  if (meaning->dimension != expected)
    throw UnitError(fmt::format("{} is a {}, {}", quote(text), dimension_name(meaning->dimension),
                                expectation(expected, false)));
  const double value = number * meaning->factor;
  if (!std::isfinite(value))
    throw UnitError(fmt::format("{} is too large to be a {}: it must be {}", quote(text), dimension_name(expected),
                                range_text(expected)));
  return value;
}

Range plausible_range(Dimension d) {
  switch (d) {
    case Dimension::Dimensionless: break;
    case Dimension::Time: return {1e-12, 1.0};       // 1 ps .. 1 s: link latencies, step and launch overheads
    case Dimension::Bytes: return {1.0, 1e15};       // 1 B .. 1 PB: memories, buckets, chunks
    case Dimension::Bandwidth: return {1e3, 1e18};   // 1 kB/s .. 1000 PB/s
    case Dimension::FlopRate: return {1e6, 1e18};    // 1 MFLOP/s .. 1000 PFLOP/s
    case Dimension::Frequency: return {1e6, 1e11};   // 1 MHz .. 100 GHz
    case Dimension::Power: return {1e-3, 1e6};       // 1 mW .. 1 MW
  }
  return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
}

bool plausible(double value_si, Dimension d) {
  if (d == Dimension::Dimensionless) return true;
  const Range r = plausible_range(d);
  return value_si >= r.min && value_si <= r.max;
}

std::string range_text(Dimension d) {
  const Range r = plausible_range(d);
  return fmt::format("between {} and {}", format(r.min, d), format(r.max, d));
}

std::string format(double value_si, Dimension d) {
  switch (d) {
    case Dimension::Dimensionless: return format_number(value_si);
    case Dimension::Time: return format_time(value_si);
    case Dimension::Bytes: return format_bytes_like(value_si, "B");
    case Dimension::Bandwidth: return format_bytes_like(value_si, "B/s");
    case Dimension::FlopRate: return format_decimal(value_si, "FLOP/s");
    case Dimension::Frequency: return format_decimal(value_si, "Hz");
    case Dimension::Power: return format_power(value_si);
  }
  return format_number(value_si);
}

}  // namespace clearfog::units
