// Every key of an accelerator file, declared once.
#include "config/AcceleratorCalibration.hpp"
#include "config/KeyTableParts.hpp"
#include "core/DType.hpp"

#include <algorithm>

namespace clearfog::config {

using units::Dimension;

namespace {

KeySpec peak_key(DType dtype, std::string_view unit_word) {
  return {.path = "peak." + std::string(dtype_name(dtype)),
          .type = KeyType::Quantity,
          .dimension = Dimension::FlopRate,
          .presence = Presence::Optional,
          .constraint = Constraint::Positive,
          .description = "Dense peak " + std::string(unit_word) + " in " + std::string(dtype_name(dtype)) +
                         " (no 2:4 sparsity). Absent: the accelerator does not support " +
                         std::string(dtype_name(dtype)) + "."};
}

KeySpec gemm_dtype_efficiency_key(DType dtype) {
  const std::string name(dtype_name(dtype));
  return {.path = "gemm.dtype_efficiency." + name,
          .type = KeyType::Number,
          .presence = Presence::Optional,
          .constraint = Constraint::Fraction,
          .description = "Fraction of the " + name + " peak a compute-bound GEMM tile sustains, where " + name +
                         " differs from gemm.efficiency (H100: bf16 0.79, fp8 0.70, each fitted to a "
                         "measurement in that dtype). Absent: gemm.efficiency, reported as uncalibrated for " +
                         name + "."};
}

KeySpec attention_share_key_spec(const AttentionKernelInfo& info, bool backward) {
  const std::string name(info.name);
  const std::string pass = backward ? "backward (dQ, dK, dV; it recomputes the scores)" : "forward";
  return {.path = attention_share_key(info.kernel, backward),
          .type = KeyType::Number,
          .presence = Presence::Optional,
          .constraint = Constraint::Fraction,
          .description = "The share of its dtype's GEMM efficiency the " + pass + " kernel of " + name + " (" +
                         std::string(info.description) +
                         ") sustains on the work it does, the causal mask's hidden blocks skipped "
                         "(docs/compute-model.md, \"Fused attention\"). Fitted by clearfog calibrate to the "
                         "attention rows a measurement names " + name + " for (e.g. cudnn on an H200: 0.72 forward, "
                         "0.60 backward). Absent: 0.5, conservative (a causal attention then costs what the whole "
                         "s x s computation costs at the GEMM's efficiency), and a run that uses it says so."};
}

/// `calibrated.<key>`: the measurement an efficiency was fitted to.
KeySpec calibrated_key(const std::string& key) {
  return {.path = "calibrated." + key,
          .presence = Presence::Optional,
          .description = "The measurement " + key + " was fitted to (file or publication, the row or figure, "
                         "calibrates or checks). Absent: a run that uses " + key +
                         " reports it as uncalibrated (docs/calibration.md)."};
}

}  // namespace

KeyTable make_accelerator_table() {
  std::vector<KeySpec> keys = {
      kind_key(DocumentKind::Accelerator),
      {.path = "name", .description = "Human-readable name, e.g. \"NVIDIA A100 SXM4 80GB\"."},
      {.path = "source",
       .description = "Where the figures come from (datasheet, paper) and what is assumed."},
      {.path = "compute_units",
       .type = KeyType::Integer,
       .constraint = Constraint::AtLeastOne,
       .counts = "units",
       .description = "Streaming multiprocessors, cores or matrix units."},
      {.path = "clock",
       .type = KeyType::Quantity,
       .dimension = Dimension::Frequency,
       .constraint = Constraint::Positive,
       .description = "Boost clock."},
  };
  for (DType d : kAllDTypes) keys.push_back(peak_key(d, d == DType::int8 ? "integer rate" : "FLOP rate"));
  // int4 is not a DType (no tensor is stored in it outside low-precision GEMMs): its own key.
  keys.push_back({.path = "peak.int4",
                  .type = KeyType::Quantity,
                  .dimension = Dimension::FlopRate,
                  .presence = Presence::Optional,
                  .constraint = Constraint::Positive,
                  .description = "Dense int4 peak (integer rate). Absent: no native int4; sub-8-bit GEMMs "
                                 "(`clearfog gemm --dtype w3a3`) use a wider native type or SIMD packing."});
  std::vector<KeySpec> rest = {
      {.path = "memory.capacity",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .constraint = Constraint::Positive,
       .description = "Off-chip memory (HBM, DRAM) capacity."},
      {.path = "memory.bandwidth",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bandwidth,
       .constraint = Constraint::Positive,
       .description = "Off-chip memory bandwidth (datasheet peak)."},
      {.path = "memory.efficiency",
       .type = KeyType::Number,
       .presence = Presence::Defaulted,
       .default_text = "1",
       .constraint = Constraint::Fraction,
       .description = "Fraction of memory.bandwidth that streaming traffic reaches: large copies (what "
                      "clearfog calibrate fits it to) and the HBM traffic of GEMMs and fused attention, priced "
                      "at memory.bandwidth x memory.efficiency. STREAM is the upper bound (A100 80GB: 1.61-1.75 "
                      "of 2.04 TB/s, 0.82). Where memory.in_place_efficiency is absent it prices the framework's "
                      "memory-bound kernels too: the shipped A100 file's 0.69 was measured on Megatron's "
                      "attention kernels in place (docs/compute-model.md)."},
      {.path = "memory.in_place_efficiency",
       .type = KeyType::Number,
       .presence = Presence::Derived,
       .default_text = "memory.efficiency",
       .constraint = Constraint::Fraction,
       .description = "Fraction of memory.bandwidth that the memory-bound kernels a framework runs between "
                      "its GEMMs reach in place: elementwise ops and casts, row reductions, the loss, the "
                      "optimizer's multi-tensor kernels. Below the copy rate: they mix dtypes, broadcast, "
                      "reduce and run one after another (an H200 runs PyTorch's fp8 cast chains at 0.74 of its "
                      "copy rate, 0.66 of the datasheet; docs/compute-model.md, \"Achievable memory "
                      "bandwidth\"). Absent: memory.efficiency."},
      {.path = "memory.random_access_efficiency",
       .type = KeyType::Number,
       .presence = Presence::Derived,
       .default_text = "memory.efficiency",
       .constraint = Constraint::Fraction,
       .description = "Fraction of memory.bandwidth that scattered row accesses reach: embedding-bag "
                      "gathers and scatter-adds (FBGEMM TBE) of rows missing the L2 (docs/dlrm.md). "
                      "Absent: rows are priced like streaming traffic."},
      {.path = "memory.access_granularity",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .presence = Presence::Defaulted,
       .default_text = "0 B",
       .constraint = Constraint::NonNegative,
       .description = "Smallest unit a scattered access moves (NVIDIA GPUs: 32-byte sectors). An embedding row "
                      "narrower than it, or not a multiple of it, costs whole units: a 16-byte column shard reads "
                      "32 bytes. 0: any size (docs/dlrm.md)."},
      {.path = "sram.per_unit",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .presence = Presence::Defaulted,
       .default_text = "0 B",
       .constraint = Constraint::NonNegative,
       .description = "Shared memory / scratchpad per compute unit (maximum configuration)."},
      {.path = "sram.shared",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .presence = Presence::Defaulted,
       .default_text = "0 B",
       .constraint = Constraint::NonNegative,
       .description = "Chip-wide SRAM: L2 cache or on-chip memory."},
      {.path = "sram.shared_bandwidth",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bandwidth,
       .presence = Presence::Defaulted,
       .default_text = "0 B/s",
       .constraint = Constraint::NonNegative,
       .description = "Bandwidth of the chip-wide SRAM (L2 on GPUs) to the compute units. A kernel whose "
                      "working set fits in `sram.shared` is served at this rate; GEMM tiles re-read their "
                      "operands through it. 0: the level is not modelled (everything at memory.bandwidth)."},
      {.path = "gemm.tiles",
       .type = KeyType::String,
       .presence = Presence::Defaulted,
       .default_text = "[128x128]",
       .description = "Output tiles (rows x columns of C, \"MxN\") one compute unit computes at a time, as a "
                      "GEMM library's kernels do; the blocked-GEMM model picks the fastest per shape, in either "
                      "orientation.",
       .list = true},
      {.path = "gemm.efficiency",
       .type = KeyType::Number,
       .presence = Presence::Defaulted,
       .default_text = "1",
       .constraint = Constraint::Fraction,
       .description = "Fraction of the dense peak a compute-bound GEMM tile sustains (instruction issue, "
                      "pipeline fill, clock under load), e.g. 0.822 for cuBLAS on A100 (256.5 of 312 "
                      "TFLOP/s at 16384^3), in every dtype that gemm.dtype_efficiency does not name. A "
                      "fallback: a run in a dtype without its own calibrated value says so."},
      {.path = "gemm.fixed_overhead",
       .type = KeyType::Quantity,
       .dimension = Dimension::Time,
       .presence = Presence::Defaulted,
       .default_text = "0 s",
       .constraint = Constraint::NonNegative,
       .description = "Fixed time a GEMM (and fused-attention) kernel adds to kernel.launch_overhead: its "
                      "pipeline's prologue, the first operand tiles loaded before the tensor cores start, and "
                      "its epilogue. Fitted by clearfog calibrate to the shortest GEMMs, e.g. 1.3 us on an H200 "
                      "(a 256^3 bf16 GEMM takes 2.8 us where an empty kernel takes 1.06)."},
      {.path = "kernel.launch_overhead",
       .type = KeyType::Quantity,
       .dimension = Dimension::Time,
       .presence = Presence::Defaulted,
       .default_text = "0 s",
       .constraint = Constraint::NonNegative,
       .description = "Fixed time added to every kernel (launch and tail), e.g. 4.5 us on a GPU."},
      {.path = "simd.width",
       .type = KeyType::Integer,
       .presence = Presence::Defaulted,
       .default_text = "0",
       .constraint = Constraint::NonNegative,
       .counts = "bits",
       .description = "SIMD register width of a CPU-like part (128 for NEON), in bits. Non-zero: sub-8-bit "
                      "GEMMs are priced as SIMD kernels (ULPPACK packing, int8, bit-serial); 0: matrix "
                      "units, which use native narrow types."},
      {.path = "power.peak",
       .type = KeyType::Quantity,
       .dimension = Dimension::Power,
       .presence = Presence::Optional,
       .constraint = Constraint::Positive,
       .description = "Peak power (thermal design power). Absent: unknown."},
      {.path = "power.idle",
       .type = KeyType::Quantity,
       .dimension = Dimension::Power,
       .presence = Presence::Optional,
       .constraint = Constraint::Positive,
       .description = "Power drawn with no kernel running. Absent: unknown."},
  };
  keys.insert(keys.end(), rest.begin(), rest.end());
  const auto efficiency = std::find_if(keys.begin(), keys.end(), [](const KeySpec& k) { return k.path == "gemm.efficiency"; });
  std::vector<KeySpec> per_dtype;
  for (DType d : kAllDTypes) per_dtype.push_back(gemm_dtype_efficiency_key(d));
  keys.insert(efficiency + 1, per_dtype.begin(), per_dtype.end());
  for (const auto& info : kAttentionKernels)
    for (const bool backward : {false, true}) keys.push_back(attention_share_key_spec(info, backward));
  for (const std::string& key : calibratable_accelerator_keys()) keys.push_back(calibrated_key(key));
  return KeyTable(DocumentKind::Accelerator,
                  "One accelerator chip: its compute units, dense peak throughput per data type, "
                  "memory levels, GEMM tiling, launch overhead and power. At least one `peak` must be given.",
                  std::move(keys));
}

}  // namespace clearfog::config
