#include "app/view/axis_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collviz::ui {

std::vector<double> roundTicks(double top, int most) {
  if (!(top > 0) || !std::isfinite(top)) top = 1;
  most = std::max(1, most);
  const double raw = top / most;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw * (1 - 1e-9)) {
      step = m * p;
      break;
    }
  std::vector<double> ticks;
  for (int k = 0;; ++k) {
    const double v = step * k;
    ticks.push_back(v);
    if (v >= top * (1 - 1e-9) || k > 2 * most + 2) break;
  }
  if (ticks.size() < 2) ticks.push_back(step);
  return ticks;
}

std::string tickLabel(double v, double step) {
  int decimals = 0;
  if (step > 0)
    for (double s = step; decimals < 9 && std::fabs(s - std::round(s)) > 1e-6 * std::max(1.0, s); s *= 10) ++decimals;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace collviz::ui
