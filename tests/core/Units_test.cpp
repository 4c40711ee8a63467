// units::parse / format: every dimension, decimal and binary prefixes, bits vs bytes, and every
// rejection with a message that says what is allowed.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/Units.hpp"

using clearfog::units::Dimension;
using clearfog::units::format;
using clearfog::units::parse;
using clearfog::units::UnitError;
using Catch::Matchers::Contains;

namespace {

constexpr double kKi = 1024.0;

}  // namespace

TEST_CASE("units::parse: reads every dimension in SI units", "[units]") {
  SECTION("time") {
    CHECK(parse("1.5 us", Dimension::Time) == Approx(1.5e-6));
    CHECK(parse("1.5us", Dimension::Time) == Approx(1.5e-6));
    CHECK(parse("0.7 \xC2\xB5s", Dimension::Time) == Approx(0.7e-6));  // micro sign
    CHECK(parse("0.7 \xCE\xBCs", Dimension::Time) == Approx(0.7e-6));  // Greek mu
    CHECK(parse("3 ms", Dimension::Time) == Approx(3e-3));
    CHECK(parse("20 ns", Dimension::Time) == Approx(20e-9));
    CHECK(parse("2 s", Dimension::Time) == 2.0);
    CHECK(parse("2 min", Dimension::Time) == 120.0);
    CHECK(parse("1 h", Dimension::Time) == 3600.0);
  }
  SECTION("bytes") {
    CHECK(parse("25 MB", Dimension::Bytes) == 25e6);
    CHECK(parse("80 GiB", Dimension::Bytes) == 80 * kKi * kKi * kKi);
    CHECK(parse("164 KiB", Dimension::Bytes) == 164 * kKi);
    CHECK(parse("1 TB", Dimension::Bytes) == 1e12);
    CHECK(parse("512 B", Dimension::Bytes) == 512.0);
  }
  SECTION("bandwidth") {
    CHECK(parse("300 GB/s", Dimension::Bandwidth) == 300e9);
    CHECK(parse("3.35 TB/s", Dimension::Bandwidth) == Approx(3.35e12));
    CHECK(parse("1 GiB/s", Dimension::Bandwidth) == kKi * kKi * kKi);
  }
  SECTION("compute rate") {
    CHECK(parse("312 TFLOP/s", Dimension::FlopRate) == Approx(312e12));
    CHECK(parse("624 TOP/s", Dimension::FlopRate) == Approx(624e12));
    CHECK(parse("1 PFLOP/s", Dimension::FlopRate) == 1e15);
  }
  SECTION("frequency") {
    CHECK(parse("1.41 GHz", Dimension::Frequency) == Approx(1.41e9));
    CHECK(parse("1530 MHz", Dimension::Frequency) == Approx(1.53e9));
  }
  SECTION("power") {
    CHECK(parse("400 W", Dimension::Power) == 400.0);
    CHECK(parse("15 kW", Dimension::Power) == 15e3);
  }
  SECTION("plain numbers") {
    CHECK(parse("8", Dimension::Dimensionless) == 8.0);
    CHECK(parse("2.5e3", Dimension::Dimensionless) == 2500.0);
  }
  SECTION("signs, exponents and spaces") {
    CHECK(parse("-300 GB/s", Dimension::Bandwidth) == -300e9);  // the validator rejects the sign
    CHECK(parse("+2 us", Dimension::Time) == Approx(2e-6));
    CHECK(parse("1e3 MB", Dimension::Bytes) == 1e9);
    CHECK(parse("  300 GB/s  ", Dimension::Bandwidth) == 300e9);
  }
}

TEST_CASE("units::parse: a lower-case b is a bit", "[units]") {
  CHECK(parse("25 Gb/s", Dimension::Bandwidth) == 25e9 / 8);
  CHECK(parse("200 Gb/s", Dimension::Bandwidth) == 25e9);
  CHECK(parse("8 b", Dimension::Bytes) == 1.0);
  CHECK(parse("1 Mb", Dimension::Bytes) == 1e6 / 8);
}

TEST_CASE("units::parse: rejects bad quantities with what is allowed", "[units]") {
  SECTION("bare number for a dimensioned quantity") {
    CHECK_THROWS_WITH(parse("300", Dimension::Bandwidth),
                      Contains("missing unit: \"300\"; expected a bandwidth such as \"300 GB/s\" (units: B/s"));
  }
  SECTION("unknown unit") {
    CHECK_THROWS_WITH(parse("300 GB/sec", Dimension::Bandwidth), Contains("unknown unit \"GB/sec\""));
    CHECK_THROWS_WITH(parse("3 furlongs", Dimension::Time), Contains("(units: s, ms, us"));
    CHECK_THROWS_WITH(parse("1 KB", Dimension::Bytes), Contains("unknown unit \"KB\""));
  }
  SECTION("unit of another dimension") {
    CHECK_THROWS_WITH(parse("1 us", Dimension::Bandwidth),
                      Contains("\"1 us\" is a time, expected a bandwidth such as \"300 GB/s\""));
    CHECK_THROWS_WITH(parse("300 GB", Dimension::Bandwidth), Contains("is a data size, expected a bandwidth"));
    CHECK_THROWS_WITH(parse("3 GB", Dimension::Dimensionless), Contains("expected a plain number"));
  }
  SECTION("binary prefix on a compute rate") {
    CHECK_THROWS_AS(parse("1 GiFLOP/s", Dimension::FlopRate), UnitError);
  }
  SECTION("garbage") {
    CHECK_THROWS_WITH(parse("fast", Dimension::Bandwidth), Contains("not a number: \"fast\""));
    CHECK_THROWS_WITH(parse("", Dimension::Time), Contains("not a number"));
    CHECK_THROWS_WITH(parse("GB/s", Dimension::Bandwidth), Contains("not a number"));
    CHECK_THROWS_WITH(parse("+-3 GB/s", Dimension::Bandwidth), Contains("not a number"));
  }
  SECTION("not finite") {
    CHECK_THROWS_WITH(parse("inf GB/s", Dimension::Bandwidth), Contains("not a finite number"));
    CHECK_THROWS_WITH(parse("nan s", Dimension::Time), Contains("not a finite number"));
    CHECK_THROWS_WITH(parse("1e999 B", Dimension::Bytes), Contains("not a finite number"));
  }
}

TEST_CASE("units::format: picks a readable prefix", "[units]") {
  CHECK(format(3e11, Dimension::Bandwidth) == "300 GB/s");
  CHECK(format(2039e9, Dimension::Bandwidth) == "2.039 TB/s");
  CHECK(format(80e9, Dimension::Bytes) == "80 GB");
  CHECK(format(164 * kKi, Dimension::Bytes) == "164 KiB");
  CHECK(format(1.5e-6, Dimension::Time) == "1.5 us");
  CHECK(format(2.0, Dimension::Time) == "2 s");
  CHECK(format(312e12, Dimension::FlopRate) == "312 TFLOP/s");
  CHECK(format(1.41e9, Dimension::Frequency) == "1.41 GHz");
  CHECK(format(400, Dimension::Power) == "400 W");
  CHECK(format(0, Dimension::Bytes) == "0 B");
  CHECK(format(8, Dimension::Dimensionless) == "8");
}

TEST_CASE("units::format: parse reads back what format writes", "[units]") {
  struct Case {
    double value;
    Dimension dimension;
  };
  for (const auto& c : {Case{300e9, Dimension::Bandwidth}, Case{25e6, Dimension::Bytes},
                        Case{164 * kKi, Dimension::Bytes}, Case{1.5e-6, Dimension::Time},
                        Case{989.4e12, Dimension::FlopRate}}) {
    INFO(format(c.value, c.dimension));
    CHECK(parse(format(c.value, c.dimension), c.dimension) == Approx(c.value));
  }
}

TEST_CASE("units::parse: a value that overflows once scaled is refused, -0 is 0", "[units]") {
  // 1e300 fits a double; times the 1e15 of "P" it does not (DBL_MAX is about 1.8e308).
  CHECK_THROWS_WITH(parse("1e300 PB/s", Dimension::Bandwidth), Contains("too large to be a bandwidth"));
  CHECK_THROWS_WITH(parse("1e300 PFLOP/s", Dimension::FlopRate), Contains("between 1 MFLOP/s and 1000 PFLOP/s"));
  const double zero = parse("-0 us", Dimension::Time);
  CHECK(zero == 0.0);
  CHECK_FALSE(std::signbit(zero));
}

TEST_CASE("units::plausible: each dimension spans the shipped hardware and stops far from a double's limits",
          "[units]") {
  // The extremes of the shipped files (docs/reliability.md) lie inside their ranges.
  CHECK(clearfog::units::plausible(48e9, Dimension::FlopRate));     // Cortex-A72
  CHECK(clearfog::units::plausible(7.48e15, Dimension::FlopRate));  // WSE-2
  CHECK(clearfog::units::plausible(20e15, Dimension::Bandwidth));   // WSE-2 SRAM
  CHECK(clearfog::units::plausible(500e-9, Dimension::Time));
  CHECK(clearfog::units::plausible(448e9, Dimension::Bytes));
  CHECK(clearfog::units::plausible(15e3, Dimension::Power));
  // The examples lie outside.
  CHECK_FALSE(clearfog::units::plausible(1e-300, Dimension::Bandwidth));
  CHECK_FALSE(clearfog::units::plausible(1e300 * 3600, Dimension::Time));
  CHECK(clearfog::units::range_text(Dimension::Bandwidth) == "between 1 kB/s and 1000 PB/s");
}
