#pragma once
// A sharding plan of a DLRM's embedding tables: one choice per table (table-wise on a device,
// row-wise, column-wise, table-row-wise or data-parallel), applied to a spec as its written
// placement; and the exhaustive set of plans, one per class of plans that differ only by a
// renaming of interchangeable devices (docs/dlrm.md, "Choosing the sharding").
#include <cstdint>
#include <string>
#include <vector>

#include "workload/types/DlrmSpec.hpp"

namespace clearfog::workload {

struct TableChoice {
  TableSharding sharding = TableSharding::TableWise;
  int rank = kAutoPlacement;  // table-wise: the device; row-, column-wise: the first device (auto: 0)
  int shards = 0;             // row-, column-wise: devices (0: the default of DlrmPlacement)
  int host = kAutoPlacement;  // table-row-wise: the node (auto: the least loaded)
  friend bool operator==(const TableChoice&, const TableChoice&) = default;
};

using ShardPlan = std::vector<TableChoice>;  // one per table, in the spec's order

/// `spec` with every table placed as `plan` says (sizes, pooling and distributions kept).
/// Throws clearfog::Error when the plan has another number of tables.
DlrmSpec with_plan(const DlrmSpec& spec, const ShardPlan& plan);

/// The plan `spec` is written with (its tables' sharding, rank, shards and host).
ShardPlan written_plan(const DlrmSpec& spec);

/// A compact text of a plan: "cat0@3 cat1:rw cat2:cw cat3:dp cat4:trw@1" (a table-wise table
/// names its device, a table-row-wise one its node).
std::string plan_text(const DlrmSpec& spec, const ShardPlan& plan);

/// The space the exhaustive search covers on `group` devices: every table table-wise on any device,
/// row-wise over all devices, column-wise over all devices (where `group` divides its dim) or data
/// parallel. Devices are interchangeable when the group is one node's switch, except
/// `distinguished` (the model-parallel bottom MLP's device; kAutoPlacement: none): plans that differ
/// only by renaming the others are one plan. With several nodes every device is its own.
struct ShardSpace {
  int group = 1;
  bool interchangeable = true;
  int distinguished = kAutoPlacement;
};

/// How many plans exhaustive_plans() gives (without building them; saturates at UINT64_MAX).
std::uint64_t exhaustive_plan_count(const DlrmSpec& spec, const ShardSpace& space);

/// Every plan of the space, each class once (table-wise devices numbered in order of first use).
/// Throws clearfog::Error when there are more than `max_plans`.
std::vector<ShardPlan> exhaustive_plans(const DlrmSpec& spec, const ShardSpace& space, std::uint64_t max_plans);

}  // namespace clearfog::workload
