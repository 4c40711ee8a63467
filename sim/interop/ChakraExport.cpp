#include "interop/ChakraExport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "core/Errors.hpp"

namespace clearfog::interop {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;
using program::OpIndex;
using program::RankProgram;
using NodeIds = std::vector<std::uint64_t>;

/// Chakra's type of a clearfog collective; none for SendRecv, which is exported as its transfers.
std::optional<ChakraProtoMsg::CollectiveCommType> comm_type(config::CollectiveOp op) {
  switch (op) {
    case config::CollectiveOp::AllReduce: return ChakraProtoMsg::ALL_REDUCE;
    case config::CollectiveOp::ReduceScatter: return ChakraProtoMsg::REDUCE_SCATTER;
    case config::CollectiveOp::AllGather: return ChakraProtoMsg::ALL_GATHER;
    case config::CollectiveOp::AllToAll: return ChakraProtoMsg::ALL_TO_ALL;
    case config::CollectiveOp::Broadcast: return ChakraProtoMsg::BROADCAST;
    case config::CollectiveOp::Reduce: return ChakraProtoMsg::REDUCE;
    case config::CollectiveOp::SendRecv: return std::nullopt;
  }
  return std::nullopt;
}

// Each attribute Chakra's reader knows is written in the one value type that reader takes: it reads
// the field of that type and gets 0 from any other (mlcommons/chakra src/feeder/et_feeder_node.cpp,
// ETFeederNode's constructor; docs/interop.md, "The files").

/// comm_type, comm_size (the reader's int64_val).
void add_int64(Node& node, const std::string& name, std::int64_t value) {
  AttributeProto* a = node.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

/// comm_src, comm_dst, comm_tag (the reader's int32_val). Throws clearfog::Error for a value
/// outside int32: written truncated, it would name another rank or message.
void add_int32(Node& node, const std::string& name, std::int64_t value) {
  if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
    throw Error(fmt::format("Chakra export: node {}: {} {} does not fit the int32 Chakra reads it as", node.id(),
                            name, value));
  AttributeProto* a = node.add_attr();
  a->set_name(name);
  a->set_int32_val(static_cast<std::int32_t>(value));
}

void add_string(google::protobuf::RepeatedPtrField<AttributeProto>& attrs, const std::string& name,
                const std::string& value) {
  AttributeProto* a = attrs.Add();
  a->set_name(name);
  a->set_string_val(value);
}

/// A plan tag as a signed value; one past int64 stays past int32, for add_int32 to refuse.
std::int64_t tag_value(std::uint64_t tag) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(tag, std::numeric_limits<std::int64_t>::max()));
}

std::int64_t whole_bytes(double bytes) { return std::llround(bytes); }
std::uint64_t micros(double seconds) { return static_cast<std::uint64_t>(std::llround(seconds * 1e6)); }

/// Builds one rank's nodes op by op.
class RankTraceBuilder {
public:
  RankTraceBuilder(const RankProgram& program, const collectives::CollectiveLog& log, int rank)
      : program_(program), log_(log), rank_(rank), collective_of_op_(program.size(), -1),
        nodes_of_op_(program.size()) {
    const auto& records = log.records();
    for (std::size_t c = 0; c < records.size(); ++c) {
      if (!comm_type(records[c].op)) continue;
      for (const auto& range : records[c].ops)
        if (range.rank == rank)
          for (OpIndex i = range.first; i < range.end && i < program.size(); ++i)
            collective_of_op_[i] = static_cast<int>(c);
    }
  }

  std::vector<Node> build() {
    for (OpIndex i = 0; i < program_.size(); ++i) {
      if (collective_of_op_[i] >= 0) {
        i = add_collective(i) - 1;
      } else if (program_.kind(i) == program::OpKind::Compute || program_.transfer_begin(i) == program_.transfer_end(i)) {
        add_compute(i);
      } else {
        add_transfers(i);
      }
    }
    return std::move(nodes_);
  }

private:
  /// A new node for op `i` with the dependencies of `ops` (those outside `ops` themselves).
  Node& add_node(OpIndex i, ChakraProtoMsg::NodeType type, const std::string& name, OpIndex ops_first,
                 OpIndex ops_end) {
    Node& node = nodes_.emplace_back();
    node.set_id(nodes_.size() - 1);
    node.set_name(name);
    node.set_type(type);
    NodeIds data;
    for (OpIndex op = ops_first; op < ops_end; ++op)
      for (const OpIndex d : program_.deps(op))
        if (d < ops_first || d >= ops_end) data.insert(data.end(), nodes_of_op_[d].begin(), nodes_of_op_[d].end());
    std::sort(data.begin(), data.end());
    data.erase(std::unique(data.begin(), data.end()), data.end());
    for (const auto id : data) node.add_data_deps(id);
    for (const auto id : stream_tail_[static_cast<int>(program_.stream(i))])
      if (!std::binary_search(data.begin(), data.end(), id)) node.add_ctrl_deps(id);
    AttributeProto* cpu = node.add_attr();
    cpu->set_name("is_cpu_op");
    cpu->set_bool_val(false);
    add_string(*node.mutable_attr(), "stream", std::string(program::stream_name(program_.stream(i))));
    add_string(*node.mutable_attr(), "category", std::string(program::category_name(program_.category(i))));
    return node;
  }

  /// Op `i` ends as `ids`: later ops depend on them, and its stream runs on after them.
  void finish(OpIndex i, const NodeIds& ids) {
    nodes_of_op_[i] = ids;
    stream_tail_[static_cast<int>(program_.stream(i))] = ids;
  }

  void add_compute(OpIndex i) {
    Node& node = add_node(i, ChakraProtoMsg::COMP_NODE, std::string(program_.name(i)), i, i + 1);
    node.set_duration_micros(micros(program_.seconds(i)));
    AttributeProto* seconds = node.add_attr();
    seconds->set_name("duration_s");
    seconds->set_double_val(program_.seconds(i));
    finish(i, {node.id()});
  }

  /// One node per transfer of an exchange that belongs to no collective (pipeline p2p).
  void add_transfers(OpIndex i) {
    NodeIds ids;
    for (std::uint32_t t = program_.transfer_begin(i); t < program_.transfer_end(i); ++t) {
      const bool send = t < program_.sends_end(i);
      Node& node = add_node(i, send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE,
                            std::string(program_.name(i)), i, i + 1);
      add_int32(node, "comm_src", send ? rank_ : program_.peer(t));
      add_int32(node, "comm_dst", send ? program_.peer(t) : rank_);
      add_int32(node, "comm_tag", tag_value(program_.tag(t)));
      add_int64(node, "comm_size", whole_bytes(program_.bytes(t)));
      ids.push_back(node.id());
    }
    finish(i, ids);
  }

  /// The ops of one collective (its rounds) as one COMM_COLL node, made at its first op. Returns
  /// the index past its last op.
  OpIndex add_collective(OpIndex i) {
    const auto& record = log_.records()[static_cast<std::size_t>(collective_of_op_[i])];
    OpIndex end = i;
    while (end < program_.size() && collective_of_op_[end] == collective_of_op_[i]) ++end;
    Node& node = add_node(i, ChakraProtoMsg::COMM_COLL_NODE, record.name, i, end);
    add_int64(node, "comm_type", *comm_type(record.op));
    add_int64(node, "comm_size", whole_bytes(record.bytes));
    AttributeProto* group = node.add_attr();
    group->set_name("comm_group");
    for (std::size_t m = 0; m < record.ops.size() && m < static_cast<std::size_t>(record.members); ++m)
      group->mutable_int64_list()->add_values(record.ops[m].rank);
    add_string(*node.mutable_attr(), "algorithm", std::string(config::collective_algorithm_name(record.algorithm)));
    if (record.network_share != 1) {  // DeepEP's de-duplication (a clearfog extension, docs/interop.md)
      AttributeProto* share = node.add_attr();
      share->set_name("network_share");
      share->set_double_val(record.network_share);
    }
    if (!record.matrix.empty()) add_per_peer_sizes(node, record);
    const NodeIds ids = {node.id()};
    for (OpIndex op = i; op < end; ++op) finish(op, ids);
    return end;
  }

  /// An all-to-all-v's split (a clearfog extension, docs/interop.md): the bytes this rank sends
  /// each member and receives from each, in comm_group's order.
  void add_per_peer_sizes(Node& node, const collectives::CollectiveRecord& record) const {
    const auto members = std::min(record.matrix.size(), record.ops.size());
    std::size_t self = 0;
    while (self < members && record.ops[self].rank != rank_) ++self;
    if (self == members) return;
    AttributeProto* send = node.add_attr();
    send->set_name("comm_send_sizes");
    AttributeProto* recv = node.add_attr();
    recv->set_name("comm_recv_sizes");
    for (std::size_t peer = 0; peer < members; ++peer) {
      send->mutable_int64_list()->add_values(whole_bytes(record.matrix[self].at(peer)));
      recv->mutable_int64_list()->add_values(whole_bytes(record.matrix[peer].at(self)));
    }
  }

  const RankProgram& program_;
  const collectives::CollectiveLog& log_;
  int rank_;
  std::vector<int> collective_of_op_;  // index into log_.records(), -1: none
  std::vector<NodeIds> nodes_of_op_;
  std::array<NodeIds, program::kStreamCount> stream_tail_;
  std::vector<Node> nodes_;
};

}  // namespace

std::string chakra_file_name(int rank) { return fmt::format("et.{}.et", rank); }

ChakraTrace chakra_trace(const parallel::StepPlan& step, const collectives::CollectiveLog& log, int rank,
                         int devices, const std::string& scenario_name) {
  ChakraTrace trace;
  trace.metadata.set_version(kChakraSchemaVersion);
  auto& attrs = *trace.metadata.mutable_attr();
  add_string(attrs, "generator", std::string("clearfog ") + CLEARFOG_VERSION);
  add_string(attrs, "scenario", scenario_name);
  add_string(attrs, "rank", std::to_string(rank));
  add_string(attrs, "ranks", std::to_string(devices));
  trace.nodes = RankTraceBuilder(step.plan.ranks.at(static_cast<std::size_t>(rank)), log, rank).build();
  return trace;
}

ChakraExportSummary export_chakra(const parallel::StepPlan& step, const collectives::CollectiveLog& log, int devices,
                                  const std::filesystem::path& dir, const std::string& scenario_name) {
  ChakraExportSummary summary;
  for (int r = 0; r < std::min(devices, step.plan.rank_count()); ++r) {
    const ChakraTrace trace = chakra_trace(step, log, r, devices, scenario_name);
    write_chakra_trace(dir / chakra_file_name(r), trace);
    ++summary.files;
    summary.nodes += trace.nodes.size();
  }
  return summary;
}

}  // namespace clearfog::interop
