#pragma once
// A small XML well-formedness check for the SVGs we write (no dependency): balanced and properly
// nested elements, quoted attributes, no stray '<' or '&' in text, one root element.
#include <cctype>
#include <string>
#include <vector>

namespace clearfog::test {

/// Empty when `xml` is well-formed; otherwise what is wrong and where (byte offset).
inline std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  std::size_t i = 0;
  auto err = [&](const std::string& what) { return what + " at offset " + std::to_string(i); };
  auto check_entity = [&](std::size_t at) {
    const auto semi = xml.find(';', at);
    if (semi == std::string::npos || semi - at > 8) return false;
    const auto name = xml.substr(at + 1, semi - at - 1);
    return name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos" ||
           (!name.empty() && name[0] == '#');
  };
  while (i < xml.size()) {
    if (xml[i] == '&') {
      if (!check_entity(i)) return err("bare '&'");
      ++i;
      continue;
    }
    if (xml[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) return err("text outside the root");
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      const auto end = xml.find("-->", i);
      if (end == std::string::npos) return err("unclosed comment");
      i = end + 3;
      continue;
    }
    if (xml.compare(i, 2, "<?") == 0) {
      const auto end = xml.find("?>", i);
      if (end == std::string::npos) return err("unclosed processing instruction");
      i = end + 2;
      continue;
    }
    const bool closing = xml.compare(i, 2, "</") == 0;
    std::size_t j = i + (closing ? 2 : 1);
    std::string name;
    while (j < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[j])) || xml[j] == '-' || xml[j] == ':' || xml[j] == '_'))
      name += xml[j++];
    if (name.empty()) return err("tag without a name");
    bool self_closing = false;
    // Attributes: name="value" or name='value', values without '<' and with valid entities.
    for (;;) {
      while (j < xml.size() && std::isspace(static_cast<unsigned char>(xml[j]))) ++j;
      if (j >= xml.size()) return err("unterminated tag <" + name);
      if (xml[j] == '>') { ++j; break; }
      if (xml.compare(j, 2, "/>") == 0) { self_closing = true; j += 2; break; }
      if (closing) return err("attributes in a closing tag");
      std::size_t k = j;
      while (k < xml.size() && xml[k] != '=' && !std::isspace(static_cast<unsigned char>(xml[k])) && xml[k] != '>') ++k;
      if (k == j || k >= xml.size() || xml[k] != '=') return err("attribute without a value in <" + name);
      const char quote = xml[k + 1];
      if (quote != '"' && quote != '\'') return err("unquoted attribute in <" + name);
      const auto end = xml.find(quote, k + 2);
      if (end == std::string::npos) return err("unterminated attribute value");
      for (std::size_t v = k + 2; v < end; ++v) {
        if (xml[v] == '<') return err("'<' in an attribute value");
        if (xml[v] == '&' && !check_entity(v)) return err("bare '&' in an attribute value");
      }
      j = end + 1;
    }
    if (closing) {
      if (open.empty() || open.back() != name) return err("mismatched </" + name + ">");
      open.pop_back();
    } else if (!self_closing) {
      if (open.empty()) ++roots;
      open.push_back(name);
    } else if (open.empty()) {
      ++roots;
    }
    i = j;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return {};
}

}  // namespace clearfog::test
