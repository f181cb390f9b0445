// engine/group/program_files.h in the build tree (this test lives in build/bin,
// like collviz), and app/files/screenshot_dir.h's rules.
#include <gtest/gtest.h>

#include <filesystem>

#include "app/files/screenshot_dir.h"
#include "engine/group/program_files.h"

namespace collviz {
namespace {

namespace fs = std::filesystem;

TEST(ProgramFiles, BuildTreeMirrorsTheInstalledLayout) {
  EXPECT_EQ(fs::path(executablePath()).filename(), "program_files_test");
  EXPECT_EQ(fs::path(executableDir()).filename(), "bin");
  EXPECT_TRUE(fs::exists(workerPath())) << workerPath();
  EXPECT_EQ(fs::path(workerPath()).parent_path(), fs::path(executableDir()));
  EXPECT_TRUE(fs::exists(fs::path(shippedLectureDir()) / "article_tour.toml")) << shippedLectureDir();
  // Not the source tree: the copy in build/share/collviz.
  EXPECT_EQ(fs::path(shippedLectureDir()), fs::path(programPrefix()) / "share/collviz/lectures");
}

TEST(ProgramFiles, InsideProgramFiles) {
  EXPECT_TRUE(insideProgramFiles(executableDir()));
  EXPECT_TRUE(insideProgramFiles(executableDir() + "/x.png"));
  EXPECT_TRUE(insideProgramFiles(shippedLectureDir()));
  EXPECT_FALSE(insideProgramFiles(programPrefix()));
  EXPECT_FALSE(insideProgramFiles("/tmp"));
  EXPECT_FALSE(insideProgramFiles(executableDir() + "x"));  // a sibling named alike
}

ScreenshotPlaces places() {
  ScreenshotPlaces p;
  p.cwd = "/work/talk";
  p.cwd_writable = true;
  p.home = "/home/ann";
  return p;
}

TEST(ScreenshotDir, EnvironmentWins) {
  ScreenshotPlaces p = places();
  p.env_dir = "/tmp/shots";
  EXPECT_EQ(chooseScreenshotDir(p).path, "/tmp/shots");
  EXPECT_FALSE(chooseScreenshotDir(p).create);
}

TEST(ScreenshotDir, WritableWorkingDirectoryNext) {
  EXPECT_EQ(chooseScreenshotDir(places()).path, "/work/talk");
}

TEST(ScreenshotDir, PicturesFromTheMenuOrAReadOnlyDirectory) {
  ScreenshotPlaces p = places();
  p.cwd = "/home/ann";  // the desktop menu starts programs in $HOME
  EXPECT_EQ(chooseScreenshotDir(p).path, "/home/ann/Pictures");
  EXPECT_TRUE(chooseScreenshotDir(p).create);
  p = places();
  p.cwd_writable = false;
  EXPECT_EQ(chooseScreenshotDir(p).path, "/home/ann/Pictures");
  p = places();
  p.cwd_is_program = true;  // never next to the executable
  EXPECT_EQ(chooseScreenshotDir(p).path, "/home/ann/Pictures");
  p.user_dirs = "# comment\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_PICTURES_DIR=\"$HOME/Bilder\"\n";
  EXPECT_EQ(chooseScreenshotDir(p).path, "/home/ann/Bilder");
  p.user_dirs = "XDG_PICTURES_DIR=\"/data/pics\"\n";
  EXPECT_EQ(chooseScreenshotDir(p).path, "/data/pics");
  p.user_dirs = "XDG_PICTURES_DIR=\"$HOME/\"\n";  // "no pictures folder"
  EXPECT_EQ(chooseScreenshotDir(p).path, "/home/ann/Pictures");
  p.user_dirs = "XDG_PICTURES_DIR=\"relative\"\n";  // not allowed by the spec: ignored
  EXPECT_EQ(chooseScreenshotDir(p).path, "/home/ann/Pictures");
}

TEST(ScreenshotDir, NoHome) {
  ScreenshotPlaces p = places();
  p.cwd_writable = false;
  p.home.clear();
  EXPECT_EQ(chooseScreenshotDir(p).path, "/work/talk");
}

}  // namespace
}  // namespace collviz
