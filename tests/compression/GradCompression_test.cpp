// Gradient-compression methods: wire volume per bucket and encode FLOPs against their closed forms
// (docs/grad-compression.md), and the registry the scenario key is built from.
#include <catch2/catch.hpp>

#include <cmath>

#include "compression/GradCompression.hpp"
#include "core/Errors.hpp"

using namespace clearfog;
using compression::BucketInput;
using compression::Settings;
using compression::Wire;

namespace {

/// Two matrices (a conv weight 256 x 576 and an fc weight 1000 x 2048) and a vector of 256.
BucketInput bucket(int p, DType dtype = DType::fp32) {
  return BucketInput{{{256.0 * 576, 256}, {1000.0 * 2048, 1000}, {256, 1}}, dtype, p};
}

Settings with(std::string method) {
  Settings s;
  s.method = std::move(method);
  return s;
}

const compression::BucketCompression compress(const BucketInput& b, const Settings& s) {
  return compression::grad_compression(s.method).compress(b, s);
}

}  // namespace

TEST_CASE("compression::registry: none first, every method found by its name", "[compression]") {
  const auto names = compression::grad_compression_names();
  REQUIRE(names.front() == "none");
  for (const auto& n : names) CHECK(compression::find_grad_compression(n)->name() == n);
  CHECK(compression::find_grad_compression("zip") == nullptr);
  CHECK_THROWS_AS(compression::grad_compression("zip"), Error);
  CHECK(compression::grad_compressions_using("rank") == std::vector<std::string>{"powersgd"});
  CHECK(compression::grad_compressions_using("bits") == std::vector<std::string>{"qsgd"});
}

TEST_CASE("compression::none: one all-reduce of n*e bytes, no kernels", "[compression]") {
  const auto b = bucket(8);
  const auto c = compress(b, with("none"));
  REQUIRE(c.rounds.size() == 1);
  CHECK(c.rounds[0].wire == Wire::AllReduce);
  CHECK(c.rounds[0].bytes == b.elements() * 4);
  CHECK(c.rounds[0].encode.empty());
  CHECK(c.decode.empty());
}

TEST_CASE("compression::powersgd: P and Q all-reduces of (sum n_i) r and (sum m_i) r elements", "[compression]") {
  const double n = 256 + 1000, m = 576 + 2048;
  for (int r : {1, 4, 16}) {
    Settings s = with("powersgd");
    s.rank = r;
    const auto c = compress(bucket(16), s);
    INFO("rank " << r);
    REQUIRE(c.rounds.size() == 2);
    CHECK(c.rounds[0].wire == Wire::AllReduce);
    CHECK(c.rounds[1].wire == Wire::AllReduce);
    CHECK(c.rounds[0].bytes == Approx((n * r + 256) * 4));  // the vector goes uncompressed
    CHECK(c.rounds[1].bytes == Approx(m * r * 4));
    // Encode: P = M.Q and Q = M^T.P (2 n m r each), Gram-Schmidt 2 n r^2, error feedback 1 per element.
    const double nm = 256.0 * 576 + 1000.0 * 2048;
    CHECK(c.encode_flops() == Approx(2 * 2 * nm * r + 2 * n * r * r + nm));
  }
}

TEST_CASE("compression::powersgd: a matrix too small to gain is sent whole", "[compression]") {
  Settings s = with("powersgd");
  s.rank = 8;
  const BucketInput b{{{16.0 * 16, 16}}, DType::fp32, 4};  // (16+16)*8 = 256 >= 256 elements
  const auto c = compress(b, s);
  REQUIRE(c.rounds.size() == 1);
  CHECK(c.rounds[0].bytes == 256 * 4);
  CHECK(c.encode_flops() == 0);
}

TEST_CASE("compression::topk: all-gather of p k (e + 4) bytes, growing with p", "[compression]") {
  Settings s = with("topk");
  s.ratio = 0.01;
  for (int p : {2, 16, 64}) {
    const auto b = bucket(p);
    const auto c = compress(b, s);
    const double k = std::ceil(0.01 * b.elements());
    INFO("p " << p);
    REQUIRE(c.rounds.size() == 1);
    CHECK(c.rounds[0].wire == Wire::AllGather);
    CHECK(c.rounds[0].bytes == Approx(p * k * (4 + compression::kIndexBytes)));
  }
  // Encode FLOPs: feedback, 4 selection passes, packing and residual, one per element each.
  const auto b = bucket(4);
  CHECK(compress(b, s).encode_flops() == Approx(7 * b.elements()));
  s.error_feedback = false;
  CHECK(compress(b, s).encode_flops() == Approx(5 * b.elements()));
  s.ratio = 0;
  CHECK_THROWS_AS(compress(b, s), Error);
}

TEST_CASE("compression::signsgd: all-gather of p n/8 bytes, growing with p", "[compression]") {
  for (int p : {2, 16, 64}) {
    const auto b = bucket(p);
    const auto c = compress(b, with("signsgd"));
    REQUIRE(c.rounds.size() == 1);
    CHECK(c.rounds[0].wire == Wire::AllGather);
    CHECK(c.rounds[0].bytes == Approx(p * std::ceil(b.elements() / 8)));
    CHECK(c.encode_flops() == Approx(b.elements()));
    CHECK(c.decode.front().flops == Approx(p * b.elements()));  // the majority vote reads p signs
  }
}

TEST_CASE("compression::qsgd and casts: all-reduce of the reduced bytes, independent of p", "[compression]") {
  Settings s = with("qsgd");
  s.bits = 4;
  for (int p : {2, 64}) {
    const auto b = bucket(p);
    const auto q = compress(b, s);
    CHECK(q.rounds[0].wire == Wire::AllReduce);
    CHECK(q.rounds[0].bytes == Approx(b.elements() * 4 / 8 + 4 * 3));  // plus a 4-byte norm per tensor
    CHECK(q.encode_flops() == Approx(6 * b.elements()));
    const auto h = compress(b, with("fp16"));
    CHECK(h.rounds[0].wire == Wire::AllReduce);
    CHECK(h.rounds[0].bytes == Approx(b.elements() * 2));
    CHECK(h.encode_flops() == Approx(b.elements()));
  }
}

TEST_CASE("compression::cast to the gradients' own type is syncSGD", "[compression]") {
  const auto b = bucket(8, DType::bf16);
  const auto cast = compress(b, with("bf16"));
  const auto none = compress(b, with("none"));
  REQUIRE(cast.rounds.size() == 1);
  CHECK(cast.rounds[0].bytes == none.rounds[0].bytes);
  CHECK(cast.rounds[0].encode.empty());
  CHECK(cast.decode.empty());
}
