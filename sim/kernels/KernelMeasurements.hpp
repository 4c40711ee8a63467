#pragma once
// A file of kernel measurements in the format scripts/measure-accelerator.py writes ("clearfog
// kernel measurements v1", docs/calibration.md): '#' comment lines, one fixed header, one row per
// measured kernel with the columns its kind uses. Parsing is strict: a row with a missing or
// malformed value, an unknown kind or dtype, or a time that is not > 0 is a located error.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/AttentionKernel.hpp"
#include "core/DType.hpp"

namespace clearfog::kernels {

enum class MeasurementKind { Gemm, Copy, Gather, Attention, Launch, Elementwise };

std::string_view measurement_kind_name(MeasurementKind k);

struct KernelMeasurement {
  MeasurementKind kind = MeasurementKind::Gemm;
  DType dtype = DType::fp32;  // gemm, gather, attention
  long long m = 0, n = 0, k = 0, batch = 0;  // gemm (batch also gather, attention)
  int heads = 0, seq = 0, head_dim = 0;      // attention
  bool causal = false;                       // attention
  /// attention: the kernel that ran it, from the '#' line before it (docs/calibration.md); none: unnamed
  std::optional<AttentionKernel> attention_kernel{};
  std::string pass;                          // copy: copy|triad; attention: fwd|bwd; launch: eager|graph;
                                             // elementwise: the operator's name
  double bytes = 0;                          // copy, elementwise: read + written; gather: gathered rows
  long long rows = 0, dim = 0, bag = 0;      // gather
  long long kernels = 0;                     // launch
  double time_s = 0;                         // device time of one kernel (median)
  double host_s = 0;                         // launch: host time per kernel; 0 elsewhere
  int line = 0;                              // in the file, for messages
};

struct KernelMeasurements {
  std::string gpu;  // "# gpu:" comment, if any
  std::vector<KernelMeasurement> rows;
};

/// Reads `file`; throws ConfigError located at file:line for anything it cannot take.
KernelMeasurements read_kernel_measurements(const std::filesystem::path& file);
/// The same from text (`name` locates the messages).
KernelMeasurements parse_kernel_measurements(const std::string& text, const std::string& name);

/// The header line of the format, exactly.
inline constexpr std::string_view kMeasurementHeader =
    "kind,dtype,m,n,k,batch,heads,seq,head_dim,causal,pass,bytes,rows,dim,bag,kernels,time_s,host_s";

}  // namespace clearfog::kernels
