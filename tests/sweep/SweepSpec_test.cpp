// Sweep files: points of a grid and of a zip, located errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/Errors.hpp"
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
  try {
    sweep::load_sweep(file);
    FAIL("no error");
  } catch (const ConfigError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) all += d.str() + "\n";
    CHECK_THAT(all, Catch::Contains("bad.yaml:3:1: combin: unknown key; did you mean \"combine\"?"));
    CHECK_THAT(all, Catch::Contains("base: no such file"));
    CHECK_THAT(all, Catch::Contains("axes.parallelism.dp: must be a non-empty list"));
  }
}
