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
  ::dlerror();
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    std::string why = e ? e : "";
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);  // the path is said once
    return Error{say("cannot load the {0} module {1}: {2}", what, path,
                     why.empty() ? say("dlopen failed") : lit(why))};
  }
  auto version = reinterpret_cast<int (*)()>(::dlsym(h, abi_symbol));
  if (!version) return lacksEntryPoints(what, path);
  if (const int v = version(); v != abi)
    return Error{say("cannot load the {0} module {1}: it was built for interface {2} and this "
                     "collviz-rank needs {3} (use the module of the same build)",
                     what, path, v, abi)};
  return h;
}

Error lacksEntryPoints(const std::string& what, const std::string& path) {
  return Error{say("cannot load the {0} module {1}: it lacks collviz's entry points (not a collviz {0} module)",
                   what, path)};
}

void* moduleSymbol(void* handle, const char* symbol) { return ::dlsym(handle, symbol); }

}  // namespace collviz
