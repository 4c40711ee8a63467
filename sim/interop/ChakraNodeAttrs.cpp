#include "interop/ChakraNodeAttrs.hpp"

namespace clearfog::interop {

using ChakraProtoMsg::AttributeProto;

namespace {

template <typename List>
std::vector<std::int64_t> to_ints(const List& list) {
  std::vector<std::int64_t> out;
  for (const auto v : list.values()) out.push_back(static_cast<std::int64_t>(v));
  return out;
}

}  // namespace

const AttributeProto* find_attr(const ChakraProtoMsg::Node& node, std::string_view name) {
  for (const auto& a : node.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

std::optional<std::int64_t> int_attr(const ChakraProtoMsg::Node& node, std::string_view name) {
  const AttributeProto* a = find_attr(node, name);
  if (!a) return std::nullopt;
  switch (a->value_case()) {
    case AttributeProto::kInt32Val: return a->int32_val();
    case AttributeProto::kInt64Val: return a->int64_val();
    case AttributeProto::kUint32Val: return a->uint32_val();
    case AttributeProto::kUint64Val: return static_cast<std::int64_t>(a->uint64_val());
    case AttributeProto::kSint32Val: return a->sint32_val();
    case AttributeProto::kSint64Val: return a->sint64_val();
    case AttributeProto::kFixed32Val: return a->fixed32_val();
    case AttributeProto::kFixed64Val: return static_cast<std::int64_t>(a->fixed64_val());
    case AttributeProto::kSfixed32Val: return a->sfixed32_val();
    case AttributeProto::kSfixed64Val: return a->sfixed64_val();
    default: return std::nullopt;
  }
}

std::optional<double> number_attr(const ChakraProtoMsg::Node& node, std::string_view name) {
  const AttributeProto* a = find_attr(node, name);
  if (!a) return std::nullopt;
  if (a->value_case() == AttributeProto::kDoubleVal) return a->double_val();
  if (a->value_case() == AttributeProto::kFloatVal) return a->float_val();
  const auto i = int_attr(node, name);
  return i ? std::optional<double>(static_cast<double>(*i)) : std::nullopt;
}

std::optional<std::string> string_attr(const ChakraProtoMsg::Node& node, std::string_view name) {
  const AttributeProto* a = find_attr(node, name);
  if (!a || a->value_case() != AttributeProto::kStringVal) return std::nullopt;
  return a->string_val();
}

std::optional<std::vector<std::int64_t>> int_list_attr(const ChakraProtoMsg::Node& node, std::string_view name) {
  const AttributeProto* a = find_attr(node, name);
  if (!a) return std::nullopt;
  switch (a->value_case()) {
    case AttributeProto::kInt64List: return to_ints(a->int64_list());
    case AttributeProto::kInt32List: return to_ints(a->int32_list());
    case AttributeProto::kUint64List: return to_ints(a->uint64_list());
    case AttributeProto::kUint32List: return to_ints(a->uint32_list());
    case AttributeProto::kSint64List: return to_ints(a->sint64_list());
    case AttributeProto::kSint32List: return to_ints(a->sint32_list());
    case AttributeProto::kFixed64List: return to_ints(a->fixed64_list());
    case AttributeProto::kFixed32List: return to_ints(a->fixed32_list());
    case AttributeProto::kSfixed64List: return to_ints(a->sfixed64_list());
    case AttributeProto::kSfixed32List: return to_ints(a->sfixed32_list());
    default: return std::nullopt;
  }
}

}  // namespace clearfog::interop
