// Sweep files: points of a grid and of a zip, located errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/Errors.hpp"
#include "sweep/PointRecord.hpp"
#include "sweep/SweepChecks.hpp"
#include "sweep/SweepSpec.hpp"

using namespace clearfog;

namespace {

const std::filesystem::path kData = std::filesystem::path(CLEARFOG_SOURCE_DIR) / "tests/sweep/data";

std::filesystem::path write_sweep(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "clearfog-sweepspec-test";
  std::filesystem::create_directories(dir);
  const auto file = dir / name;
  std::ofstream(file) << text;
  return file;
}

/// Every diagnostic load_sweep() reports for `file`, one per line; a test failure when it loads.
std::string load_errors(const std::filesystem::path& file) {
  try {
    sweep::load_sweep(file);
  } catch (const ConfigError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) all += d.str() + "\n";
    return all;
  }
  FAIL("no error");
  return {};
}

}  // namespace

TEST_CASE("sweep::load_sweep: grid points vary the last axis fastest", "[sweep]") {
  const auto spec = sweep::load_sweep(kData / "hundred.yaml");
  const auto points = spec.points();
  REQUIRE(points.size() == spec.axes[0].values.size() * spec.axes[1].values.size());
  CHECK(points[1].axes[0].second == spec.axes[0].labels[0]);
  CHECK(points[1].axes[1].second == spec.axes[1].labels[1]);
  CHECK(points[spec.axes[1].values.size()].axes[0].second == spec.axes[0].labels[1]);
  for (std::size_t i = 0; i < points.size(); ++i) CHECK(points[i].id == static_cast<int>(i));
}

TEST_CASE("sweep::load_sweep: zip pairs values and makes paths absolute", "[sweep]") {
  const auto base = (kData / "tiny.yaml").string();
  const auto file = write_sweep("zip.yaml", "kind: sweep\nbase: " + base +
                                                "\ncombine: zip\naxes:\n  parallelism.dp: [1, 2]\n"
                                                "  platform: [a.yaml, b.yaml]\n");
  const auto points = sweep::load_sweep(file).points();
  REQUIRE(points.size() == 2);
  CHECK(points[1].overrides[0].value == "2");
  CHECK(std::filesystem::path(points[1].overrides[1].value).is_absolute());
  CHECK(points[1].axes[1].second == "b.yaml");
}

TEST_CASE("sweep::load_sweep: reports every problem with its line", "[sweep]") {
  const auto file = write_sweep("bad.yaml", "kind: sweep\nbase: missing.yaml\ncombin: zip\naxes:\n  parallelism.dp: 4\n");
  const std::string all = load_errors(file);
  CHECK_THAT(all, Catch::Contains("bad.yaml:3:1: combin: unknown key; did you mean \"combine\"?"));
  CHECK_THAT(all, Catch::Contains("base: no such file"));
  CHECK_THAT(all, Catch::Contains("axes.parallelism.dp: must be a non-empty list"));
}

TEST_CASE("sweep::load_sweep: a grid beyond kMaxSweepPoints is refused before any point is made", "[sweep]") {
  const auto base = (kData / "tiny.yaml").string();
  std::string text = "kind: sweep\nbase: " + base + "\naxes:\n";
  // 7 axes of 10 values: 10^7 points.
  for (const char* key : {"a", "b", "c", "d", "e", "f", "g"}) text += std::string("  ") + key + ": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  const auto file = write_sweep("huge.yaml", text);
  try {
    sweep::load_sweep(file);
    FAIL("no error");
  } catch (const ConfigError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].location.line == 4);
    CHECK_THAT(e.diagnostics()[0].message,
               Catch::StartsWith("the grid has 10 x 10 x 10 x 10 x 10 x 10 x 10 = 10000000 points, too many: at most "
                                 "100000"));
  }
}

TEST_CASE("sweep::load_sweep: keys that are not names are located, not a yaml-cpp conversion error", "[sweep]") {
  const auto file = write_sweep("keys.yaml", "kind: sweep\nbase: x.yaml\naxes:\n  ? [parallelism, dp]\n  : [1, 2]\n");
  CHECK_THAT(load_errors(file), Catch::Contains("keys.yaml:4:5: axes: keys must be scenario key paths"));
}

TEST_CASE("sweep::SweepSpec::fingerprint: the same points, the same fingerprint", "[sweep]") {
  const auto base = (kData / "tiny.yaml").string();
  const auto a = write_sweep("fa.yaml", "kind: sweep\nname: a\nbase: " + base + "\naxes:\n  parallelism.dp: [1, 2]\n");
  const auto renamed = write_sweep("fb.yaml", "# a comment\nkind: sweep\nname: b\ndescription: other words\nbase: " +
                                                  base + "\naxes:\n  parallelism.dp: [1, 2]\n");
  const auto other = write_sweep("fc.yaml", "kind: sweep\nname: a\nbase: " + base + "\naxes:\n  parallelism.dp: [1, 4]\n");
  const auto fingerprint = sweep::load_sweep(a).fingerprint();
  CHECK(fingerprint.size() == 16);
  CHECK(sweep::load_sweep(renamed).fingerprint() == fingerprint);
  CHECK(sweep::load_sweep(other).fingerprint() != fingerprint);
}

TEST_CASE("sweep::check_sweep_values: every axis value is read before the first point, at its place", "[sweep]") {
  const auto base = (kData / "tiny.yaml").string();
  const auto file = write_sweep("values.yaml", "kind: sweep\nbase: " + base +
                                                   "\naxes:\n  parallelism.dp: [8, 0, 8]\n  training.globl_batch: [16]\n");
  try {
    sweep::check_sweep_values(sweep::load_sweep(file));
    FAIL("no error");
  } catch (const ConfigError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK(e.diagnostics()[0].str() == file.string() + ":4:23: axes.parallelism.dp[1]: must be >= 1, got \"0\"");
    CHECK_THAT(e.diagnostics()[1].str(), Catch::StartsWith(file.string() + ":5:26: axes.training.globl_batch[0]: "
                                                                           "unknown key \"training.globl_batch\""));
  }
}

TEST_CASE("sweep::point_problem: a point file must be a point of its id", "[sweep]") {
  const auto ok = sweep::PointRecord::parse(R"({"id": 3, "axes": {"a": "1"}, "status": "error", "message": "x"})");
  CHECK(sweep::point_problem(ok, 3).empty());
  CHECK(sweep::point_problem(ok, 4) == "its id 3 does not match its name");
  CHECK(sweep::point_problem(sweep::PointRecord::parse("[1]"), 0) == "not a JSON object");
  CHECK(sweep::point_problem(sweep::PointRecord::parse(R"({"id": "3"})"), 3) == "no integer \"id\"");
  const auto no_summary =
      sweep::PointRecord::parse(R"({"id": 3, "axes": {}, "status": "ok", "message": ""})");
  CHECK(sweep::point_problem(no_summary, 3) == "status ok without a \"summary\" object");
}
