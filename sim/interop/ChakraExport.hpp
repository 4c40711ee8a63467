#pragma once
// clearfog's plan as Chakra execution traces (MLCommons Chakra, docs/interop.md): one trace per
// device (a reducing switch's endpoint, a rank of the plan but no device, is left out: the
// importing platform's collectives re-create its part). Compute ops become COMP nodes; the ops of
// one collective (its rounds of exchanges) become one COMM_COLL node, an all-to-all-v's with its
// per-peer split (comm_send_sizes, comm_recv_sizes); the other exchanges (pipeline activations
// and gradients) one COMM_SEND or COMM_RECV node per transfer. ctrl_deps follow program order on
// the op's stream, data_deps the plan's dependencies.
#include <cstdint>
#include <filesystem>
#include <string>

#include "collectives/CollectiveLog.hpp"
#include "interop/ChakraTraceFile.hpp"
#include "parallel/StepPlan.hpp"

namespace clearfog::interop {

/// The version written in GlobalMetadata: the Chakra schema release whose fields clearfog writes.
inline constexpr const char* kChakraSchemaVersion = "0.0.4";

/// The trace of `rank` of `step`'s plan, one of its first `devices` ranks (the devices); `log`
/// names the collectives the plan's ops belong to. Throws clearfog::Error for a message whose peer
/// or tag does not fit the int32 Chakra reads it as.
ChakraTrace chakra_trace(const parallel::StepPlan& step, const collectives::CollectiveLog& log, int rank,
                         int devices, const std::string& scenario_name);

/// The file name of `rank`'s trace: "et.<rank>.et".
std::string chakra_file_name(int rank);

struct ChakraExportSummary {
  int files = 0;
  std::uint64_t nodes = 0;
};

/// Writes the trace of each of the plan's first `devices` ranks (the devices) into `dir` (which
/// must exist). Throws clearfog::Error when a file cannot be written, or as chakra_trace().
ChakraExportSummary export_chakra(const parallel::StepPlan& step, const collectives::CollectiveLog& log, int devices,
                                  const std::filesystem::path& dir, const std::string& scenario_name);

}  // namespace clearfog::interop
