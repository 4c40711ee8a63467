// Training runs take every collective from NCCL's tuner — tensor-parallel groups included — and
// report what ran (collectives.csv), while reducing switches stay out of every output. Expected
// choices are derived from NCCL 2.18.5's tables (src/graph/tuning.cc, enqueue.cc), as in
// tests/collectives/NcclTuner_test.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/RunCli.hpp"

namespace {

const std::string kSource = CLEARFOG_SOURCE_DIR;
const std::string kQuickstart = kSource + "/scenarios/quickstart.yaml";
const std::string kH100 = kSource + "/platforms/dgx-h100.yaml";

std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE(in.good());
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

std::filesystem::path scratch(const std::string& name) {
  // Per process: test runs of other checkouts may share the temporary directory.
  const auto dir = std::filesystem::temp_directory_path() / ("clearfog-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

/// NCCL 2.18.5 on 8 H100s (18 NVLinks of 20 GB/s): ring LL (lat 6.6 + 14 x 0.6 us, busBw
/// min(87.7, 360/4) x 8/14) gives way to NVLS (23 us, 8 x 40 x 5/6 GB/s) at this size, in bytes.
double nvls_flip_B() {
  const double ll_lat = 6.6 + 14 * 0.6, ll_bw = std::min(87.7, 360 / 4.0) * 8 / 14;
  const double nvls_lat = 23, nvls_bw = 8 * 40 * 5.0 / 6;
  return (nvls_lat - ll_lat) * 1000 / (1 / ll_bw - 1 / nvls_bw);
}

}  // namespace

TEST_CASE("driver: tensor-parallel groups take NCCL's choice per size", "[driver][simulation]") {
  // GPT 1.3B, tp = 8 on one DGX H100: each layer all-reduces micro_batch x seq x hidden x 2 bytes
  // (bf16) over the 8 GPUs of the node.
  struct Case {
    int seq;
    const char* algorithm;
    const char* protocol;
  };
  const double hidden = 2048;
  for (const Case& c : {Case{32, "ring", "ll"}, Case{2048, "in-switch", "simple"}}) {
    const double bytes = 2.0 * c.seq * hidden * 2;
    INFO("seq " << c.seq << ": " << bytes << " B per all-reduce, NVLS from " << nvls_flip_B() << " B");
    REQUIRE((bytes > nvls_flip_B()) == (std::string(c.algorithm) == "in-switch"));
    const auto dir = scratch("tp-collectives");
    const auto r = clearfog::test::run_cli("run " + kQuickstart + " --set platform=" + kH100 +
                                           " --set parallelism.dp=1 --set parallelism.tp=8 --set training.global_batch=2"
                                           " --set workload.seq_length=" + std::to_string(c.seq) + " --csv " + dir.string());
    REQUIRE(r.exit_code == 0);
    const auto rows = read_csv(dir / "collectives.csv");
    REQUIRE(!rows.empty());
    for (const auto& row : rows) {
      // name,op,members,bytes,algorithm,protocol,channels; the cross-entropy's three row-statistic
      // all-reduces (b x s fp32 each, "ce") are the only other tensor-parallel collectives
      if (row[0].find(".ce.") != std::string::npos) {
        CHECK(std::stod(row[3]) == Approx(4.0 * 2 * c.seq));
        continue;
      }
      CHECK(row[1] == "all_reduce");
      CHECK(row[2] == "8");
      CHECK(std::stod(row[3]) == Approx(bytes));
      CHECK(row[4] == c.algorithm);
      CHECK(row[5] == c.protocol);
    }
    // NVLS runs on NCCL_NVLS_NCHANNELS = 16; ring LL drops to bytes / (512 threads x 8 x 8 ranks).
    const int channels = std::string(c.algorithm) == "in-switch" ? 16 : static_cast<int>(bytes / (512.0 * 8 * 8));
    CHECK(rows.front()[6] == std::to_string(channels));
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("driver: reducing switches are not devices in any output", "[driver][simulation]") {
  // Data parallelism over one DGX H100 reduces its gradient buckets in the NVSwitch (NVLS), which
  // the plan addresses as rank 8; no output may show it.
  const auto dir = scratch("no-phantom");
  std::filesystem::create_directories(dir);
  const auto r = clearfog::test::run_cli("run " + kQuickstart + " --set platform=" + kH100 + " --csv " + dir.string() +
                                         " --trace " + (dir / "trace.json").string() + " --timeline " +
                                         (dir / "timeline.svg").string());
  REQUIRE(r.exit_code == 0);
  const auto collectives = read_csv(dir / "collectives.csv");
  CHECK(std::any_of(collectives.begin(), collectives.end(), [](const auto& row) { return row[4] == "in-switch"; }));
  const auto devices = read_csv(dir / "devices.csv");
  CHECK(devices.size() == 8);
  for (const auto& op : read_csv(dir / "ops.csv")) CHECK(std::stoi(op[0]) < 8);
  std::ifstream trace_file(dir / "trace.json");
  const auto trace = nlohmann::json::parse(trace_file);
  bool annotated = false;
  for (const auto& e : trace["traceEvents"]) {
    CHECK(e["pid"].get<int>() < 8);
    if (e.contains("args") && e["args"].contains("algorithm")) annotated = true;
  }
  CHECK(annotated);
  std::ifstream svg_file(dir / "timeline.svg");
  const std::string svg((std::istreambuf_iterator<char>(svg_file)), std::istreambuf_iterator<char>());
  CHECK_THAT(svg, Catch::Contains("device 7"));
  CHECK_THAT(svg, !Catch::Contains("device 8"));
  std::filesystem::remove_all(dir);
}
