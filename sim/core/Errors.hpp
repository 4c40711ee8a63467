#pragma once
// Typed exceptions of clearfog. Library code throws these; only app/main.cpp turns them into
// messages and exit codes (ConfigError and BudgetError -> 2, everything else -> 1).
#include <stdexcept>
#include <string>
#include <vector>

namespace clearfog {

/// Base of every clearfog exception.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Where a value came from: a file position (1-based line and column) or a command-line override.
struct SourceLocation {
  std::string file;  ///< path as given by the user, or "--set" for command-line overrides
  int line = 0;      ///< 1-based; 0 when unknown
  int column = 0;    ///< 1-based; 0 when unknown
  [[nodiscard]] std::string str() const;
};

/// One problem found in user input.
struct Diagnostic {
  SourceLocation location;
  std::string key;      ///< dotted key path, e.g. "node.link.bandwidth"; empty for whole-file problems
  std::string message;  ///< what is wrong and what is allowed
  /// "file:line:col: key: message"
  [[nodiscard]] std::string str() const;
};

/// Bad user input (YAML, units, overrides, impossible configurations). Carries every problem found.
class ConfigError : public Error {
public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const noexcept { return diagnostics_; }

private:
  std::vector<Diagnostic> diagnostics_;
};

/// A bad command-line option: "--devices: 7 devices cannot share ...", exit 2 like any bad input.
ConfigError option_error(const std::string& option, const std::string& message);

/// A run that would need more than the memory it may use (`clearfog run --max-memory`), refused
/// before it starts; the message gives the estimate and what would make the run smaller.
class BudgetError : public Error {
public:
  using Error::Error;
};

/// A plan that cannot be carried out (unmatched messages, dependency cycles) or a simulation that
/// stopped with work left. Says what was waiting on what.
class SimulationError : public Error {
public:
  using Error::Error;
};

}  // namespace clearfog
