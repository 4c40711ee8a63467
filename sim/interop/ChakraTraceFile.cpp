#include "interop/ChakraTraceFile.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fstream>

#include "core/Errors.hpp"

namespace clearfog::interop {
namespace {

namespace pbio = google::protobuf::io;

void write_message(pbio::CodedOutputStream& out, const google::protobuf::MessageLite& message) {
  out.WriteVarint64(message.ByteSizeLong());
  message.SerializeWithCachedSizes(&out);
}

/// Reads the next framed message into `message`; false at a clean end of file.
bool read_message(pbio::CodedInputStream& in, google::protobuf::MessageLite& message, const std::filesystem::path& file,
                  std::size_t index) {
  std::uint64_t size = 0;
  if (!in.ReadVarint64(&size)) return false;  // end of file
  if (size > static_cast<std::uint64_t>(INT32_MAX))
    throw Error(fmt::format("{}: message {}: length {} is larger than a protobuf message can be", file.string(), index,
                            size));
  const auto limit = in.PushLimit(static_cast<int>(size));
  if (!message.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage() || in.BytesUntilLimit() != 0)
    throw Error(fmt::format("{}: message {} ({} B) is cut short or is no {}", file.string(), index, size,
                            message.GetTypeName()));
  in.PopLimit(limit);
  return true;
}

}  // namespace

void write_chakra_trace(const std::filesystem::path& file, const ChakraTrace& trace) {
  std::ofstream stream(file, std::ios::binary | std::ios::trunc);
  if (!stream) throw Error(fmt::format("{}: cannot be written", file.string()));
  {
    pbio::OstreamOutputStream raw(&stream);
    pbio::CodedOutputStream out(&raw);
    write_message(out, trace.metadata);
    for (const auto& node : trace.nodes) write_message(out, node);
    if (out.HadError()) throw Error(fmt::format("{}: writing failed", file.string()));
  }
  stream.close();
  if (!stream) throw Error(fmt::format("{}: writing failed", file.string()));
}

ChakraTrace read_chakra_trace(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw Error(fmt::format("{}: cannot be opened", file.string()));
  pbio::IstreamInputStream raw(&stream);
  pbio::CodedInputStream in(&raw);
  in.SetTotalBytesLimit(INT32_MAX);
  ChakraTrace trace;
  if (!read_message(in, trace.metadata, file, 0))
    throw Error(fmt::format("{}: empty; a Chakra trace starts with a GlobalMetadata message", file.string()));
  for (std::size_t i = 1;; ++i) {
    ChakraProtoMsg::Node node;
    if (!read_message(in, node, file, i)) break;
    trace.nodes.push_back(std::move(node));
  }
  return trace;
}

}  // namespace clearfog::interop
