// Finds the files VexFS ships beside its code (see shipped_files.h).
#include "common/shipped_files.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

// Set by src/CMakeLists.txt: the relative path from the install's library
// directory to its data directory ("../share/vexfs" for lib/ and share/), the
// GloVe file's name, and where this build's setup put each file.
#ifndef VEXFS_DATADIR_FROM_LIBDIR
#error "VEXFS_DATADIR_FROM_LIBDIR must be defined by the build"
#endif

namespace vexfs {
namespace {

// Where one shipped file lies in each installed layout, relative to the
// directory of the loaded object.
struct ShippedPath {
  std::string_view in_prefix;  // the object is PREFIX/<libdir>/libvexfs.so
  std::string_view in_wheel;   // the object is site-packages/vexfs/_vexfs*.so
};

std::string FindShipped(const char* env_var, const ShippedPath& where,
                        const char* build_tree) {
  const char* env = std::getenv(env_var);
  if (env != nullptr && *env != '\0') return env;
  for (std::string_view relative : {where.in_prefix, where.in_wheel}) {
    std::filesystem::path candidate = std::filesystem::path(LoadedObjectDir()) / relative;
    std::error_code ec;
    if (std::filesystem::exists(candidate, ec)) return candidate.lexically_normal().string();
  }
  return build_tree;
}

std::string ResolveLoadedObjectDir() {
  Dl_info info{};
  std::string file;
  if (::dladdr(reinterpret_cast<const void*>(&LoadedObjectDir), &info) != 0 &&
      info.dli_fname != nullptr) {
    char resolved[PATH_MAX];
    if (::realpath(info.dli_fname, resolved) != nullptr) file = resolved;
  }
  // The main program is named as it was started, perhaps relative to a
  // directory left since; the kernel knows it exactly.
  if (file.empty()) {
    std::error_code ec;
    file = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  }
  return std::filesystem::path(file).parent_path().string();
}

}  // namespace

const std::string& LoadedObjectDir() {
  static const std::string dir = ResolveLoadedObjectDir();
  return dir;
}

std::string ShippedLlamaLibraryDir() {
  return FindShipped("VEXFS_LLAMA_LIB_DIR", {"vexfs/llama", "llama"}, VEXFS_BUILD_LLAMA_LIB_DIR);
}

std::string ShippedLlamaVocabularyDir() {
  return FindShipped("VEXFS_LLAMA_VOCAB_DIR",
                     {VEXFS_DATADIR_FROM_LIBDIR "/llama-vocab", "llama-vocab"},
                     VEXFS_BUILD_LLAMA_VOCAB_DIR);
}

std::string ShippedGlovePath() {
  return FindShipped("VEXFS_GLOVE",
                     {VEXFS_DATADIR_FROM_LIBDIR "/glove/" VEXFS_GLOVE_FILE_NAME,
                      "glove/" VEXFS_GLOVE_FILE_NAME},
                     VEXFS_BUILD_GLOVE_PATH);
}

}  // namespace vexfs
