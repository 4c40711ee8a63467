#include "config/YamlFile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include "core/Quote.hpp"
#include "core/Units.hpp"

namespace clearfog::config {

namespace {

/// What a non-regular file is, for "it is a FIFO (named pipe), not a regular file".
std::string file_type_text(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// Closes a file descriptor when it goes out of scope.
class Descriptor {
public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

private:
  int fd_;
};

/// 1-based line and column of byte `offset` of `text`.
SourceLocation location_at(const std::string& text, std::size_t offset, const std::string& name) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {name, line, column};
}

/// Length of the UTF-8 sequence starting at `i`, or 0 when it is not valid UTF-8 (overlong forms,
/// surrogates and code points above U+10FFFF included).
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned int min = 0;
  unsigned int cp = 0;
  if ((c & 0xE0) == 0xC0) n = 2, min = 0x80, cp = c & 0x1Fu;
  else if ((c & 0xF0) == 0xE0) n = 3, min = 0x800, cp = c & 0x0Fu;
  else if ((c & 0xF8) == 0xF0) n = 4, min = 0x10000, cp = c & 0x07u;
  else return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

/// YAML text is UTF-8 without C0 control characters other than tab, line feed and carriage return.
/// yaml-cpp stops silently at a NUL byte, so binary data must be refused before it parses.
bool check_text(const std::string& text, const std::string& name, std::vector<Diagnostic>& out) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      out.push_back({location_at(text, i, name), "",
                     fmt::format("control character 0x{:02X} in the text; a YAML file is UTF-8 text (is this a "
                                 "binary file?)",
                                 c)});
      return false;
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out.push_back({location_at(text, i, name), "",
                     fmt::format("byte 0x{:02X} is not valid UTF-8; a YAML file is UTF-8 text", c)});
      return false;
    }
    i += n;
  }
  return true;
}

/// Finds where each document of a text starts, without building it. yaml-cpp 0.7's parser never
/// gets past a flow token outside a collection (", a", "[a], b"): it returns the same empty
/// document forever, and YAML::LoadAll with it. The scan stops at the first document that starts
/// where the previous one did.
class DocumentScan : public YAML::EventHandler {
public:
  /// nullopt when the text splits into documents; else the mark where the parser is stuck.
  static std::optional<YAML::Mark> stuck_at(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentScan scan;
    std::optional<YAML::Mark> previous;
    while (parser.HandleNextDocument(scan)) {
      if (previous && scan.start_.pos == previous->pos) return scan.start_;
      previous = scan.start_;
    }
    return std::nullopt;
  }

  void OnDocumentStart(const YAML::Mark& mark) override { start_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

private:
  YAML::Mark start_;
};

/// Walks a parsed document once, with its aliases expanded, and refuses what the reader must not
/// see: duplicate keys, nesting deeper than kMaxYamlDepth, more than kMaxYamlNodes values. The key
/// path of a node is kept as a stack of segments and joined only for a report.
class StructureCheck {
public:
  StructureCheck(const std::string& name, std::vector<Diagnostic>& out) : name_(name), out_(out) {}

  bool run(const YAML::Node& root) {
    visit(root);
    return !failed_;
  }

private:
  SourceLocation where(const YAML::Node& n) const { return location_of(n.Mark(), name_, SourceLocation{name_, 0, 0}); }

  /// "node.link.bandwidth", "name[0][0][0]…" when long (a path through aliases).
  std::string path() const {
    constexpr std::size_t kShown = 40;
    std::string out;
    for (const auto& s : segments_) {
      if (out.size() > kShown) {
        std::size_t cut = kShown;  // at a UTF-8 boundary
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
        return out.substr(0, cut) + "\u2026";
      }
      if (!out.empty() && s.front() != '[') out += '.';
      out += shorten(s, kShown);
    }
    return out;
  }

  void visit(const YAML::Node& node) {
    if (stopped_) return;
    if (++nodes_ > kMaxYamlNodes) {
      stop(where(node), fmt::format("the document holds more than {} values once its aliases are expanded; a "
                                    "clearfog file holds a few thousand",
                                    kMaxYamlNodes));
      return;
    }
    if (static_cast<int>(segments_.size()) > kMaxYamlDepth) {
      stop(where(node), fmt::format("nested deeper than {} levels (through aliases, the document may refer to "
                                    "itself); clearfog files nest a few levels",
                                    kMaxYamlDepth));
      return;
    }
    if (node.IsSequence()) {
      std::size_t index = 0;
      for (const auto& element : node) {
        segments_.push_back(fmt::format("[{}]", index++));
        visit(element);
        segments_.pop_back();
      }
    } else if (node.IsMap()) {
      visit_map(node);
    }
  }

  void visit_map(const YAML::Node& node) {
    std::map<std::string, SourceLocation> seen;
    for (const auto& entry : node) {
      const YAML::Node key = entry.first;
      const YAML::Node value = entry.second;
      segments_.push_back(key.IsScalar() ? key.Scalar() : "?");
      visit(key);
      if (key.IsScalar()) {
        const auto [first, added] = seen.emplace(key.Scalar(), where(key));
        if (!added) {
          failed_ = true;
          out_.push_back({where(key), path(),
                          fmt::format("duplicate key {}, first given at {}; give each key once", quote(key.Scalar()),
                                      first->second.str())});
        }
      }
      visit(value);
      segments_.pop_back();
    }
  }

  void stop(SourceLocation location, std::string message) {
    stopped_ = failed_ = true;
    out_.push_back({std::move(location), path(), std::move(message)});
  }

  const std::string& name_;
  std::vector<Diagnostic>& out_;
  std::vector<std::string> segments_;
  std::size_t nodes_ = 0;
  bool stopped_ = false;
  bool failed_ = false;
};

}  // namespace

SourceLocation location_of(const YAML::Mark& mark, const std::string& file, const SourceLocation& fallback) {
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return fallback;
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

std::optional<std::string> read_text_file(const std::filesystem::path& file, const std::optional<Referrer>& referrer,
                                          std::vector<Diagnostic>& diagnostics) {
  const std::string name = file.string();
  auto cannot_read = [&](const std::string& why) {
    const std::string message = fmt::format("cannot read {}: {}", quote(name, kMaxQuotedPath), why);
    if (referrer)
      diagnostics.push_back({referrer->location, referrer->key, message});
    else
      diagnostics.push_back({SourceLocation{name.empty() ? "\"\"" : name, 0, 0}, "", message});
    return std::nullopt;
  };
  if (name.empty()) return cannot_read("the path is empty");
  if (name.find('\0') != std::string::npos) return cannot_read("the path contains a NUL byte");
  // Opened without blocking, then checked through the descriptor: a FIFO or a device named here
  // is refused without a single read, and nothing can be swapped in between check and read.
  const Descriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT) return cannot_read("no such file");
    return cannot_read(std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return cannot_read(std::strerror(errno));
  if (S_ISDIR(info.st_mode)) return cannot_read("it is a directory, not a YAML file");
  if (!S_ISREG(info.st_mode)) return cannot_read(fmt::format("it is {}, not a regular file", file_type_text(info.st_mode)));
  const auto too_large = [&](std::uintmax_t bytes) {
    return cannot_read(fmt::format("it has {} bytes; a clearfog file has at most {}", bytes,
                                   units::format(static_cast<double>(kMaxYamlFileBytes), units::Dimension::Bytes)));
  };
  if (static_cast<std::uintmax_t>(info.st_size) > kMaxYamlFileBytes) return too_large(static_cast<std::uintmax_t>(info.st_size));
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return cannot_read(std::strerror(errno));
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > kMaxYamlFileBytes) return too_large(text.size());  // the file grew while read
  }
  return text;
}

std::optional<YAML::Node> parse_yaml_text(const std::string& text, const std::string& name,
                                          std::vector<Diagnostic>& diagnostics) {
  if (!check_text(text, name, diagnostics)) return std::nullopt;
  const SourceLocation unknown{name, 0, 0};
  std::vector<YAML::Node> documents;
  try {
    if (const auto stuck = DocumentScan::stuck_at(text)) {
      const auto at = static_cast<std::size_t>(stuck->pos);
      diagnostics.push_back({location_of(*stuck, name, unknown), "",
                             fmt::format("malformed YAML: unexpected {} outside a flow list or mapping",
                                         at < text.size() ? quote(text.substr(at, 1)) : std::string("text"))});
      return std::nullopt;
    }
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    // e.msg is the bare message; e.what() repeats the position in yaml-cpp's own format.
    diagnostics.push_back({location_of(e.mark, name, unknown), "", fmt::format("malformed YAML: {}", e.msg)});
    return std::nullopt;
  }
  // Empty documents ("---" with nothing after it) carry nothing: only one with content may be given.
  std::optional<YAML::Node> root;
  for (const YAML::Node& document : documents) {
    if (document.IsNull()) continue;
    if (root) {
      diagnostics.push_back({location_of(document.Mark(), name, unknown), "",
                             fmt::format("a second YAML document starts here (the first starts at {}); a clearfog "
                                         "file holds one document: remove the \"---\" line and what follows, or "
                                         "split the file",
                                         location_of(root->Mark(), name, unknown).str())});
      return std::nullopt;
    }
    root = document;
  }
  if (!root) return YAML::Node(YAML::NodeType::Null);
  if (!StructureCheck(name, diagnostics).run(*root)) return std::nullopt;
  return root;
}

std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::optional<Referrer>& referrer,
                                         std::vector<Diagnostic>& diagnostics) {
  const auto text = read_text_file(file, referrer, diagnostics);
  if (!text) return std::nullopt;
  return parse_yaml_text(*text, file.string(), diagnostics);
}

}  // namespace clearfog::config
