#include "app/files/screenshot_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace collviz {

namespace fs = std::filesystem;

namespace {
std::string normal(const std::string& p) {
  std::string n = fs::path(p).lexically_normal().string();
  while (n.size() > 1 && n.back() == '/') n.pop_back();
  return n;
}

bool samePlace(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (a.empty() || b.empty()) return false;
  return fs::equivalent(a, b, ec) || normal(a) == normal(b);
}
}  // namespace

std::string xdgPicturesDir(const std::string& user_dirs, const std::string& home) {
  std::istringstream in(user_dirs);
  std::string line;
  while (std::getline(in, line)) {
    const std::string key = "XDG_PICTURES_DIR=\"";
    if (line.rfind(key, 0) != 0) continue;
    const auto end = line.find('"', key.size());
    if (end == std::string::npos) continue;
    std::string v = line.substr(key.size(), end - key.size());
    if (v.rfind("$HOME", 0) == 0) v = home + v.substr(5);
    else if (v.empty() || v[0] != '/') continue;  // the spec allows only these two forms
    return v;
  }
  return "";
}

ScreenshotDir chooseScreenshotDir(const ScreenshotPlaces& p) {
  if (!p.env_dir.empty()) return {p.env_dir, false};
  if (!p.cwd.empty() && p.cwd_writable && !p.cwd_is_program && !samePlace(p.cwd, p.home))
    return {p.cwd, false};
  if (!p.home.empty()) {
    std::string pictures = xdgPicturesDir(p.user_dirs, p.home);
    // XDG_PICTURES_DIR="$HOME/" means "no pictures folder": ~/Pictures then.
    if (pictures.empty() || samePlace(pictures, p.home)) pictures = p.home + "/Pictures";
    return {pictures, true};
  }
  return {p.cwd.empty() ? "." : p.cwd, false};
}

ScreenshotPlaces currentScreenshotPlaces(const std::function<bool(const std::string&)>& is_program) {
  ScreenshotPlaces p;
  if (const char* v = std::getenv("COLLVIZ_SCREENSHOT_DIR"); v && *v) p.env_dir = v;
  std::error_code ec;
  p.cwd = fs::current_path(ec).string();
  p.cwd_writable = !p.cwd.empty() && ::access(p.cwd.c_str(), W_OK) == 0;
  p.cwd_is_program = !p.cwd.empty() && is_program(p.cwd);
  if (const char* v = std::getenv("HOME"); v && *v) p.home = v;
  std::string config;
  if (const char* v = std::getenv("XDG_CONFIG_HOME"); v && *v) config = v;
  else if (!p.home.empty()) config = p.home + "/.config";
  if (!config.empty()) {
    std::ifstream in(config + "/user-dirs.dirs");
    std::ostringstream text;
    text << in.rdbuf();
    p.user_dirs = text.str();
  }
  return p;
}

}  // namespace collviz
