#include "workload/OpCheckpointPolicy.hpp"

namespace clearfog::workload {
namespace {

constexpr double kLogsumexpBytes = 4;  // fp32, one per query row and head

}  // namespace

OpCheckpointSplit split_op_checkpoint(const std::vector<kernels::Kernel>& forward, double output_element_B,
                                      const std::set<std::string>& batched) {
  const auto is_mm = [&](const kernels::Kernel& k) {
    return k.kind == kernels::KernelKind::Gemm && k.gemm.batch == 1 && !batched.contains(k.name);
  };
  OpCheckpointSplit out;
  int mm_count = 0;
  for (const auto& k : forward) {
    if (is_mm(k)) {
      // torchtitan's _custom_policy counts aten.mm calls and recomputes the even-numbered ones.
      if (++mm_count % 2 == 1) {
        out.saved_B += k.gemm.c_footprint() * output_element_B;
        continue;
      }
    } else if (k.kind == kernels::KernelKind::FusedAttention && !k.attention.backward) {
      const auto& a = k.attention;
      const double rows = static_cast<double>(a.batch_heads) * static_cast<double>(a.seq);
      out.saved_B += rows * (static_cast<double>(a.head_dim) * output_element_B + kLogsumexpBytes);
      continue;
    }
    out.recomputed.push_back(k);
  }
  return out;
}

}  // namespace clearfog::workload
