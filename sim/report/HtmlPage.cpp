#include "report/HtmlPage.hpp"

#include <fmt/format.h>

#include "report/TimelineSvg.hpp"

namespace clearfog::report {
namespace {

constexpr const char* kStyle = R"CSS(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1240px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 140px; }
.card b { display: block; font-size: 20px; } .card.bad { border-color: #d62728; color: #d62728; }
pre { background: #f7f7f7; padding: 10px; overflow-x: auto; font-size: 12px; }
.note { color: #666; font-size: 13px; } svg { max-width: 100%; height: auto; }
)CSS";

// Counts script errors on <body data-errors>: a headless browser's DOM dump shows them.
constexpr const char* kErrorCounter = R"JS(
document.body.dataset.errors = "0";
window.addEventListener("error", function () {
  document.body.dataset.errors = String(Number(document.body.dataset.errors) + 1);
});
)JS";

}  // namespace

std::string html_escape(std::string_view text) { return xml_escape(text); }

std::string html_card(const std::string& label, const std::string& value, bool bad) {
  return fmt::format("<div class=\"card{}\">{}<b>{}</b></div>\n", bad ? " bad" : "", html_escape(label),
                     html_escape(value));
}

std::string html_section(const std::string& id, const std::string& title, const std::string& body) {
  return fmt::format("<h2 id=\"{}\">{}</h2>\n{}", id, html_escape(title), body);
}

std::string inline_svg(std::string svg) {
  if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
  return svg;
}

std::string html_page_head(const std::string& title, std::string_view extra_css) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>{}</title>\n"
                     "<style>{}{}</style></head>\n<body>\n",
                     html_escape(title), kStyle, extra_css);
}

std::string html_page_tail(std::string_view script) {
  return fmt::format("<script>{}{}</script>\n</body></html>\n", kErrorCounter, script);
}

}  // namespace clearfog::report
