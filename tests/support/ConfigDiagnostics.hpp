#pragma once
// Helpers of the config tests: fixture paths under tests/data/config and the diagnostics a load
// throws, checked by location, key and message.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/Errors.hpp"

namespace clearfog::test {

inline std::string config_fixture(const std::string& relative) {
  return (std::filesystem::path(CLEARFOG_TEST_DATA_DIR) / "config" / relative).lexically_normal().string();
}

/// The diagnostics that `load` throws; fails the test when it does not throw.
inline std::vector<Diagnostic> diagnostics_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  FAIL("expected a ConfigError");
  return {};
}

inline void check_diagnostic(const Diagnostic& d, const std::string& file, int line, int column,
                             const std::string& key, const std::string& fragment) {
  INFO(d.str());
  CHECK(d.location.file == file);
  CHECK(d.location.line == line);
  CHECK(d.location.column == column);
  CHECK(d.key == key);
  CHECK_THAT(d.message, Catch::Matchers::Contains(fragment));
}

}  // namespace clearfog::test
