// Chakra attribute reading: an integer attribute reads the same in each of the schema's integer
// types (sim/interop/et_def.proto's AttributeProto oneof), scalars and lists, so traces from other
// writers and clearfog's own earlier exports (int64 where Chakra's reader takes int32) import alike.
#include <catch2/catch.hpp>
#include <google/protobuf/descriptor.h>

#include <cstdint>
#include <vector>

#include "interop/ChakraNodeAttrs.hpp"
#include "support/ChakraTestTraces.hpp"

using namespace clearfog;
using A = ChakraProtoMsg::AttributeProto;

namespace {

/// `node`'s attribute `name` = `values`, in the list field `type`.
void set_list(ChakraProtoMsg::Node& node, const std::string& name, const std::vector<std::int64_t>& values,
              A::ValueCase type) {
  A* a = node.add_attr();
  a->set_name(name);
  for (const auto v : values) switch (type) {
      case A::kInt32List: a->mutable_int32_list()->add_values(static_cast<std::int32_t>(v)); break;
      case A::kInt64List: a->mutable_int64_list()->add_values(v); break;
      case A::kUint32List: a->mutable_uint32_list()->add_values(static_cast<std::uint32_t>(v)); break;
      case A::kUint64List: a->mutable_uint64_list()->add_values(static_cast<std::uint64_t>(v)); break;
      case A::kSint32List: a->mutable_sint32_list()->add_values(static_cast<std::int32_t>(v)); break;
      case A::kSint64List: a->mutable_sint64_list()->add_values(v); break;
      case A::kFixed32List: a->mutable_fixed32_list()->add_values(static_cast<std::uint32_t>(v)); break;
      case A::kFixed64List: a->mutable_fixed64_list()->add_values(static_cast<std::uint64_t>(v)); break;
      case A::kSfixed32List: a->mutable_sfixed32_list()->add_values(static_cast<std::int32_t>(v)); break;
      case A::kSfixed64List: a->mutable_sfixed64_list()->add_values(v); break;
      default: FAIL("not an integer list: " << static_cast<int>(type));
    }
}

std::string field_name(A::ValueCase type) { return A::descriptor()->FindFieldByNumber(type)->name(); }

}  // namespace

TEST_CASE("interop::int_attr: an integer reads the same in every integer type of the schema", "[interop]") {
  const std::int64_t value = 70000;  // fits each type, and past 16 bits
  for (const auto type : test::integer_scalar_types()) {
    INFO(field_name(type));
    ChakraProtoMsg::Node node;
    test::add_int_attr_as(node, "comm_src", value, type);
    CHECK(interop::int_attr(node, "comm_src") == value);
    CHECK(interop::number_attr(node, "comm_src") == Approx(static_cast<double>(value)));
    CHECK_FALSE(interop::int_attr(node, "comm_dst"));  // absent
  }
}

TEST_CASE("interop::int_list_attr: an integer list reads the same in every integer list type of the schema",
          "[interop]") {
  const std::vector<std::int64_t> values = {0, 3, 70000};
  for (const auto type : {A::kInt32List, A::kInt64List, A::kUint32List, A::kUint64List, A::kSint32List,
                          A::kSint64List, A::kFixed32List, A::kFixed64List, A::kSfixed32List, A::kSfixed64List}) {
    INFO(field_name(type));
    ChakraProtoMsg::Node node;
    set_list(node, "comm_group", values, type);
    CHECK(interop::int_list_attr(node, "comm_group") == values);
  }
}

TEST_CASE("interop::int_attr: a value that is no integer reads as none", "[interop]") {
  ChakraProtoMsg::Node node;
  A* a = node.add_attr();
  a->set_name("comm_src");
  a->set_string_val("1");
  CHECK_FALSE(interop::int_attr(node, "comm_src"));
  CHECK_FALSE(interop::int_list_attr(node, "comm_src"));
}
