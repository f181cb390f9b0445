#include "tests/app/export/export_support.h"

#include <signal.h>
#include <stb_image.h>  // the implementation is in libstb
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <thread>

namespace collviz::test {

namespace fs = std::filesystem;

Png loadPng(const std::string& path) {
  Png p;
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &p.width, &p.height, &n, 3);
  if (!data) return Png{};
  p.rgb.assign(data, data + size_t(p.width) * p.height * 3);
  stbi_image_free(data);
  return p;
}

RunResult collviz(const std::string& args, const std::string& env) {
  // COLLVIZ_TEST_CLI: another collviz to run the tests against (a figure before a change).
  const char* other = std::getenv("COLLVIZ_TEST_CLI");
  std::string cmd = env + (env.empty() ? "" : " ") + "'" + (other && *other ? other : COLLVIZ_CLI) + "' " + args + " 2>&1";
  RunResult r;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
  int st = pclose(f);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

std::string freshDir(const std::string& name) {
  fs::path d = fs::path(EXPORT_TEST_DIR) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string withoutTspans(const std::string& svg) {
  static const std::regex tspan(R"(</?tspan[^>]*>)");
  return std::regex_replace(svg, tspan, "");
}

std::vector<std::vector<std::string>> svgRows(const std::string& with_tspans) {
  const std::string svg = withoutTspans(with_tspans);
  struct Item {
    double x, y;
    std::string text;
  };
  std::vector<Item> items;
  const std::regex text_re(R"re(<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it)
    items.push_back({std::stod((*it)[1]), std::stod((*it)[2]), (*it)[3]});
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.y < b.y; });
  std::vector<std::vector<Item>> rows;
  double row_y = -1e9;
  for (const Item& i : items) {
    if (i.y - row_y > 8) {
      rows.emplace_back();
      row_y = i.y;
    }
    rows.back().push_back(i);
  }
  std::vector<std::vector<std::string>> out;
  for (auto& row : rows) {
    std::stable_sort(row.begin(), row.end(), [](const Item& a, const Item& b) { return a.x < b.x; });
    out.emplace_back();
    for (const Item& i : row) out.back().push_back(i.text);
  }
  return out;
}

std::string svgTextRows(const std::string& svg) {
  std::string out;
  for (const auto& row : svgRows(svg)) {
    for (std::size_t k = 0; k < row.size(); ++k) out += (k ? " | " : "") + row[k];
    out += "\n";
  }
  return out;
}

bool haveTool(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

namespace {
pid_t g_xvfb = 0;
void stopXvfb() {
  if (g_xvfb > 0) {
    kill(g_xvfb, SIGTERM);
    waitpid(g_xvfb, nullptr, 0);
  }
}
}  // namespace

bool ensureDisplay(std::string* why) {
  const char* d = std::getenv("DISPLAY");
  if (d && *d) return true;
  if (!haveTool("Xvfb")) {
    *why = "no DISPLAY and no Xvfb (Debian package xvfb)";
    return false;
  }
  for (int n = 150; n < 250; ++n) {
    std::string lock = "/tmp/.X" + std::to_string(n) + "-lock";
    std::string sock = "/tmp/.X11-unix/X" + std::to_string(n);
    if (fs::exists(lock) || fs::exists(sock)) continue;
    std::string disp = ":" + std::to_string(n);
    pid_t pid = fork();
    if (pid == 0) {
      std::freopen("/dev/null", "w", stderr);
      execlp("Xvfb", "Xvfb", disp.c_str(), "-screen", "0", "640x480x24", "-nolisten", "tcp",
             static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 100 && !fs::exists(sock); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!fs::exists(sock)) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
      continue;  // somebody else's, or it failed: try the next number
    }
    g_xvfb = pid;
    std::atexit(stopXvfb);
    setenv("DISPLAY", disp.c_str(), 1);
    return true;
  }
  *why = "could not start Xvfb on any display :150 to :249";
  return false;
}

}  // namespace collviz::test
