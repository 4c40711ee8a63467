#include "workload/EagerPointwise.hpp"

namespace clearfog::workload {

namespace {
constexpr double kF = 4;  // fp32
}  // namespace

std::vector<EagerOp> eager_rms_norm_forward(double e) {
  return {{"to_fp32", e, kF},     {"pow", kF, kF},          {"mean", kF, 0},
          {"mul_rsqrt", kF, kF},  {"to_dtype", kF, e},      {"mul_weight", e, e}};
}

std::vector<EagerOp> eager_rms_norm_backward(double e, bool accumulate_residual) {
  // Autograd in reverse: the weight's mul (input gradient; weight gradient as a product and its
  // sum over tokens), the cast, x * r (x's gradient; r's as a product and a row sum), pow's
  // gradient (the mean's is a broadcast view), the sum of x's two gradients, the cast back.
  std::vector<EagerOp> ops = {{"mul_weight.bwd", 2 * e, e}, {"weight_product", 2 * e, e}, {"weight_sum", e, 0},
                              {"to_dtype.bwd", e, kF},      {"mul_rsqrt.bwd", kF, kF},   {"rsqrt_product", 2 * kF, kF},
                              {"rsqrt_sum", kF, 0},         {"pow.bwd", kF, kF},         {"add_grads", 2 * kF, kF},
                              {"to_fp32.bwd", kF, e}};
  if (accumulate_residual) ops.push_back({"residual_grad_add", 2 * e, e});
  return ops;
}

std::vector<EagerOp> eager_swiglu_forward(double e) { return {{"silu", e, e}, {"mul", 2 * e, e}}; }

std::vector<EagerOp> eager_swiglu_backward(double e) {
  return {{"mul.bwd_gate", 2 * e, e}, {"mul.bwd_up", 2 * e, e}, {"silu.bwd", 2 * e, e}};
}

std::vector<EagerOp> eager_rotary_forward(double e) {
  return {{"to_fp32", e, kF}, {"complex_mul", kF, kF}, {"to_dtype", kF, e}};
}

std::vector<EagerOp> eager_rotary_backward(double e) {
  return {{"to_dtype.bwd", e, kF}, {"complex_mul.bwd", kF, kF}, {"to_fp32.bwd", kF, e}};
}

std::vector<kernels::Kernel> eager_kernels(const std::string& prefix, const std::vector<EagerOp>& ops,
                                           double elements, double flops, DType dtype) {
  std::vector<kernels::Kernel> out;
  for (std::size_t i = 0; i < ops.size(); ++i)
    out.push_back(kernels::Kernel::make_memory_bound(prefix + "." + ops[i].name,
                                                     (ops[i].read_B + ops[i].write_B) * elements,
                                                     i == 0 ? flops * elements : 0.0, dtype));
  return out;
}

double eager_bytes(const std::vector<EagerOp>& ops) {
  double total = 0;
  for (const auto& op : ops) total += op.read_B + op.write_B;
  return total;
}

}  // namespace clearfog::workload
