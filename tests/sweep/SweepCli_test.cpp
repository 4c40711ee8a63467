// `clearfog sweep` / `merge` as a user runs them: kill and resume, failing points, shards.
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>
#include <thread>

#include "report/XmlCheck.hpp"
#include "sweep/SweepSpec.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(CLEARFOG_SOURCE_DIR) / "tests/sweep/data";

fs::path fresh_dir(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("clearfog-sweep-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  return dir;
}

int run_clearfog(const std::string& args) {
  const std::string command = std::string(CLEARFOG_BINARY) + " " + args + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::size_t rows(const std::string& csv) { return static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) - 1; }

std::size_t points_in(const fs::path& dir) {
  std::size_t n = 0;
  if (!fs::is_directory(dir / "points")) return 0;
  for (const auto& e : fs::directory_iterator(dir / "points"))
    if (e.path().extension() == ".json" && !e.path().filename().string().starts_with(".")) ++n;
  return n;
}

}  // namespace

TEST_CASE("clearfog sweep: killed halfway and resumed equals an uninterrupted run", "[sweep][cli]") {
  const auto sweep = (kData / "hundred.yaml").string();
  const auto whole = fresh_dir("whole");
  REQUIRE(run_clearfog("sweep " + sweep + " --jobs 2 --out " + whole.string()) == 0);
  const auto expected = read(whole / "results.csv");
  REQUIRE(rows(expected) == 100);

  const auto killed = fresh_dir("killed");
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl(CLEARFOG_BINARY, CLEARFOG_BINARY, "sweep", sweep.c_str(), "--jobs", "2", "--out", killed.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill it once some points, not all, are done.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (points_in(killed) < 20 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  const auto partial = points_in(killed);
  CHECK(partial >= 20);
  CHECK(partial < 100);

  REQUIRE(run_clearfog("sweep " + sweep + " --jobs 2 --resume --out " + killed.string()) == 0);
  CHECK(read(killed / "results.csv") == expected);
}

TEST_CASE("clearfog sweep: failing points are recorded and the sweep goes on — shards merge to the whole",
          "[sweep][cli]") {
  const auto sweep = (kData / "twelve.yaml").string();
  const auto whole = fresh_dir("twelve");
  REQUIRE(run_clearfog("sweep " + sweep + " --jobs 2 --out " + whole.string() + " --best throughput --plot throughput:training.global_batch") == 0);
  const auto csv = read(whole / "results.csv");
  REQUIRE(rows(csv) == 12);
  // A point is valid when dp * micro_batch divides the global batch (dp = 8 in tiny.yaml).
  constexpr int kDp = 8;
  std::size_t valid = 0;
  for (int gb : {8, 16, 24, 32})
    for (int mb : {1, 2, 3}) valid += gb % (kDp * mb) == 0 ? 1 : 0;
  std::size_t errors = 0;
  std::size_t ok = 0;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(",error,") != std::string::npos) ++errors;
    if (line.find(",ok,") != std::string::npos) ++ok;
  }
  CHECK(ok == valid);
  CHECK(errors == 12 - valid);
  // One column per key (the summary's status and scenario keys are not repeated).
  const auto header = csv.substr(0, csv.find('\n'));
  std::vector<std::string> columns;
  std::istringstream fields(header);
  for (std::string c; std::getline(fields, c, ',');) columns.push_back(c);
  CHECK(std::set<std::string>(columns.begin(), columns.end()).size() == columns.size());
  CHECK(std::count(columns.begin(), columns.end(), "status") == 1);
  CHECK(std::count(columns.begin(), columns.end(), "training.global_batch") == 1);
  CHECK(clearfog::test::xml_problem(read(whole / "plot-throughput-training.global_batch.svg")).empty());

  const auto s0 = fresh_dir("shard0");
  const auto s1 = fresh_dir("shard1");
  const auto s2 = fresh_dir("shard2");
  REQUIRE(run_clearfog("sweep " + sweep + " --out " + s0.string() + " --shard 0/3") == 0);
  REQUIRE(run_clearfog("sweep " + sweep + " --out " + s1.string() + " --shard 1/3") == 0);
  REQUIRE(run_clearfog("sweep " + sweep + " --out " + s2.string() + " --shard 2/3") == 0);
  CHECK(rows(read(s1 / "results.csv")) == 4);
  const auto merged = fresh_dir("merged");
  REQUIRE(run_clearfog("merge " + s0.string() + " " + s1.string() + " " + s2.string() + " --out " + merged.string()) == 0);
  CHECK(read(merged / "results.csv") == csv);
}

TEST_CASE("clearfog run: trace, timeline and CSV are deterministic", "[report][cli]") {
  const auto dir = fresh_dir("run-outputs");
  fs::create_directories(dir);
  const auto scenario = (kData / "tiny.yaml").string();
  for (const char* tag : {"a", "b"}) {
    const auto base = dir / tag;
    REQUIRE(run_clearfog("run " + scenario + " --format json --trace " + base.string() + ".json --timeline " +
                     base.string() + ".svg --csv " + base.string() + "-csv") == 0);
  }
  CHECK(read(dir / "a.json") == read(dir / "b.json"));
  CHECK(read(dir / "a.svg") == read(dir / "b.svg"));
  CHECK(read(dir / "a-csv/ops.csv") == read(dir / "b-csv/ops.csv"));
  CHECK(clearfog::test::xml_problem(read(dir / "a.svg")).empty());
  CHECK(read(dir / "a.json").find("\"traceEvents\"") != std::string::npos);
}

TEST_CASE("clearfog sweep: a shipped sweep file gives one ok row per grid point", "[sweep][cli]") {
  const auto file = fs::path(CLEARFOG_SOURCE_DIR) / "scenarios/sweeps/buckets.yaml";
  // A grid has the product of the axis lengths as points (docs/sweeps.md).
  const auto spec = clearfog::sweep::load_sweep(file);
  std::size_t expected = 1;
  for (const auto& axis : spec.axes) expected *= axis.values.size();
  REQUIRE(expected > 1);
  const auto dir = fresh_dir("buckets");
  REQUIRE(run_clearfog("sweep " + file.string() + " --jobs 2 --out " + dir.string()) == 0);
  const auto csv = read(dir / "results.csv");
  CHECK(rows(csv) == expected);
  std::size_t ok = 0;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) ok += line.find(",ok,") != std::string::npos ? 1 : 0;
  CHECK(ok == expected);
}

TEST_CASE("clearfog sweep: a bad axis key or plot metric is refused before any point runs", "[sweep][cli]") {
  const auto dir = fresh_dir("refused");
  fs::create_directories(dir);
  const auto sweep = dir / "typo.yaml";
  std::ofstream(sweep) << "kind: sweep\nbase: " << (kData / "tiny.yaml").string()
                       << "\naxes:\n  training.globl_batch: [8, 16]\n";
  CHECK(run_clearfog("sweep " + sweep.string() + " --out " + (dir / "typo").string()) == 2);
  CHECK(!fs::exists(dir / "typo"));
  CHECK(run_clearfog("validate " + sweep.string()) == 2);
  CHECK(run_clearfog("sweep " + (kData / "twelve.yaml").string() + " --plot foo:training.global_batch --out " +
                     (dir / "metric").string()) == 2);
  CHECK(!fs::exists(dir / "metric"));
}

TEST_CASE("the shipped dp-scaling sweep: every point runs and its plot has a full line per platform", "[sweep][cli]") {
  const auto sweep = (fs::path(CLEARFOG_SOURCE_DIR) / "scenarios/sweeps/dp-scaling.yaml").string();
  const auto dir = fresh_dir("dp-scaling");
  REQUIRE(run_clearfog("sweep " + sweep + " --jobs 2 --out " + dir.string() + " --plot throughput:parallelism.dp") == 0);
  constexpr std::size_t kPlatforms = 2;  // DGX A100, DGX H100
  constexpr std::size_t kDegrees = 4;    // dp = 1, 2, 4, 8
  const auto csv = read(dir / "results.csv");
  CHECK(rows(csv) == kPlatforms * kDegrees);
  std::size_t ok = 0;
  for (std::size_t at = csv.find(",ok,"); at != std::string::npos; at = csv.find(",ok,", at + 1)) ++ok;
  CHECK(ok == kPlatforms * kDegrees);
  const auto svg = read(dir / "plot-throughput-parallelism.dp.svg");
  std::size_t lines = 0;
  for (std::size_t at = svg.find("<polyline points=\""); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
    const auto end = svg.find('"', at + 18);
    const auto points = svg.substr(at + 18, end - at - 18);
    CHECK(static_cast<std::size_t>(std::count(points.begin(), points.end(), ' ')) + 1 == kDegrees);
    ++lines;
  }
  CHECK(lines == kPlatforms);
}

TEST_CASE("clearfog sweep --html and clearfog report DIR write the same page, a row per point", "[sweep][cli][html]") {
  const auto dir = fresh_dir("html");
  REQUIRE(run_clearfog("sweep " + (kData / "html.yaml").string() + " --jobs 2 --out " + dir.string() + " --html " +
                       (dir / "first.html").string()) == 0);
  REQUIRE(run_clearfog("report " + dir.string()) == 0);
  const auto page = read(dir / "report.html");
  CHECK(page == read(dir / "first.html"));
  std::size_t rows_in_page = 0;
  for (auto at = page.find("<tr class="); at != std::string::npos; at = page.find("<tr class=", at + 1)) ++rows_in_page;
  CHECK(rows_in_page == points_in(dir));
  // Rewriting the page gives the same bytes.
  REQUIRE(run_clearfog("report " + dir.string() + " --html " + (dir / "again.html").string()) == 0);
  CHECK(read(dir / "again.html") == page);
  CHECK(run_clearfog("report " + (dir / "points").string()) == 2);  // not a sweep directory
}
