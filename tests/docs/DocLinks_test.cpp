// Every relative link of the documentation resolves inside the repository: README.md and docs/
// (recursively), each `[text](target)` whose target is not a URL names an existing file, and a
// `#fragment` names a heading of that file (GitHub's anchor rule: lower case, punctuation other
// than '-' and '_' dropped, spaces to '-').
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string anchor_of(const std::string& heading) {
  std::string out;
  for (const unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) out += static_cast<char>(std::tolower(c));
    else if (c == ' ') out += '-';
  }
  return out;
}

/// The anchors of a markdown file's headings, outside code blocks; repeated headings get -1, -2.
std::set<std::string> anchors(const fs::path& file) {
  std::set<std::string> out;
  std::istringstream lines(read(file));
  std::string line;
  bool code = false;
  while (std::getline(lines, line)) {
    if (line.rfind("```", 0) == 0) code = !code;
    if (code || line.empty() || line[0] != '#') continue;
    const auto text = line.substr(line.find_first_not_of('#'));
    std::string a = anchor_of(text.substr(text.find_first_not_of(' ') == std::string::npos ? 0 : text.find_first_not_of(' ')));
    std::string unique = a;
    for (int n = 1; out.count(unique); ++n) unique = a + "-" + std::to_string(n);
    out.insert(unique);
  }
  return out;
}

std::vector<fs::path> documents() {
  const fs::path root = CLEARFOG_SOURCE_DIR;
  std::vector<fs::path> files = {root / "README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(root / "docs"))
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  return files;
}

}  // namespace

TEST_CASE("docs: every relative link and anchor resolves inside the repository", "[docs]") {
  const std::regex link(R"(\]\(([^)\s]+)\))");
  std::size_t checked = 0;
  for (const auto& file : documents()) {
    const std::string text = read(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[1];
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      const auto hash = target.find('#');
      const std::string path = target.substr(0, hash);
      const fs::path resolved = path.empty() ? file : (file.parent_path() / path).lexically_normal();
      INFO(file.filename().string() << ": link to " << target);
      CHECK(fs::exists(resolved));
      if (hash != std::string::npos && fs::exists(resolved) && resolved.extension() == ".md")
        CHECK(anchors(resolved).count(target.substr(hash + 1)) == 1);
      ++checked;
    }
  }
  CHECK(checked > 50);  // the docs do link to each other
}
