// Process-wide llama.cpp setup (see llama_runtime.h): ggml's CPU backend loaded
// once, its log kept quiet, and where its libraries and vocabularies are found.
#include "kv/llama_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "common/shipped_files.h"
#include "ggml-backend.h"
#include "llama.h"

namespace vexfs::kv {
namespace {

// llama.cpp logs every tensor and graph it builds, and its errors are reported
// again by VexFS as one clear message; its own lines appear only when asked for
// (VEXFS_LLAMA_LOG=1), for debugging the runtime itself.
void FilterLog(ggml_log_level, const char* text, void*) {
  static const bool verbose = std::getenv("VEXFS_LLAMA_LOG") != nullptr;
  if (verbose) std::fputs(text, stderr);
}

}  // namespace

std::string VocabPath(std::string_view arch) {
  return ShippedLlamaVocabularyDir() + "/ggml-vocab-" +
         std::string(arch) + ".gguf";
}

std::string RuntimeName() {
  return std::string("llama.cpp ") + VEXFS_LLAMA_COMMIT + " (node-llama-cpp 3.22.1)";
}

Status EnsureLlamaRuntime() {
  static std::once_flag once;
  static Status result;
  std::call_once(once, [] {
    llama_log_set(FilterLog, nullptr);
    const std::string dir = ShippedLlamaLibraryDir();
    ggml_backend_load_all_from_path(dir.c_str());
    if (ggml_backend_dev_count() == 0) {
      result = Status::NotFound("no ggml backend could be loaded from " + dir +
                                " (run scripts/setup.sh, or set VEXFS_LLAMA_LIB_DIR)");
      return;
    }
    llama_backend_init();
  });
  return result;
}

}  // namespace vexfs::kv
