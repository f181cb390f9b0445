// Ctrl-C (SIGINT) and SIGTERM end any command within a second, wherever it
// is. The handler only sets g_interrupted and wakes a watchdog thread. The
// command sees the flag and ends in order (prints what it has, the Engine's
// destructor ends the workers); if it has not exited after kOrderlyMs (it
// may be inside a long verification, formatting or write that does not look
// at the flag), the watchdog kills and reaps the workers, removes the
// temporaries of writes in progress (engine/group/exit_cleanup.h) and exits with
// 128 + the signal: 130 for SIGINT, 143 for SIGTERM.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <mutex>
#include <string>
#include <thread>

#include "app/cli/cli_common.h"
#include "app/lang/lang.h"
#include "engine/group/exit_cleanup.h"

namespace collviz {

std::atomic<bool> g_interrupted{false};
bool g_lang_both = false;

namespace {

constexpr int kOrderlyMs = 150;
std::atomic<int> g_signal{0};
int g_wake[2] = {-1, -1};

extern "C" void onSignal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  g_interrupted = true;
  const int saved = errno;
  const char c = 1;
  [[maybe_unused]] const ssize_t n = ::write(g_wake[1], &c, 1);
  errno = saved;
}

void watchdog() {
  char c;
  while (::read(g_wake[0], &c, 1) < 0 && errno == EINTR) {}
  std::this_thread::sleep_for(std::chrono::milliseconds(kOrderlyMs));
  cleanupNow();
  // A thread, not the handler: it may look the word up in the reader's language.
  const std::string msg = std::string("collviz: ") + tr("interrupted") + "\n";
  [[maybe_unused]] const ssize_t n = ::write(2, msg.data(), msg.size());
  ::_exit(interruptedExitCode());
}

}  // namespace

void installInterruptHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (::pipe2(g_wake, O_CLOEXEC) != 0) return;
    std::thread(watchdog).detach();
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  });
}

// Ctrl-C reaches the whole process group at once: a rank can die of it and
// its engine report that before this process's own handler has run (the
// signal may be taken by a thread that is not scheduled yet). A failure that
// is a rank killed by SIGINT or SIGTERM waits a moment for the handler, so
// it ends as the interrupt it is (130/143), not as a failure of that rank.
bool settleInterrupt(std::string_view failure) {
  if (g_interrupted) return true;
  const bool by_signal = failure.find("by signal 2 (") != std::string_view::npos ||
                         failure.find("by signal 15 (") != std::string_view::npos;
  if (!by_signal) return false;
  for (int i = 0; i < 100 && !g_interrupted; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return g_interrupted;
}

int interruptedExitCode() {
  const int sig = g_signal.load();
  return 128 + (sig ? sig : SIGINT);
}

}  // namespace collviz
