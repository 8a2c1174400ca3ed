/*
 * cublaslt_lib.cpp - the run-time load of cuBLASLt (cublaslt_lib.h): the
 * search order, dlopen of each candidate, every entry point resolved by
 * name, and one line saying why when nothing loads.
 */
#include "cublaslt_lib.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

namespace {

const char *const kSonames[] = {"libcublasLt.so.13", "libcublasLt.so.12"};

std::vector<std::string> folders()
{
  std::vector<std::string> dirs;
  const char *ld = getenv("LD_LIBRARY_PATH");
  for (std::string rest = ld != nullptr ? ld : ""; !rest.empty();) {
    const size_t colon = rest.find(':');
    const std::string dir = rest.substr(0, colon);
    if (!dir.empty())
      dirs.push_back(dir);
    rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
  }
  dirs.push_back("/usr/local/cuda/lib64");
  glob_t g;
  if (glob("/usr/local/cuda/targets/*/lib", GLOB_ONLYDIR, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i)
      dirs.push_back(g.gl_pathv[i]);
  globfree(&g);
  return dirs;
}

} // namespace

std::vector<std::string> pcu_cublaslt::candidates(const char *env)
{
  if (env != nullptr && *env != '\0')
    return {env};
  std::vector<std::string> out;
  const std::vector<std::string> dirs = folders();
  for (const char *so : kSonames) {
    for (const std::string &d : dirs)
      out.push_back(d + "/" + so);
    out.push_back(so);
  }
  return out;
}

bool pcu_cublaslt::open(const char *env, pcu_cublaslt **out, std::string *why)
{
  *out = nullptr;
  std::string first_error;
  for (const std::string &path : candidates(env)) {
    /* NODELETE: the library keeps its driver state until the process ends */
    void *dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (dl == nullptr) {
      const char *e = dlerror();
      /* a file that exists but does not load says more than a missing one */
      if (first_error.empty() || (e != nullptr && strstr(e, "No such file") == nullptr &&
                                  first_error.find("No such file") != std::string::npos))
        first_error = e != nullptr ? e : path + ": cannot be opened";
      continue;
    }
    pcu_cublaslt *lib = new pcu_cublaslt();
    lib->dl_ = dl;
    const char *missing = nullptr;
#define PCU_LT_RESOLVE(name, type)                                                                 \
  if (missing == nullptr &&                                                                        \
      (lib->api_.name = reinterpret_cast<type>(dlsym(dl, #name))) == nullptr)                      \
    missing = #name;
    PCU_CUBLASLT_API(PCU_LT_RESOLVE)
#undef PCU_LT_RESOLVE
    if (missing != nullptr) {
      first_error = path + " lacks " + missing;
      delete lib;
      continue;
    }
    Dl_info info;
    lib->path_ = dladdr(reinterpret_cast<void *>(lib->api_.cublasLtCreate), &info) != 0 &&
                         info.dli_fname != nullptr
                     ? info.dli_fname
                     : path;
    *out = lib;
    return true;
  }
  if (env != nullptr && *env != '\0')
    *why = "PASCAL_CUBLASLT=" + std::string(env) + " does not load: " + first_error;
  else
    *why = "libcublasLt.so.13 or .so.12 not found in LD_LIBRARY_PATH, /usr/local/cuda/lib64, "
           "/usr/local/cuda/targets/*/lib or the ldconfig paths (PASCAL_CUBLASLT=path names "
           "one): " +
           first_error;
  return false;
}

pcu_cublaslt::~pcu_cublaslt()
{
  if (dl_ != nullptr)
    dlclose(dl_);
}

const char *pcu_cublaslt::status_name(pcu_lt::status_t s) const
{
  const char *name = api_.cublasLtGetStatusName(s);
  return name != nullptr ? name : "unknown cuBLAS status";
}
