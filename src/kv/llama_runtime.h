// Process-wide llama.cpp setup: ggml's CPU backend is a module that must be loaded
// from the library directory before any model is created, and llama.cpp's chatty
// log goes to stderr only when asked for.
//
// Thread-safety: EnsureLlamaRuntime may be called from any thread; it runs once.
#ifndef VEXFS_KV_LLAMA_RUNTIME_H_
#define VEXFS_KV_LLAMA_RUNTIME_H_

#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs::kv {

// Loads every ggml backend found in ShippedLlamaLibraryDir() (common/shipped_files.h)
// and initialises llama.cpp.
// kNotFound when no backend (not even the CPU one) could be loaded.
Status EnsureLlamaRuntime();

// The tokenizer-only GGUF shipped with llama.cpp for `arch` ("qwen2"):
// <dir>/ggml-vocab-<arch>.gguf, dir found as the libraries are ($VEXFS_LLAMA_VOCAB_DIR).
std::string VocabPath(std::string_view arch);

// "llama.cpp <commit> (node-llama-cpp 3.22.1)": recorded in captured state.
std::string RuntimeName();

}  // namespace vexfs::kv

#endif  // VEXFS_KV_LLAMA_RUNTIME_H_
