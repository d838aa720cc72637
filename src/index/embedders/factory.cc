// Embedder specs.
#include "index/embedders/factory.h"

#include <charconv>

#include "common/shipped_files.h"
#include "index/embedders/exec_embedder.h"
#include "index/embedders/gguf_embedder.h"
#include "index/embedders/glove_embedder.h"
#include "index/embedders/hash_embedder.h"

namespace vexfs::index {

Result<std::unique_ptr<Embedder>> MakeEmbedder(std::string_view spec) {
  if (spec == "hash") return MakeHashEmbedder();
  if (spec.starts_with("hash:")) {
    std::string_view digits = spec.substr(5);
    uint32_t dim = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), dim);
    if (ec != std::errc() || end != digits.data() + digits.size() || dim < 16 || dim > 4096) {
      return Status::InvalidArgument("embedder 'hash:DIM' needs a dimension of 16-4096, not '" +
                                     std::string(digits) + "'");
    }
    return MakeHashEmbedder(dim);
  }
  if (spec == "glove") return MakeGloveEmbedder(ShippedGlovePath());
  if (spec.starts_with("glove:")) {
    std::string_view path = spec.substr(6);
    if (path.empty()) return Status::InvalidArgument("embedder 'glove:PATH' needs a path");
    return MakeGloveEmbedder(std::string(path));
  }
  if (spec.starts_with(kGgufSpecPrefix)) {
    VEXFS_ASSIGN_OR_RETURN(GgufEmbedderOptions options,
                           ParseGgufSpec(spec.substr(kGgufSpecPrefix.size())));
    VEXFS_ASSIGN_OR_RETURN(std::unique_ptr<GgufEmbedder> embedder, OpenGgufEmbedder(options));
    return std::unique_ptr<Embedder>(std::move(embedder));
  }
  if (spec.starts_with(kExecSpecPrefix)) {
    std::string_view command = spec.substr(kExecSpecPrefix.size());
    if (command.find_first_not_of(" \t") == std::string_view::npos) {
      return Status::InvalidArgument("embedder 'exec:COMMAND' needs a command after 'exec:'");
    }
    return MakeExecEmbedder(std::string(command));
  }
  return Status::InvalidArgument(
      "unknown embedder '" + std::string(spec) +
      "' (known: hash, hash:DIM, glove, glove:PATH, gguf:PATH, exec:COMMAND)");
}

}  // namespace vexfs::index
