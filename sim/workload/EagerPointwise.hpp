#pragma once
// PyTorch eager mode's pointwise ops, one kernel each (docs/frameworks.md, "Eager pointwise ops"):
// the RMSNorm, the SwiGLU gate and the rotary embedding as torchtitan and Meta's Llama reference
// code write them without torch.compile, the norm and the rotary embedding computed in fp32. Each
// op reads its inputs and writes its output once; the backward is what autograd runs for them.
#include <string>
#include <vector>

#include "core/DType.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::workload {

/// One eager op: bytes read and written per element of the tensor it runs over.
struct EagerOp {
  const char* name;
  double read_B = 0, write_B = 0;
};

/// `_norm(x.float()).type_as(x) * weight` with `_norm(x) = x * rsqrt(x.pow(2).mean(-1) + eps)`,
/// for `e`-byte activations; `accumulate_residual` adds autograd's sum of the residual gradient.
std::vector<EagerOp> eager_rms_norm_forward(double e);
std::vector<EagerOp> eager_rms_norm_backward(double e, bool accumulate_residual);
/// `F.silu(w1(x)) * w3(x)`, per element of the MLP hidden.
std::vector<EagerOp> eager_swiglu_forward(double e);
std::vector<EagerOp> eager_swiglu_backward(double e);
/// `view_as_real(view_as_complex(x.float()) * freqs_cis).type_as(x)`, per element of q and k.
std::vector<EagerOp> eager_rotary_forward(double e);
std::vector<EagerOp> eager_rotary_backward(double e);

/// The ops as memory-bound kernels over `elements`, named `prefix.op`; `flops` per element are
/// the fused kernel's, given to the first op.
std::vector<kernels::Kernel> eager_kernels(const std::string& prefix, const std::vector<EagerOp>& ops,
                                           double elements, double flops, DType dtype);
/// Bytes per element of a list of ops.
double eager_bytes(const std::vector<EagerOp>& ops);

}  // namespace clearfog::workload
