// What a YAML file may not be: not a regular file, too large, binary, several documents, a key
// given twice, nested or aliased without bound, a stray flow token. Each is one located diagnostic.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/YamlFile.hpp"

using namespace clearfog;
using namespace clearfog::config;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

/// The single diagnostic parsing `text` gives (fails when there is not exactly one).
Diagnostic problem_of(const std::string& text) {
  std::vector<Diagnostic> out;
  const auto root = parse_yaml_text(text, "f.yaml", out);
  CHECK_FALSE(root.has_value());
  REQUIRE(out.size() == 1);
  return out.front();
}

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "clearfog-yamlfile-test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::remove(path);
  return path;
}

}  // namespace

TEST_CASE("config::YamlFile: a duplicate key names both places", "[config]") {
  const auto d = problem_of("node:\n  devices: 8\n  devices: 4\n");
  CHECK(d.location.str() == "f.yaml:3:3");
  CHECK(d.key == "node.devices");
  CHECK(d.message == "duplicate key \"devices\", first given at f.yaml:2:3; give each key once");
}

TEST_CASE("config::YamlFile: one document per file — empty ones are ignored", "[config]") {
  const auto d = problem_of("kind: platform\n---\nkind: workload\n");
  CHECK(d.location.str() == "f.yaml:3:1");
  CHECK_THAT(d.message, StartsWith("a second YAML document starts here (the first starts at f.yaml:1:1)"));
  std::vector<Diagnostic> out;
  const auto root = parse_yaml_text("kind: platform\n---\n", "f.yaml", out);
  REQUIRE(root.has_value());
  CHECK(out.empty());
  CHECK(root->IsMap());
}

TEST_CASE("config::YamlFile: binary text is refused at the byte", "[config]") {
  CHECK(problem_of(std::string("kind: x\nname: a\0b\n", 17)).location.str() == "f.yaml:2:8");
  const auto utf8 = problem_of("name: \xff\n");
  CHECK(utf8.location.str() == "f.yaml:1:7");
  CHECK_THAT(utf8.message, Contains("not valid UTF-8"));
  // Overlong encodings and surrogates are not UTF-8 either.
  CHECK_THAT(problem_of("a: \xC0\xAF\n").message, Contains("not valid UTF-8"));
  CHECK_THAT(problem_of("a: \xED\xA0\x80\n").message, Contains("not valid UTF-8"));
  std::vector<Diagnostic> out;
  CHECK(parse_yaml_text("latency: 1 \xC2\xB5s\n", "f.yaml", out).has_value());
}

TEST_CASE("config::YamlFile: aliases and nesting are bounded", "[config]") {
  CHECK_THAT(problem_of("a: &a [*a]\n").message, StartsWith("nested deeper than 64 levels"));
  // Nine levels of ten-fold aliases expand to 10^10 values; the walk stops at the limit.
  std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    const std::string p = "*l" + std::to_string(i - 1);
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + p + ", " + p + ", " + p + ", " + p + ", " +
            p + ", " + p + ", " + p + ", " + p + ", " + p + ", " + p + "]\n";
  }
  CHECK_THAT(problem_of(bomb).message,
             StartsWith("the document holds more than " + std::to_string(kMaxYamlNodes) + " values"));
}

TEST_CASE("config::YamlFile: a stray flow token is an error, not a hang", "[config]") {
  // yaml-cpp 0.7's LoadAll loops forever on these.
  for (const char* text : {", a\n", "[a], b\n", ",\n"}) {
    INFO(text);
    CHECK_THAT(problem_of(text).message, StartsWith("malformed YAML: unexpected \",\" outside a flow list or mapping"));
  }
}

TEST_CASE("config::YamlFile: only regular files of at most 4 MiB are read", "[config]") {
  std::vector<Diagnostic> out;
  SECTION("a FIFO is refused without blocking") {
    const auto fifo = scratch("fifo.yaml");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_FALSE(read_yaml_file(fifo, std::nullopt, out).has_value());
    REQUIRE(out.size() == 1);
    CHECK_THAT(out[0].message, Contains("it is a FIFO (named pipe), not a regular file"));
  }
  SECTION("a directory, reported at the reference that names it") {
    const Referrer referrer{SourceLocation{"scenario.yaml", 4, 11}, "platform"};
    CHECK_FALSE(read_yaml_file(std::filesystem::temp_directory_path(), referrer, out).has_value());
    REQUIRE(out.size() == 1);
    CHECK(out[0].location.str() == "scenario.yaml:4:11");
    CHECK(out[0].key == "platform");
    CHECK_THAT(out[0].message, Contains("it is a directory"));
  }
  SECTION("a file one byte over the limit") {
    const auto big = scratch("big.yaml");
    std::ofstream(big) << std::string(kMaxYamlFileBytes + 1, '#');
    CHECK_FALSE(read_yaml_file(big, std::nullopt, out).has_value());
    REQUIRE(out.size() == 1);
    CHECK_THAT(out[0].message, Contains("it has " + std::to_string(kMaxYamlFileBytes + 1) + " bytes"));
  }
}
