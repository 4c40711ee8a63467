#pragma once
// A small GPT-style transformer and a kernel lookup, shared by the transformer kernel tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "workload/TransformerModel.hpp"

namespace clearfog::test {

/// 4 layers, hidden 256, 8 heads, MLP 1024, sequence 128, vocabulary 1000.
inline workload::TransformerSpec small_gpt_shape() {
  workload::TransformerSpec w;
  w.layers = 4;
  w.hidden = 256;
  w.heads = 8;
  w.ffn_hidden = 1024;
  w.seq_length = 128;
  w.vocab_size = 1000;
  return w;
}

/// The kernel named `name` (the test fails if there is none).
inline const kernels::Kernel& find_kernel(const std::vector<kernels::Kernel>& kernels, const std::string& name) {
  const auto it =
      std::find_if(kernels.begin(), kernels.end(), [&](const kernels::Kernel& k) { return k.name == name; });
  REQUIRE(it != kernels.end());
  return *it;
}

}  // namespace clearfog::test
