// Turning an embedder spec ("hash", "hash:DIM", "glove", "gguf:PATH", "exec:COMMAND")
// into an Embedder.
#ifndef VEXFS_INDEX_EMBEDDERS_FACTORY_H_
#define VEXFS_INDEX_EMBEDDERS_FACTORY_H_

#include <memory>
#include <string_view>

#include "index/embedders/embedder.h"

namespace vexfs::index {

// New stores embed with GloVe word vectors (docs/glove.md). Stores indexed before
// that default existed keep the embedder they were indexed with.
inline constexpr std::string_view kDefaultEmbedderSpec = "glove";
inline constexpr std::string_view kLegacyDefaultEmbedderSpec = "hash";

// kInvalidArgument naming the problem for an unknown or malformed spec. For
// "exec:COMMAND" the command is started and its handshake checked here, so that
// info() is known; a command that fails to start or handshake gives that error
// (kIOError, see exec_embedder.h). "gguf:PATH" or "gguf:PATH#threads=N,batch=N,ctx=N"
// loads a llama.cpp sentence-embedding model (docs/gguf.md); its errors are
// OpenGgufEmbedder's (gguf_embedder.h).
Result<std::unique_ptr<Embedder>> MakeEmbedder(std::string_view spec);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_FACTORY_H_
