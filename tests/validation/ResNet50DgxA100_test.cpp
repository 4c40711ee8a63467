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

using Row = std::pair<int, std::string>;  // (GPUs, "amp" or "tf32")

double images_per_s(const config::ScenarioSpec& scenario) {
  return std::stod(engine::run_forked([&] { return std::to_string(driver::run_scenario(scenario).metrics.samples_per_s); }));
}

std::map<Row, double> published_rows(const std::string& framework, int batch_per_gpu) {
  std::map<Row, double> published;
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
  const auto spec =
      sweep::load_sweep(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/sweeps/resnet50-dgx-a100-mxnet.yaml");
  REQUIRE(spec.points().size() == published.size());
  for (const auto& point : spec.points()) {
    const int gpus = std::stoi(test::sweep_axis(point, "parallelism.dp"));
    const bool amp = test::sweep_axis(point, "training.precision") == "fp16";
    // The recipe: float16 fused and NHWC, float32 neither; batch 512 per GPU.
    REQUIRE(test::sweep_axis(point, "training.batchnorm_relu_fusion") == (amp ? "true" : "false"));
    REQUIRE(test::sweep_axis(point, "workload.memory_format") == (amp ? "channels_last" : "channels_first"));
    REQUIRE(std::stoi(test::sweep_axis(point, "platform.node.devices")) == gpus);
    REQUIRE(std::stoi(test::sweep_axis(point, "training.global_batch")) == 512 * gpus);
    const Row row{gpus, amp ? "amp" : "tf32"};
    const double measured = published.at(row);
    const double predicted = images_per_s(config::load_scenario(spec.base, point.overrides));
    INFO(row.first << " GPUs " << row.second << ": " << predicted << " images/s predicted, " << measured
                   << " published");
    if (amp) {
      CHECK(std::abs(predicted / measured - 1) <= 0.10);
    } else {
      // Channels-first charges cuDNN's transposes around every convolution call, an upper bound on
      // what it does; without them (channels-last) the step is a lower bound. The measurement lies
      // between the two.
      auto nhwc = point.overrides;
      nhwc.push_back({"workload.memory_format", "channels_last"});
      const double bound = images_per_s(config::load_scenario(spec.base, nhwc));
      INFO("without transposes: " << bound << " images/s");
      CHECK(predicted <= measured);
      CHECK(measured <= bound);
    }
  }
}

TEST_CASE("validation::ResNet-50 on DGX A100, images/s, 1 and 8 GPUs, AMP and TF32", "[validation][simulation]") {
  const auto spec = sweep::load_sweep(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/sweeps/resnet50-dgx-a100.yaml");
  const auto points = spec.points();
  const auto published = published_rows("pytorch", 256);
  std::map<Row, double> predicted;
  REQUIRE(points.size() == published.size());
  for (const auto& point : points) {
    const int gpus = std::stoi(test::sweep_axis(point, "parallelism.dp"));
    const std::string precision = test::sweep_axis(point, "training.precision") == "fp16" ? "amp" : "tf32";
    REQUIRE(test::sweep_axis(point, "workload.memory_format") ==
            (precision == "amp" ? "channels_last" : "channels_first"));
    REQUIRE(std::stoi(test::sweep_axis(point, "platform.node.devices")) == gpus);
    REQUIRE(std::stoi(test::sweep_axis(point, "training.global_batch")) == 256 * gpus);
    predicted[{gpus, precision}] = images_per_s(config::load_scenario(spec.base, point.overrides));
  }
  for (const auto& [row, measured] : published) {
    INFO(row.first << " GPUs " << row.second << ": " << predicted.at(row) << " images/s predicted, " << measured
                   << " published");
    if (row == Row{8, "amp"})
      CHECK(predicted.at(row) >= measured);
    else
      CHECK(std::abs(predicted.at(row) / measured - 1) <= 0.10);
  }
  const double model_scaling = predicted.at({8, "tf32"}) / predicted.at({1, "tf32"});
  const double measured_scaling = published.at({8, "tf32"}) / published.at({1, "tf32"});
  CHECK(model_scaling == Approx(measured_scaling).epsilon(0.05));
}
