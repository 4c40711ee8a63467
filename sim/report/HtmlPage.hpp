#pragma once
// What every clearfog HTML page shares (`run --html`, `sweep --html`, `report DIR`): the frame with
// its style sheet, escaping, sections and summary cards, and the script prelude that counts script
// errors on <body data-errors> for the headless-browser tests (tests/html/). Self-contained: no
// network, inline CSS and JS only. Deterministic.
#include <optional>
#include <string>
#include <string_view>

namespace clearfog::report {

std::string html_escape(std::string_view text);

/// A figure in a box: its label above, its value in bold; red when `bad`.
std::string html_card(const std::string& label, const std::string& value, bool bad = false);

/// A table cell of a number: `shown` for reading, the raw value in data-v for sorting; blank when
/// there is no value.
std::string html_number_cell(const std::optional<double>& value, const std::string& shown);

/// <h2 id=ID>TITLE</h2> then BODY (already HTML).
std::string html_section(const std::string& id, const std::string& title, const std::string& body);

/// An SVG document made inline: its XML declaration dropped.
std::string inline_svg(std::string svg);

/// From <!DOCTYPE html> to the opening <body>: the shared style sheet, then `extra_css`.
std::string html_page_head(const std::string& title, std::string_view extra_css = "");

/// The closing of a page: one <script> with the error counter and make_sortable(table) (for a
/// <table class="sortable"> with <thead> and <tbody>: click a heading to sort, cells sort by their
/// data-v when given), then `script` (which should end by setting document.body.dataset.ready =
/// "yes"), then </body></html>.
std::string html_page_tail(std::string_view script);

/// The script of a page built around one sortable table: it makes table `table_id` sortable and puts
/// its row count and the number of plots (svg in div.plot) on <body> as data-rows and data-plots,
/// for the headless-browser tests, then sets data-ready.
std::string table_page_script(std::string_view table_id);

}  // namespace clearfog::report
