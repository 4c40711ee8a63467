#pragma once
// Gradient compression in the data-parallel path (Agarwal et al., MLSys 2022; docs/grad-compression.md):
// one registry entry per method (one file each, listed in GradCompressions.cpp). A method turns one
// DDP gradient bucket into the kernels that encode it on the device, the collectives that carry it
// (all-reduce-compatible methods reduce the compressed form; the others all-gather every rank's
// values, so their volume grows with the group) and the kernels that decode the result. The step
// planner prices the kernels with the kernel model and lays them out on the compute stream, where
// they compete with the backward pass. training.grad_compression names a method; its key table,
// choices and reference text come from this registry.
//
// Depends only on core and the kernel description (kernels/Kernel.hpp, which knows no config).
#include <string>
#include <string_view>
#include <vector>

#include "core/DType.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::compression {

/// The method's parameters (training.grad_compression.*); each method reads the ones it names in
/// GradCompressionMethod::parameters().
struct Settings {
  std::string method = "none";
  int rank = 4;                 // powersgd: rank r of the factors P (n x r) and Q (m x r)
  double ratio = 0.01;          // topk: share of the bucket's elements sent, in (0, 1]
  bool error_feedback = true;   // topk: the residual is kept and added to the next gradient
  int bits = 8;                 // qsgd: bits per quantized element
};

/// One gradient tensor of a bucket as a compressor sees it: `rows` x elements/rows (PyTorch's
/// PowerSGD hook views a tensor as shape[0] x the rest); rows <= 1 is a vector.
struct GradientTensorShape {
  double elements = 0;  // on this device
  double rows = 1;
};

/// One bucket on one rank: its tensors, their element type, and the ranks of the data group.
struct BucketInput {
  std::vector<GradientTensorShape> tensors;
  DType dtype = DType::bf16;
  int ranks = 1;  // p

  [[nodiscard]] double elements() const;
  [[nodiscard]] double bytes() const { return elements() * dtype_bytes(dtype); }
};

enum class Wire { AllReduce, AllGather };

constexpr std::string_view wire_name(Wire w) { return w == Wire::AllReduce ? "allreduce" : "allgather"; }

/// Kernels run before one collective, and the collective.
struct Round {
  std::vector<kernels::Kernel> encode;  // after the previous round's collective (round 0: the gradients)
  Wire wire = Wire::AllReduce;
  /// All-reduce: the buffer each rank reduces. All-gather: the gathered result, p x each rank's part
  /// (the size the collectives take for an all-gather).
  double bytes = 0;
};

/// What one bucket costs under a method: its rounds in order, then the decode kernels.
struct BucketCompression {
  std::vector<Round> rounds;
  std::vector<kernels::Kernel> decode;

  /// Bytes on the wire per rank in the collectives' own terms (the sum of the rounds' bytes).
  [[nodiscard]] double wire_bytes() const;
  /// FLOPs of every encode kernel, all rounds.
  [[nodiscard]] double encode_flops() const;
};

/// One compression method. Implementations are stateless singletons in the registry.
class GradCompressionMethod {
public:
  virtual ~GradCompressionMethod() = default;
  /// The spelling of training.grad_compression.method.
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// One line for `explain` and the docs: what it sends and where it comes from.
  [[nodiscard]] virtual std::string_view summary() const = 0;
  /// The parameters of Settings it reads ("rank", "ratio", "error_feedback", "bits").
  [[nodiscard]] virtual std::vector<std::string_view> parameters() const { return {}; }
  /// The bucket's rounds and decode kernels. Throws clearfog::Error for settings it cannot use
  /// (the scenario checks reject them first).
  [[nodiscard]] virtual BucketCompression compress(const BucketInput& bucket, const Settings& settings) const = 0;
};

/// The registry, in the order the docs list them ("none" first).
const std::vector<const GradCompressionMethod*>& grad_compressions();
/// nullptr when no method has that name.
const GradCompressionMethod* find_grad_compression(std::string_view name);
/// The method of that name; throws clearfog::Error listing the names otherwise.
const GradCompressionMethod& grad_compression(std::string_view name);
std::vector<std::string> grad_compression_names();
/// Methods that read `parameter`, for the key table's conditions.
std::vector<std::string> grad_compressions_using(std::string_view parameter);

/// Bytes of one index sent with a top-k value (int32, as torch.topk's indices are sent).
inline constexpr double kIndexBytes = 4;

}  // namespace clearfog::compression
