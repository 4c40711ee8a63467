#pragma once
// The one place where quantities with units are parsed and printed. Values are stored in SI base
// units: seconds, bytes, bytes/s, FLOP/s, Hz, W. Decimal prefixes (k M G T P) are powers of 1000,
// binary prefixes (Ki Mi Gi Ti Pi) powers of 1024; a lower-case "b" is a bit (1/8 byte).
#include <string>
#include <string_view>

namespace clearfog::units {

inline constexpr double kBytesPerGB = 1e9;  // the decimal gigabyte plots use for memory axes

enum class Dimension {
  Dimensionless,  ///< plain number
  Time,           ///< s, ms, us (µs), ns, min, h
  Bytes,          ///< B, kB, MB, GB, TB, KiB, MiB, GiB, TiB, b, kb, Mb, Gb (bits)
  Bandwidth,      ///< B/s, GB/s, GiB/s, b/s, Gb/s, ...
  FlopRate,       ///< FLOP/s, TFLOP/s, OP/s, TOP/s (integer ops count the same)
  Frequency,      ///< Hz, kHz, MHz, GHz
  Power,          ///< W, kW, mW
};

/// Human name of a dimension ("bandwidth") for error messages and the configuration reference.
std::string_view dimension_name(Dimension d);
/// Example value with a unit, e.g. "300 GB/s", for "what is allowed" messages.
std::string_view dimension_example(Dimension d);
/// The accepted unit spellings, e.g. "B/s, b/s with prefixes k M G T P or Ki Mi Gi Ti".
std::string_view dimension_units_help(Dimension d);

/// Thrown by parse() with a message that says what is wrong and what is allowed.
class UnitError : public std::exception {
public:
  explicit UnitError(std::string message) : message_(std::move(message)) {}
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

private:
  std::string message_;
};

/// Parses "300 GB/s", "1.5us", "80 GiB" into SI units. A bare number is rejected for every
/// dimension except Dimensionless; an unknown unit or a unit of another dimension is rejected, and
/// so is a value that is not finite once scaled ("1e300 PB/s"). -0 is read as 0.
double parse(std::string_view text, Dimension expected);

/// The values of a dimension clearfog accepts, in SI units (zero and signs are left to each key's
/// constraint). Wide enough for any hardware: the shipped files span 48 GFLOP/s (Cortex-A72) to 7.5
/// PFLOP/s (WSE-2), 12.8 GB/s to 20 PB/s, 500 ns to 14 us, 32 KiB to 448 GB, 1.05 to 1.98 GHz and
/// 170 W to 15 kW; narrow enough that every time and rate the models derive stays finite and far
/// from the limits of a double (a 1e-300 B/s link makes every transfer take forever).
struct Range {
  double min;  ///< smallest non-zero value
  double max;
};
Range plausible_range(Dimension d);

/// Whether a non-zero `value_si` lies in plausible_range(d) (always true for Dimensionless).
bool plausible(double value_si, Dimension d);

/// "between 1 kB/s and 1000 PB/s".
std::string range_text(Dimension d);

/// Formats an SI value with a readable prefix: format(3e11, Bandwidth) == "300 GB/s".
std::string format(double value, Dimension d);

}  // namespace clearfog::units
