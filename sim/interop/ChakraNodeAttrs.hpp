#pragma once
// Reading a Chakra node's attributes (AttributeProto: a name and one typed value) whatever integer
// or floating type the writer chose: clearfog now writes comm_src, comm_dst and comm_tag as int32
// (the type Chakra's reader takes) and its earlier exports wrote them as int64; Chakra's tools write
// tensor_size as uint64, ...
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interop/et_def.pb.h"

namespace clearfog::interop {

/// The attribute named `name`, or nullptr.
const ChakraProtoMsg::AttributeProto* find_attr(const ChakraProtoMsg::Node& node, std::string_view name);

/// The value of `name` as an integer; nullopt when absent or not an integer scalar.
std::optional<std::int64_t> int_attr(const ChakraProtoMsg::Node& node, std::string_view name);
/// The value of `name` as a number (any integer or floating scalar); nullopt when absent.
std::optional<double> number_attr(const ChakraProtoMsg::Node& node, std::string_view name);
/// The value of `name` as a string; nullopt when absent or not a string.
std::optional<std::string> string_attr(const ChakraProtoMsg::Node& node, std::string_view name);
/// The value of `name` as a list of integers; nullopt when absent or not an integer list.
std::optional<std::vector<std::int64_t>> int_list_attr(const ChakraProtoMsg::Node& node, std::string_view name);

}  // namespace clearfog::interop
