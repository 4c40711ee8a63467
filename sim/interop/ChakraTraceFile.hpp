#pragma once
// One Chakra execution-trace file (MLCommons Chakra): a GlobalMetadata message, then Nodes, each
// message preceded by its length as a varint (the framing of Chakra's protolib encode_message).
#include <filesystem>
#include <vector>

#include "interop/et_def.pb.h"

namespace clearfog::interop {

struct ChakraTrace {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

/// Writes `trace` to `file`, replacing it. Throws clearfog::Error when the file cannot be written.
void write_chakra_trace(const std::filesystem::path& file, const ChakraTrace& trace);

/// Reads a trace written by clearfog or by Chakra's tools. Throws clearfog::Error naming the file
/// and the message number for a file that cannot be opened, is cut short or does not parse.
ChakraTrace read_chakra_trace(const std::filesystem::path& file);

}  // namespace clearfog::interop
