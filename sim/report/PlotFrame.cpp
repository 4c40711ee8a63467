#include "report/PlotFrame.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/SweepPlot.hpp"
#include "report/TimelineSvg.hpp"

namespace clearfog::report {

LinearAxis::LinearAxis(double max) {
  const double range = max > 0 ? max : 1;
  tick = nice_tick(range, 6);
  top = tick * std::ceil(range * (1 + 1e-9) / tick);
}

std::string plot_svg_open(double width, double height, const PlotBox& box, const std::string& title) {
  std::string o = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                              "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\">\n",
                              width, height);
  o += fmt::format("<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n", width, height);
  o += fmt::format("<text x=\"{:.0f}\" y=\"28\" font-size=\"{:.0f}\" font-weight=\"bold\">{}</text>\n", box.left,
                   kPlotTitleFont, xml_escape(title));
  return o;
}

std::string y_grid_svg(const PlotBox& box, const LinearAxis& y) {
  std::string o;
  for (int k = 0; k * y.tick <= y.top * (1 + 1e-9); ++k) {
    const double py = y_px(box, y, k * y.tick);
    o += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"#dddddd\"/>\n", box.left, py,
                     box.right(), py);
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" text-anchor=\"end\" "
                     "dominant-baseline=\"middle\">{}</text>\n",
                     box.left - 6, py, tick_label(k * y.tick));
  }
  return o;
}

std::string axis_labels_svg(const PlotBox& box, const std::string& x_label, const std::string& y_label) {
  std::string o = fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"13\" text-anchor=\"middle\">{}</text>\n",
                              box.left + box.width / 2, box.base() + box.bottom - 20, xml_escape(x_label));
  o += fmt::format("<text x=\"18\" y=\"{0:.2f}\" font-size=\"13\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 18 {0:.2f})\">{1}</text>\n",
                   box.top + box.height / 2, xml_escape(y_label));
  return o;
}

}  // namespace clearfog::report
