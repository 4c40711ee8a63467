#include "config/TypedScalar.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "core/Quote.hpp"
#include "core/Units.hpp"

namespace clearfog::config {

namespace {

/// "must be > 0", "must be 0 or between 1 ps and 1 s": what a quantity's value must be.
std::string quantity_rule_text(const KeySpec& spec) {
  const std::string zero = satisfies(spec.constraint, 0.0) ? "0 or " : "";
  return fmt::format("must be {}{}", zero, units::range_text(spec.dimension));
}

}  // namespace

TypedScalar type_scalar(const KeySpec& spec, const std::string& text, ScalarLimits limits) {
  const KeyLimit* limit = limits.count;
  const QuantityFloor* floor = limits.floor;
  const auto got = fmt::format("got {}", quote(text));
  const auto constraint_error = [&] {
    return fmt::format("must be {}, {}", constraint_text(spec.constraint), got);
  };
  switch (spec.type) {
    case KeyType::Integer: {
      std::int64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc{} || end != text.data() + text.size())
        return {{}, fmt::format("expected {}, {}", element_expected_text(spec), got)};
      if (n > INT_MAX || n < INT_MIN)
        return {{}, fmt::format("expected {} below 2^31, {}", element_expected_text(spec), got)};
      if (!satisfies(spec.constraint, static_cast<double>(n))) return {{}, constraint_error()};
      if (limit && n > limit->max)
        return {{}, fmt::format("{} is too many: {}", quote(text), over_limit_text(n, limit->max, limit->unit, limit->cost))};
      return {n, {}};
    }
    case KeyType::Number: {
      double x = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
      if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(x))
        return {{}, fmt::format("expected {}, {}", element_expected_text(spec), got)};
      if (x == 0.0) x = 0.0;  // -0 is 0
      if (!satisfies(spec.constraint, x)) return {{}, constraint_error()};
      return {x, {}};
    }
    case KeyType::Quantity: {
      double x = 0;
      try {
        x = units::parse(text, spec.dimension);
      } catch (const units::UnitError& e) {
        return {{}, e.what()};
      }
      if (!satisfies(spec.constraint, x)) return {{}, constraint_error()};
      // The range is a property of the dimension; zero and the sign are the constraint's.
      if (x != 0.0 && !units::plausible(x, spec.dimension))
        return {{}, fmt::format("{} (a plausible {}), {}", quantity_rule_text(spec), units::dimension_name(spec.dimension), got)};
      if (floor && x != 0.0 && x < floor->min)
        return {{}, fmt::format("must be {}at least {} ({}), {}", satisfies(spec.constraint, 0.0) ? "0 or " : "",
                                units::format(floor->min, spec.dimension), floor->reason, got)};
      return {x, {}};
    }
    case KeyType::String: return {text, {}};
    case KeyType::Kind:
    case KeyType::Enum: {
      if (std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end()) return {text, {}};
      return {{}, fmt::format("unknown value {}; allowed: {}", quote(text), fmt::join(spec.choices, ", "))};
    }
    case KeyType::Bool:
      if (text == "true") return {true, {}};
      if (text == "false") return {false, {}};
      return {{}, fmt::format("expected {}, {}", element_expected_text(spec), got)};
    case KeyType::Reference:
    case KeyType::Record: break;
  }
  throw std::logic_error("type_scalar: a reference or a record is not a scalar value");
}

}  // namespace clearfog::config
