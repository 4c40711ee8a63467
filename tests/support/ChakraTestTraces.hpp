#pragma once
// Chakra traces written by hand through the generated protobuf classes, for the import tests and
// the shipped example (scenarios/chakra/ring8, docs/interop.md).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "interop/ChakraTraceFile.hpp"

namespace clearfog::test {

inline void add_int_attr(ChakraProtoMsg::Node& node, const std::string& name, std::int64_t value) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

/// An integer attribute in the scalar field `type` of AttributeProto's oneof (int32_val ..
/// sfixed64_val): Chakra's writers and readers each take one.
inline void add_int_attr_as(ChakraProtoMsg::Node& node, const std::string& name, std::int64_t value,
                            ChakraProtoMsg::AttributeProto::ValueCase type) {
  using A = ChakraProtoMsg::AttributeProto;
  A* a = node.add_attr();
  a->set_name(name);
  switch (type) {
    case A::kInt32Val: a->set_int32_val(static_cast<std::int32_t>(value)); break;
    case A::kInt64Val: a->set_int64_val(value); break;
    case A::kUint32Val: a->set_uint32_val(static_cast<std::uint32_t>(value)); break;
    case A::kUint64Val: a->set_uint64_val(static_cast<std::uint64_t>(value)); break;
    case A::kSint32Val: a->set_sint32_val(static_cast<std::int32_t>(value)); break;
    case A::kSint64Val: a->set_sint64_val(value); break;
    case A::kFixed32Val: a->set_fixed32_val(static_cast<std::uint32_t>(value)); break;
    case A::kFixed64Val: a->set_fixed64_val(static_cast<std::uint64_t>(value)); break;
    case A::kSfixed32Val: a->set_sfixed32_val(static_cast<std::int32_t>(value)); break;
    case A::kSfixed64Val: a->set_sfixed64_val(value); break;
    default: a->clear_value(); break;  // not an integer scalar: left without a value
  }
}

/// The ten integer scalar types of AttributeProto's oneof.
inline const std::vector<ChakraProtoMsg::AttributeProto::ValueCase>& integer_scalar_types() {
  using A = ChakraProtoMsg::AttributeProto;
  static const std::vector<A::ValueCase> types = {A::kInt32Val,   A::kInt64Val,   A::kUint32Val,  A::kUint64Val,
                                                  A::kSint32Val,  A::kSint64Val,  A::kFixed32Val, A::kFixed64Val,
                                                  A::kSfixed32Val, A::kSfixed64Val};
  return types;
}

inline void add_int_list_attr(ChakraProtoMsg::Node& node, const std::string& name,
                              const std::vector<std::int64_t>& values) {
  auto* a = node.add_attr();
  a->set_name(name);
  for (const auto v : values) a->mutable_int64_list()->add_values(v);
}

/// A COMP_NODE of `seconds` (duration_micros and the exact duration_s).
inline ChakraProtoMsg::Node comp_node(std::uint64_t id, const std::string& name, double seconds) {
  ChakraProtoMsg::Node node;
  node.set_id(id);
  node.set_name(name);
  node.set_type(ChakraProtoMsg::COMP_NODE);
  node.set_duration_micros(static_cast<std::uint64_t>(std::llround(seconds * 1e6)));
  auto* s = node.add_attr();
  s->set_name("duration_s");
  s->set_double_val(seconds);
  return node;
}

/// A COMM_COLL_NODE of `type` over ranks 0 .. ranks-1 (comm_group written out), depending on `dep`.
inline ChakraProtoMsg::Node coll_node(std::uint64_t id, ChakraProtoMsg::CollectiveCommType type, std::int64_t bytes,
                                      int ranks, std::uint64_t dep) {
  ChakraProtoMsg::Node node;
  node.set_id(id);
  node.set_name("all_reduce");
  node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
  node.add_data_deps(dep);
  add_int_attr(node, "comm_type", type);
  add_int_attr(node, "comm_size", bytes);
  auto* group = node.add_attr();
  group->set_name("comm_group");
  for (int r = 0; r < ranks; ++r) group->mutable_int64_list()->add_values(r);
  return node;
}

/// Rank `rank`'s trace of a ring step: node 0 computes `compute_s`, node 1 all-reduces `bytes`
/// over every rank once node 0 is done.
inline interop::ChakraTrace ring_trace(int rank, int ranks, double compute_s, std::int64_t bytes) {
  interop::ChakraTrace trace;
  trace.metadata.set_version("0.0.4");
  auto* a = trace.metadata.add_attr();
  a->set_name("rank");
  a->set_string_val(std::to_string(rank));
  trace.nodes.push_back(comp_node(0, "compute", compute_s));
  trace.nodes.push_back(coll_node(1, ChakraProtoMsg::ALL_REDUCE, bytes, ranks, 0));
  return trace;
}

/// ring_trace() of every rank, as dir/et.<rank>.et.
inline void write_ring_traces(const std::filesystem::path& dir, int ranks, double compute_s, std::int64_t bytes) {
  std::filesystem::create_directories(dir);
  for (int r = 0; r < ranks; ++r)
    interop::write_chakra_trace(dir / ("et." + std::to_string(r) + ".et"), ring_trace(r, ranks, compute_s, bytes));
}

}  // namespace clearfog::test
