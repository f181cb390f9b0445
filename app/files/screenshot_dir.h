// Where the window's screenshots go (pure: the facts come in, so tests can
// state them). In order:
//   1. $COLLVIZ_SCREENSHOT_DIR, when set;
//   2. the current directory, when it is writable and is neither $HOME (where a
//      start from the desktop menu runs) nor inside collviz's own files;
//   3. the XDG pictures directory: XDG_PICTURES_DIR in
//      $XDG_CONFIG_HOME/user-dirs.dirs (default ~/.config), else ~/Pictures
//      (created when missing);
//   4. $HOME.
// Nothing is ever written next to the executable.
#pragma once

#include <functional>
#include <string>

namespace collviz {

struct ScreenshotPlaces {
  std::string env_dir;       // $COLLVIZ_SCREENSHOT_DIR
  std::string cwd;           // the current directory
  bool cwd_writable = false;
  bool cwd_is_program = false;  // inside collviz's own files (program_files.h)
  std::string home;          // $HOME
  std::string user_dirs;     // the text of user-dirs.dirs ("" when absent)
};

// The directory (by the rules above), and whether it may be created.
struct ScreenshotDir {
  std::string path;
  bool create = false;
};
ScreenshotDir chooseScreenshotDir(const ScreenshotPlaces& p);

// XDG_PICTURES_DIR from user-dirs.dirs' text ("$HOME/..." or an absolute
// path); "" when the text does not set it.
std::string xdgPicturesDir(const std::string& user_dirs, const std::string& home);

// The facts of this process (environment, current directory, program files).
ScreenshotPlaces currentScreenshotPlaces(const std::function<bool(const std::string&)>& is_program);

}  // namespace collviz
