#pragma once
// A Chakra trace that cannot be imported: a file that does not parse, a node of a type clearfog
// does not model, dependencies that dangle or form a cycle, collectives or messages whose members
// disagree. Bad input, so a ConfigError (exit 2); located by the file and the node id.
#include <string>

#include "core/Errors.hpp"

namespace clearfog::interop {

class ChakraImportError : public ConfigError {
public:
  /// "<file>: <message>"; `node` (e.g. "node 5") is the diagnostic's key, empty for the whole file.
  ChakraImportError(const std::string& file, std::string node, std::string message)
      : ConfigError({Diagnostic{SourceLocation{file, 0, 0}, std::move(node), std::move(message)}}) {}
};

}  // namespace clearfog::interop
