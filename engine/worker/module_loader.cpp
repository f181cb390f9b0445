#include "engine/worker/module_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

namespace collviz {
namespace {

std::string exeDirectory() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  const std::string exe(buf, std::size_t(n));
  const auto slash = exe.rfind('/');
  return slash == std::string::npos ? "." : exe.substr(0, slash);
}

}  // namespace

std::string modulePath(const char* env, const char* file) {
  const char* set = std::getenv(env);
  if (set && *set) return set;
  return exeDirectory() + "/" + file;
}

Result<void*> openModule(const std::string& path, const std::string& what,
                         const char* abi_symbol, int abi) {
  const std::string head = "cannot load the " + what + " module " + path + ": ";
  ::dlerror();
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    std::string why = e ? e : "dlopen failed";
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);  // the path is said once
    return Error{head + why};
  }
  auto version = reinterpret_cast<int (*)()>(::dlsym(h, abi_symbol));
  if (!version) return Error{head + "it lacks collviz's entry points (not a collviz " + what + " module)"};
  if (const int v = version(); v != abi)
    return Error{head + "it was built for interface " + std::to_string(v) +
                 " and this collviz-rank needs " + std::to_string(abi) +
                 " (use the module of the same build)"};
  return h;
}

void* moduleSymbol(void* handle, const char* symbol) { return ::dlsym(handle, symbol); }

}  // namespace collviz
