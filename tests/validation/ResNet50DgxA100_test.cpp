// ResNet-50 v1.5 data parallel on one DGX A100 against NVIDIA DeepLearningExamples
// (shared/reference/resnet50_dgx_a100.csv, PyTorch rows): the points of
// scenarios/sweeps/resnet50-dgx-a100.yaml, 1 and 8 GPUs, TF32 and AMP, batch 256 per GPU. No
// constant is fitted to these rows; the input pipeline is not modelled (docs/validation.md,
// "ResNet-50 on DGX A100", says why the AMP 8-GPU row misses the 10 % goal). The TF32 rows run
// channels-first, as DeepLearningExamples does, so cuDNN transposes around every convolution.
//
// What the test holds: the TF32 rows and the AMP 1-GPU row within 10 %; TF32's 1 -> 8 GPU scaling
// within 5 % of the measured 7.72x (the model's data-parallel step on the NVSwitch); the AMP 8-GPU
// row optimistic, never below its measurement: what the model leaves out there (the node's input
// pipeline) can only make the real run slower.
//
// The MXNet rows (scenarios/sweeps/resnet50-dgx-a100-mxnet.yaml, the `mxnet` profile: batch 512,
// batch norm fused with ReLU and add in float16) check the fusion on measurements it was not built
// on: the float16 rows within 10 %, and the TF32 rows never above their measurement, since the
// channels-first transposes the model charges around every convolution are an upper bound on
// what cuDNN does.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "support/ReferenceCsv.hpp"
#include "support/SweepAxis.hpp"
#include "sweep/SweepSpec.hpp"

using namespace clearfog;

namespace {

/// Images per second of every point of `sweep_file`, keyed by (GPUs, "amp" or "tf32").
std::map<std::pair<int, std::string>, double> simulate_sweep(const std::string& sweep_file) {
  const auto spec = sweep::load_sweep(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/sweeps/" + sweep_file);
  std::map<std::pair<int, std::string>, double> predicted;
  for (const auto& point : spec.points()) {
    const int gpus = std::stoi(test::sweep_axis(point, "parallelism.dp"));
    const std::string precision = test::sweep_axis(point, "training.precision") == "fp16" ? "amp" : "tf32";
    REQUIRE(std::stoi(test::sweep_axis(point, "platform.node.devices")) == gpus);
    const auto scenario = config::load_scenario(spec.base, point.overrides);
    const std::string text = engine::run_forked(
        [&] { return std::to_string(driver::run_scenario(scenario).metrics.samples_per_s); });
    predicted[{gpus, precision}] = std::stod(text);
  }
  return predicted;
}

std::map<std::pair<int, std::string>, double> published_rows(const std::string& framework, int batch_per_gpu) {
  std::map<std::pair<int, std::string>, double> published;
  for (const auto& row : test::read_reference_csv("resnet50_dgx_a100.csv")) {
    if (row.at("framework") != framework) continue;
    REQUIRE(std::stoi(row.at("batch_per_gpu")) == batch_per_gpu);
    published[{std::stoi(row.at("gpus")), row.at("precision")}] = std::stod(row.at("images_per_s"));
  }
  return published;
}

}  // namespace

TEST_CASE("validation::ResNet-50 on DGX A100 with MXNet: fused batch norm, float16 within 10 %",
          "[validation][simulation]") {
  const auto published = published_rows("mxnet", 512);
  const auto predicted = simulate_sweep("resnet50-dgx-a100-mxnet.yaml");
  REQUIRE(predicted.size() == published.size());
  for (const auto& [row, measured] : published) {
    INFO(row.first << " GPUs " << row.second << ": " << predicted.at(row) << " images/s predicted, " << measured
                   << " published");
    if (row.second == "amp")
      CHECK(std::abs(predicted.at(row) / measured - 1) <= 0.10);
    else
      CHECK(predicted.at(row) <= measured);
  }
}

TEST_CASE("validation::ResNet-50 on DGX A100, images/s, 1 and 8 GPUs, AMP and TF32", "[validation][simulation]") {
  const auto spec = sweep::load_sweep(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/sweeps/resnet50-dgx-a100.yaml");
  const auto points = spec.points();
  std::map<std::pair<int, std::string>, double> predicted, published;
  for (const auto& row : test::read_reference_csv("resnet50_dgx_a100.csv")) {
    if (row.at("framework") != "pytorch") continue;
    REQUIRE(std::stoi(row.at("batch_per_gpu")) == 256);
    published[{std::stoi(row.at("gpus")), row.at("precision")}] = std::stod(row.at("images_per_s"));
  }
  REQUIRE(points.size() == published.size());
  for (const auto& point : points) {
    const int gpus = std::stoi(test::sweep_axis(point, "parallelism.dp"));
    const std::string precision = test::sweep_axis(point, "training.precision") == "fp16" ? "amp" : "tf32";
    REQUIRE(test::sweep_axis(point, "workload.memory_format") ==
            (precision == "amp" ? "channels_last" : "channels_first"));
    REQUIRE(std::stoi(test::sweep_axis(point, "platform.node.devices")) == gpus);
    REQUIRE(std::stoi(test::sweep_axis(point, "training.global_batch")) == 256 * gpus);
    const auto scenario = config::load_scenario(spec.base, point.overrides);
    const std::string text = engine::run_forked(
        [&] { return std::to_string(driver::run_scenario(scenario).metrics.samples_per_s); });
    predicted[{gpus, precision}] = std::stod(text);
  }
  for (const auto& [row, measured] : published) {
    INFO(row.first << " GPUs " << row.second << ": " << predicted.at(row) << " images/s predicted, " << measured
                   << " published");
    if (row == std::pair<int, std::string>{8, "amp"})
      CHECK(predicted.at(row) >= measured);
    else
      CHECK(std::abs(predicted.at(row) / measured - 1) <= 0.10);
  }
  const double model_scaling = predicted.at({8, "tf32"}) / predicted.at({1, "tf32"});
  const double measured_scaling = published.at({8, "tf32"}) / published.at({1, "tf32"});
  CHECK(model_scaling == Approx(measured_scaling).epsilon(0.05));
}
