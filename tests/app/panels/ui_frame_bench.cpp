// Frame-time figures for the window (not a timed test):
//  1. frame time with 8 ranks x 8 blocks on screen (all-to-all, N = 8) against
//     an empty ImGui frame of the same size, in the same run;
//  2. frames from a key press that changes the op to the new Output drawn
//     (N = 4, E = 16, f32, Gloo): with the background prefetch off, for an
//     op never run before; then with it on (a second AppUi, as the window
//     runs), once it has run the other ops while idle;
//  3. a 20-step lecture script: time from opening it to its first step's
//     real result (a new group of 6 workers), then frames from → to the
//     next step's real result once the steps ahead have run.
// Run under a display, e.g.:
//   xvfb-run -a -s "-screen 0 1920x1080x24" build/bin/ui_frame_bench
#include <epoxy/gl.h>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

#include "app/panels/app_ui.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Window {
  GLFWwindow* w = nullptr;
  double cpu_ms = 0;  // time spent building the UI (CPU), all frames
  void frame(const std::function<void()>& draw) {
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    auto c0 = Clock::now();
    draw();
    ImGui::Render();
    cpu_ms += std::chrono::duration<double, std::milli>(Clock::now() - c0).count();
    int fw, fh;
    glfwGetFramebufferSize(w, &fw, &fh);
    glViewport(0, 0, fw, fh);
    glClearColor(0.98f, 0.98f, 0.97f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(w);
    glFinish();  // count the GPU's (llvmpipe's) work in the frame
  }
};

// Median and mean frame time in ms over `n` frames.
void timeFrames(Window& win, int n, const std::function<void()>& draw, double* median, double* mean) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    win.frame(draw);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  double sum = 0;
  for (double v : ms) sum += v;
  *mean = sum / n;
  std::sort(ms.begin(), ms.end());
  *median = ms[n / 2];
}

void emptyFrame() {
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
  ImGui::Begin("empty", nullptr, ImGuiWindowFlags_NoDecoration);
  ImGui::End();
}

// Frames until the app shows a result for its selection, at most `limit`.
int framesUntilShown(Window& win, collviz::ui::AppUi& ui, int limit) {
  for (int f = 1; f <= limit; ++f) {
    win.frame([&] { ui.Draw(); });
    if (ui.showingResult()) return f;
  }
  return -1;
}

void settle(Window& win, collviz::ui::AppUi& ui) {
  // Let the engine finish what it is running (and the prefetch).
  for (int i = 0; i < 3000; ++i) {
    win.frame([&] { ui.Draw(); });
    if (!ui.animating() && ui.showingResult()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

int main() {
  if (!glfwInit()) {
    std::fprintf(stderr, "ui_frame_bench: no display; run under xvfb-run -a -s \"-screen 0 1920x1080x24\"\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  Window win;
  win.w = glfwCreateWindow(1920, 1080, "collviz bench", nullptr, nullptr);
  if (!win.w) return 1;
  glfwMakeContextCurrent(win.w);
  glfwSwapInterval(0);  // measure work, not vsync

  collviz::Engine engine;
  collviz::ui::AppOptions options;
  options.prefetch = false;
  options.diagram_cache = !std::getenv("COLLVIZ_NO_DIAGRAM_CACHE");  // before/after figures
  collviz::ui::AppUi ui(engine, options);
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ui.loadFonts();
  ImGui_ImplGlfw_InitForOpenGL(win.w, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  if (collviz::Status s = ui.initGl(); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::printf("GL: %s | %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION));

  // 1. Frame time.
  const int frames = 300;
  auto& st = ui.state();
  st.entry = 7;  // all-to-all: 8 rows x 8 blocks in both columns, 64 curves
  st.spec.ranks = 8;
  st.spec.elems = 16;
  st.backend = collviz::BackendKind::gloo;
  settle(win, ui);
  double empty_med, empty_mean, full_med, full_mean;
  timeFrames(win, 30, emptyFrame, &empty_med, &empty_mean);  // warm up
  win.cpu_ms = 0;
  timeFrames(win, frames, emptyFrame, &empty_med, &empty_mean);
  double empty_cpu = win.cpu_ms / frames;
  win.cpu_ms = 0;
  int rebuilds0 = ui.diagram().rebuilds();
  timeFrames(win, frames, [&] { ui.Draw(); }, &full_med, &full_mean);
  int rebuilds = ui.diagram().rebuilds() - rebuilds0;
  double full_cpu = win.cpu_ms / frames;
  std::printf("frame 1920x1080, empty ImGui frame:      median %.2f ms, mean %.2f ms\n", empty_med, empty_mean);
  std::printf("frame 1920x1080, 8 ranks x 8 blocks:     median %.2f ms, mean %.2f ms (%d scene rebuilds in %d frames)\n",
              full_med, full_mean, rebuilds, frames);
  std::printf("ratio (median): %.2fx; of which building the UI on the CPU: empty %.2f ms, diagram %.2f ms\n",
              full_med / empty_med, empty_cpu, full_cpu);

  // 2. Key press -> new Output drawn, N = 4, E = 16, f32, Gloo.
  st.spec.ranks = 4;
  st.spec.elems = 16;
  st.spec.dtype = collviz::DType::f32;
  st.entry = 0;
  settle(win, ui);
  std::vector<int> cold;
  std::vector<double> cold_ms;
  for (int i = 0; i < 8; ++i) {
    auto t0 = Clock::now();
    ui.queueKey(collviz::ui::LectureKey::next_op);
    cold.push_back(framesUntilShown(win, ui, 100000));
    cold_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    settle(win, ui);
  }
  std::printf("key -> new output, prefetch off, op never run before: frames");
  for (size_t i = 0; i < cold.size(); ++i) std::printf(" %d (%.1f ms)", cold[i], cold_ms[i]);
  std::printf("\n");
  // Prefetch on, in an app of its own (its own cache), as the window runs:
  // settle() waits until the idle prefetch has run the other ops.
  options.prefetch = true;
  collviz::ui::AppUi pre(engine, options);
  pre.loadFonts();  // rebuilds the shared atlas: `ui` is not drawn again
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  if (collviz::Status s = pre.initGl(); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  pre.state() = st;
  pre.state().spec.elems = 17;  // settings no run has used yet
  settle(win, pre);
  std::vector<int> warm;
  std::vector<double> warm_ms;
  for (int i = 0; i < 8; ++i) {
    auto t0 = Clock::now();
    pre.queueKey(collviz::ui::LectureKey::next_op);
    warm.push_back(framesUntilShown(win, pre, 100000));
    warm_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    settle(win, pre);
  }
  std::printf("key -> new output, prefetch on (ops run while idle):   frames");
  for (size_t i = 0; i < warm.size(); ++i) std::printf(" %d (%.1f ms)", warm[i], warm_ms[i]);
  std::printf("\n");
  pre.destroyGl();

  // 2b. The algorithm view: ring all-reduce at N = 16 (30 rounds).
  st.entry = 6;
  st.spec.ranks = 16;
  st.spec.elems = 4;
  st.view.algo = "ring";
  settle(win, ui);
  double still_med, still_mean, play_med, play_mean;
  timeFrames(win, 120, [&] { ui.Draw(); }, &still_med, &still_mean);
  std::vector<int> step_frames;
  for (int i = 0; i < 8; ++i) {  // every round's snapshot is already there
    const int before = ui.diagram().rebuilds();
    ui.queueKey(collviz::ui::LectureKey::step_forward);
    int f = 0;
    while (ui.diagram().rebuilds() == before && f < 100) win.frame([&] { ui.Draw(); }), ++f;
    step_frames.push_back(f);
  }
  st.play_speed = 8;
  st.view.round = 0;
  st.playing = true;
  timeFrames(win, 120, [&] { ui.Draw(); }, &play_med, &play_mean);
  std::printf("algorithm view, ring all_reduce N=16: static grid median %.2f ms; playing 8 rounds/s median "
              "%.2f ms (%.2fx); ↓ to a round already run: redrawn after frames",
              still_med, play_med, play_med / still_med);
  for (int f : step_frames) std::printf(" %d", f);
  std::printf("\n");
  st.playing = false;
  st.view.algo = "native";
  st.spec.ranks = 4;

  // 3. A 20-step lecture.
  const std::string script = "/tmp/collviz_bench_lecture.toml";
  {
    std::ofstream f(script);
    f << "title = \"bench\"\n";
    const char* ops[] = {"broadcast", "scatter", "gather", "reduce", "all_gather",
                         "reduce_scatter", "all_reduce", "all_to_all", "all_reduce_decomposed"};
    for (int i = 0; i < 20; ++i)
      f << "[[step]]\nop = \"" << ops[i % 9] << "\"\nranks = " << (i < 10 ? 6 : 4)
        << "\nbackend = \"gloo\"\ncaption = \"step " << i + 1 << "\"\n";
  }
  auto t0 = Clock::now();
  if (collviz::Status s = ui.openLecture(script); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  const int first_frames = framesUntilShown(win, ui, 100000);
  std::printf("lecture, 20 steps: first step's real result after %.1f ms (%d frames; opening the script, "
              "a new group of 6 Gloo workers, the run)\n",
              std::chrono::duration<double, std::milli>(Clock::now() - t0).count(), first_frames);
  settle(win, ui);  // the steps ahead run in the background
  std::vector<int> next;
  for (int i = 1; i < 20; ++i) {
    ui.queueKey(collviz::ui::LectureKey::next_op);
    next.push_back(framesUntilShown(win, ui, 1000));
  }
  std::printf("lecture, → to the next step (run ahead): frames until its real result:");
  for (int f : next) std::printf(" %d", f);
  std::printf("\n");

  ui.destroyGl();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(win.w);
  glfwTerminate();
  return 0;
}
