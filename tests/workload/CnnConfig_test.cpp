// Bad cnn workload files and scenarios: every problem at its file, line, column and key, saying what
// is wrong and what is allowed. Fixtures: tests/data/config/bad/cnn_*.yaml.
#include <catch2/catch.hpp>

#include <string>

#include "config/ConfigLoader.hpp"
#include "support/ConfigDiagnostics.hpp"

using namespace clearfog;
using clearfog::test::check_diagnostic;
using clearfog::test::diagnostics_of;

namespace {

std::string fixture(const std::string& relative) { return test::config_fixture(relative); }

}  // namespace

TEST_CASE("config::cnn: an unknown layer type is refused by the reader, naming the allowed ones", "[config][cnn]") {
  const auto file = fixture("bad/cnn_unknown_layer.yaml");
  const auto diags = diagnostics_of([&] { config::load_workload(file); });
  REQUIRE(diags.size() == 1);
  check_diagnostic(diags[0], file, 8, 12, "network[1].type",
                   "unknown value \"convolution\"; allowed: conv, bn, relu, maxpool, avgpool, global_avgpool, add, "
                   "fc, flatten, dropout, loss");
}

TEST_CASE("config::cnn: keys a layer type does not use, and stages keys beside a network", "[config][cnn]") {
  const auto file = fixture("bad/cnn_layer_keys.yaml");
  const auto diags = diagnostics_of([&] { config::load_workload(file); });
  REQUIRE(diags.size() == 3);
  check_diagnostic(diags[0], file, 6, 16, "stem_channels",
                   "only used with `stages`; this workload lists its layers in `network`");
  check_diagnostic(diags[1], file, 9, 26, "network[1].stride",
                   "`stride` is not used by a relu layer; its keys: type, name, block, input");
  check_diagnostic(diags[2], file, 10, 36, "network[2].kernel", "`kernel` is not used by a global_avgpool layer");
}

TEST_CASE("config::cnn: channels that do not chain, a window larger than its input, an unknown layer",
          "[config][cnn]") {
  const auto file = fixture("bad/cnn_shapes.yaml");
  const auto diags = diagnostics_of([&] { config::load_workload(file); });
  REQUIRE(diags.size() == 3);
  check_diagnostic(diags[0], file, 11, 27, "network[4].shortcut",
                   "adds 'relu1' (16 x 8 x 8) to its input (32 x 8 x 8): channels and sizes must match");
  check_diagnostic(diags[1], file, 12, 29, "network[5].kernel",
                   "the output would have no pixels: a 9x9 window (stride 9, padding 0) does not fit the 8 x 8 "
                   "input; the input must be at least 9 pixels on each side");
  check_diagnostic(diags[2], file, 13, 27, "network[6].shortcut",
                   "no layer named 'rleu1' before this one; did you mean 'relu1'?");
}

TEST_CASE("config::cnn: a block may not start inside a residual unit", "[config][cnn]") {
  const auto file = fixture("bad/cnn_block_cut.yaml");
  const auto diags = diagnostics_of([&] { config::load_workload(file); });
  REQUIRE(diags.size() == 1);
  check_diagnostic(diags[0], file, 10, 25, "network[3].block",
                   "block 'inside' cannot start here: 2 tensors are live (the outputs of 'relu1' and 'conv2'); a "
                   "block must start where only the previous layer's output is live, not inside a residual unit");
}

TEST_CASE("config::cnn: the stages form needs classes — VGG stages do not stride", "[config][cnn]") {
  const auto file = fixture("bad/cnn_stages.yaml");
  const auto diags = diagnostics_of([&] { config::load_workload(file); });
  REQUIRE(diags.size() == 2);
  check_diagnostic(diags[0], file, 1, 1, "classes", "missing required key \"classes\" (an integer >= 1)");
  check_diagnostic(diags[1], file, 8, 50, "stages[0].stride",
                   "a vgg stage downsamples with the 2x2 max pool that closes it; stride must be 1, got 2");
}

TEST_CASE("config::cnn: tensor and sequence parallelism are refused, naming what is allowed", "[config][cnn]") {
  const auto file = fixture("bad/cnn_tp.yaml");
  const auto diags = diagnostics_of([&] { config::load_scenario(file); });
  REQUIRE(diags.size() == 2);
  check_diagnostic(diags[0], file, 10, 7, "parallelism.tp",
                   "a cnn workload trains with data and pipeline parallelism (parallelism.dp, parallelism.pp); "
                   "tensor parallelism of convolutions is not modelled: tp must be 1, got 2");
  check_diagnostic(diags[1], file, 11, 22, "parallelism.sequence_parallel",
                   "a cnn workload allows false only (use parallelism.dp and parallelism.pp)");
}

TEST_CASE("config::cnn: the shipped workloads and the test network load", "[config][cnn]") {
  for (const std::string name : {"resnet-50.yaml", "resnet-101.yaml", "vgg-16.yaml"})
    CHECK_NOTHROW(config::load_workload(std::string(CLEARFOG_SOURCE_DIR) + "/workloads/" + name));
  CHECK_NOTHROW(config::load_workload(fixture("good/cnn-workload.yaml")));
}
