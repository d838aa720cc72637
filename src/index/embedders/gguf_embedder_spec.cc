// The "gguf:PATH#KEY=N,..." spec of the GGUF embedder: split off from the embedder
// so that parsing needs no llama.cpp and every limit is stated in one place.
#include <charconv>

#include "index/embedders/gguf_embedder.h"

namespace vexfs::index {
namespace {

struct OptionLimit {
  std::string_view key;
  uint32_t min;
  uint32_t max;
  uint32_t GgufEmbedderOptions::*field;
};

constexpr OptionLimit kOptions[] = {
    {"threads", 1, 256, &GgufEmbedderOptions::threads},
    {"batch", 16, 65536, &GgufEmbedderOptions::batch_tokens},
    {"ctx", 8, 65536, &GgufEmbedderOptions::max_tokens},
};

Status BadOption(std::string_view item, std::string_view why) {
  return Status::InvalidArgument("embedder 'gguf:PATH#KEY=N,...': option '" + std::string(item) +
                                 "' " + std::string(why) +
                                 " (keys: threads=1-256, batch=16-65536, ctx=8-65536)");
}

Status ApplyOption(std::string_view item, GgufEmbedderOptions* o) {
  const size_t eq = item.find('=');
  if (eq == std::string_view::npos) return BadOption(item, "is not KEY=N");
  const std::string_view key = item.substr(0, eq), digits = item.substr(eq + 1);
  for (const OptionLimit& limit : kOptions) {
    if (key != limit.key) continue;
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || v < limit.min ||
        v > limit.max) {
      return BadOption(item, "is out of range or not a number");
    }
    o->*limit.field = v;
    return Status::Ok();
  }
  return BadOption(item, "has an unknown key");
}

}  // namespace

Result<GgufEmbedderOptions> ParseGgufSpec(std::string_view spec) {
  GgufEmbedderOptions o;
  const size_t hash = spec.rfind('#');
  std::string_view options;
  if (hash != std::string_view::npos) {
    options = spec.substr(hash + 1);
    spec = spec.substr(0, hash);
  }
  if (spec.empty()) return Status::InvalidArgument("embedder 'gguf:PATH' needs a path");
  o.path = std::string(spec);
  while (!options.empty()) {
    const size_t comma = options.find(',');
    VEXFS_RETURN_IF_ERROR(ApplyOption(options.substr(0, comma), &o));
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
    if (options.empty()) return BadOption("", "is empty (trailing comma)");
  }
  return o;
}

const char* GgufPoolingName(GgufPooling p) {
  switch (p) {
    case GgufPooling::kMean: return "mean";
    case GgufPooling::kCls: return "cls";
    case GgufPooling::kLast: return "last";
  }
  return "?";
}

}  // namespace vexfs::index
