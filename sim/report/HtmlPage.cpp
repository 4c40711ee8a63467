#include "report/HtmlPage.hpp"

#include <fmt/format.h>

#include "report/TimelineSvg.hpp"

namespace clearfog::report {
namespace {

constexpr const char* kPageStyle = R"CSS(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1240px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 140px; }
.card b { display: block; font-size: 20px; } .card.bad { border-color: #d62728; color: #d62728; }
pre { background: #f7f7f7; padding: 10px; overflow-x: auto; font-size: 12px; }
.note { color: #666; font-size: 13px; } svg { max-width: 100%; height: auto; }
table.sortable { border-collapse: collapse; font-size: 12px; margin-top: 8px; }
table.sortable th, table.sortable td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; white-space: nowrap; }
table.sortable th { background: #f0f0f0; cursor: pointer; user-select: none; }
table.sortable th[data-order="asc"]::after { content: " \25B2"; } table.sortable th[data-order="desc"]::after { content: " \25BC"; }
table.sortable td.text, table.sortable th.text { text-align: left; } table.sortable td.message { white-space: normal; max-width: 420px; }
table.sortable td.wrap { white-space: normal; max-width: 260px; } .table-box { overflow-x: auto; }
tr.oom td { background: #fde8e8; } tr.error td, tr.timeout td, tr.skipped td { color: #888; }
tr.best td { background: #e6f4e6; font-weight: bold; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 8px 16px; }
.plot { margin: 10px 0 18px; }
)CSS";

// Counts script errors on <body data-errors> (a headless browser's DOM dump shows them) and defines
// make_sortable(table): a click on a heading sorts the rows by its column (cells' data-v when given,
// numbers as numbers, blanks last; a second click reverses).
constexpr const char* kErrorCounter = R"JS(
document.body.dataset.errors = "0";
window.addEventListener("error", function () {
  document.body.dataset.errors = String(Number(document.body.dataset.errors) + 1);
});
function make_sortable(table) {
  var body = table.tBodies[0], heads = table.tHead.rows[0].cells;
  function key(row, c) { var cell = row.cells[c]; var v = cell.getAttribute("data-v"); return v === null ? cell.textContent : v; }
  function sortBy(c, asc) {
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) { return { r: r, i: i, k: key(r, c) }; });
    var numeric = rows.every(function (x) { return x.k === "" || !isNaN(Number(x.k)); });
    rows.sort(function (a, b) {
      if ((a.k === "") !== (b.k === "")) return a.k === "" ? 1 : -1;
      var d = numeric ? Number(a.k) - Number(b.k) : (a.k < b.k ? -1 : a.k > b.k ? 1 : 0);
      return (asc ? d : -d) || a.i - b.i;
    });
    rows.forEach(function (x) { body.appendChild(x.r); });
    for (var k = 0; k < heads.length; ++k) heads[k].removeAttribute("data-order");
    heads[c].setAttribute("data-order", asc ? "asc" : "desc");
  }
  Array.prototype.forEach.call(heads, function (h, c) {
    h.addEventListener("click", function () { sortBy(c, h.getAttribute("data-order") !== "asc"); });
  });
}
)JS";

}  // namespace

std::string html_escape(std::string_view text) { return xml_escape(text); }

std::string html_card(const std::string& label, const std::string& value, bool bad) {
  return fmt::format("<div class=\"card{}\">{}<b>{}</b></div>\n", bad ? " bad" : "", html_escape(label),
                     html_escape(value));
}

std::string html_number_cell(const std::optional<double>& value, const std::string& shown) {
  if (!value) return "<td data-v=\"\"></td>";
  return fmt::format("<td data-v=\"{}\">{}</td>", *value, html_escape(shown));
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
                     html_escape(title), kPageStyle, extra_css);
}

std::string html_page_tail(std::string_view script) {
  return fmt::format("<script>{}{}</script>\n</body></html>\n", kErrorCounter, script);
}

std::string table_page_script(std::string_view table_id) {
  return fmt::format(R"JS(
(function () {{
  var table = document.getElementById("{}");
  document.body.dataset.rows = String(table.tBodies[0].rows.length);
  document.body.dataset.plots = String(document.querySelectorAll("div.plot svg").length);
  make_sortable(table);
  document.body.dataset.ready = "yes";
}})();
)JS",
                     table_id);
}

}  // namespace clearfog::report
