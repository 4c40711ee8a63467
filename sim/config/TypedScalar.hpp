#pragma once
// One scalar typed against its key: an integer, a number, a quantity with its unit, a string, a
// choice or a boolean, checked against the key's constraint and the scale limits of its path.
#include <string>

#include "config/ConfigValue.hpp"
#include "config/KeySpec.hpp"
#include "config/ScaleLimits.hpp"

namespace clearfog::config {

/// A scalar typed against its KeySpec: the typed data, or the message of what is wrong.
struct TypedScalar {
  ConfigValue::Data data;
  std::string error;  ///< empty when valid
};

/// The limits of one key beyond its type and constraint (ScaleLimits); none when null.
struct ScalarLimits {
  const KeyLimit* count = nullptr;
  const QuantityFloor* floor = nullptr;
};

/// Types `text` against `spec`, a key of a scalar type (not a reference or a record: logic_error).
TypedScalar type_scalar(const KeySpec& spec, const std::string& text, ScalarLimits limits);

}  // namespace clearfog::config
