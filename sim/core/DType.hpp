#pragma once
// Numeric formats of tensors and of the arithmetic units that process them.
#include <array>
#include <optional>
#include <string_view>

namespace clearfog {

enum class DType { fp32, tf32, fp16, bf16, fp8, int8 };

inline constexpr std::array<DType, 6> kAllDTypes = {DType::fp32, DType::tf32, DType::fp16,
                                                    DType::bf16, DType::fp8, DType::int8};

/// The formats a model can be trained in (the forward and backward passes): int8 is an inference
/// format, with no training recipe (docs/compute-model.md, "Memory").
inline constexpr std::array<DType, 5> kTrainingDTypes = {DType::fp32, DType::tf32, DType::fp16, DType::bf16,
                                                         DType::fp8};

constexpr std::string_view dtype_name(DType d) {
  switch (d) {
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp8: return "fp8";
    case DType::int8: return "int8";
  }
  return "?";
}

/// Bytes one element occupies in memory (tf32 is stored as fp32).
constexpr double dtype_bytes(DType d) {
  switch (d) {
    case DType::fp32:
    case DType::tf32: return 4.0;
    case DType::fp16:
    case DType::bf16: return 2.0;
    case DType::fp8:
    case DType::int8: return 1.0;
  }
  return 4.0;
}

/// The type a model trained in `training` keeps its weights, gradients and activations in: fp8
/// training (Transformer Engine, torchao float8) keeps them in bf16 and runs only the weight GEMMs
/// in fp8, after casting their operands (docs/compute-model.md, "FP8 training").
constexpr DType storage_dtype(DType training) { return training == DType::fp8 ? DType::bf16 : training; }

inline std::optional<DType> parse_dtype(std::string_view s) {
  for (DType d : kAllDTypes)
    if (dtype_name(d) == s) return d;
  return std::nullopt;
}

}  // namespace clearfog
