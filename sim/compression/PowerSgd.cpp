// PowerSGD (Vogels, Karimireddy, Jaggi, NeurIPS 2019) as PyTorch's powerSGD_hook runs it: each
// gradient matrix M (n x m) is approximated by P.Q^T of rank r with one power iteration and error
// feedback. Per bucket:
//   round 0: M += residual; P = M.Q (a GEMM n x r x m per matrix); all-reduce of every P together
//            with the tensors it does not compress (vectors, and matrices for which (n+m)r >= nm);
//   round 1: orthogonalise P (Gram-Schmidt, r passes over P); Q = M^T.P (a GEMM m x r x n);
//            all-reduce of every Q;
//   decode:  M' = P.Q^T (a GEMM n x m x r); residual = M - M'.
// Wire: (sum of n_i*r + uncompressed elements)*e, then (sum of m_i*r)*e: all-reduce compatible.
#include <fmt/format.h>

#include <cmath>

#include "compression/GradCompression.hpp"
#include "core/Errors.hpp"

namespace clearfog::compression {

namespace {

using kernels::GemmShape;
using kernels::Kernel;

struct Matrix {
  long long rows = 0, cols = 0;
};

class PowerSgd final : public GradCompressionMethod {
public:
  [[nodiscard]] std::string_view name() const override { return "powersgd"; }
  [[nodiscard]] std::string_view summary() const override {
    return "PowerSGD of rank `rank` with error feedback (Vogels 2019): per n x m matrix two all-reduces of n*r "
           "and m*r elements, P = M.Q and Q = M^T.P GEMMs plus Gram-Schmidt to encode, P.Q^T to decode; "
           "vectors are all-reduced uncompressed";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override { return {"rank"}; }
  [[nodiscard]] BucketCompression compress(const BucketInput& bucket, const Settings& s) const override {
    if (s.rank < 1) throw Error(fmt::format("powersgd: rank must be >= 1, got {}", s.rank));
    const auto r = static_cast<long long>(s.rank);
    const double e = dtype_bytes(bucket.dtype), rank = s.rank;
    std::vector<Matrix> matrices;
    double uncompressed = 0, compressed = 0, p_elements = 0, q_elements = 0;
    for (const auto& t : bucket.tensors) {
      const Matrix m = as_matrix(t);
      if (m.rows < 2 || static_cast<double>(m.rows + m.cols) * rank >= t.elements) {
        uncompressed += t.elements;
        continue;
      }
      matrices.push_back(m);
      compressed += t.elements;
      p_elements += static_cast<double>(m.rows) * rank;
      q_elements += static_cast<double>(m.cols) * rank;
    }
    Round first{{}, Wire::AllReduce, (p_elements + uncompressed) * e};
    Round second{{}, Wire::AllReduce, q_elements * e};
    BucketCompression out;
    if (matrices.empty()) {
      out.rounds = {first};
      return out;
    }
    first.encode.push_back(Kernel::make_memory_bound("powersgd.feedback", 3 * compressed * e, compressed, bucket.dtype));
    for (const auto& m : matrices) {
      first.encode.push_back(Kernel::make_gemm("powersgd.p", GemmShape{m.rows, r, m.cols}, bucket.dtype));
      // Gram-Schmidt: column j is normalised and removed from the r-j after it, about r passes over P.
      const double p_size = static_cast<double>(m.rows) * rank;
      second.encode.push_back(
          Kernel::make_memory_bound("powersgd.orthogonalise", 2 * rank * p_size * e, 2 * rank * p_size, bucket.dtype));
      second.encode.push_back(Kernel::make_gemm("powersgd.q", GemmShape{m.cols, r, m.rows}, bucket.dtype));
      out.decode.push_back(Kernel::make_gemm("powersgd.decompress", GemmShape{m.rows, m.cols, r}, bucket.dtype));
    }
    out.decode.push_back(Kernel::make_memory_bound("powersgd.residual", 3 * compressed * e, compressed, bucket.dtype));
    out.rounds = {first, second};
    return out;
  }

private:
  /// rows x elements/rows, both whole numbers; a vector (rows 1) when they are not.
  static Matrix as_matrix(const GradientTensorShape& t) {
    const double rows = std::round(t.rows);
    if (rows < 2 || !(t.elements > 0)) return {1, 0};
    const double cols = t.elements / rows;
    if (cols != std::floor(cols) || cols < 1) return {1, 0};
    return {static_cast<long long>(rows), static_cast<long long>(cols)};
  }
};

}  // namespace

const GradCompressionMethod& powersgd_compression() {
  static const PowerSgd method;
  return method;
}

}  // namespace clearfog::compression
