// Splitting text into passages: the unit that is embedded and searched. A passage
// is a byte range of the file, cut at the most natural boundary available
// (heading, blank line, line end, sentence end, space), a few hundred tokens long.
#ifndef VEXFS_INDEX_INDEXING_PASSAGES_H_
#define VEXFS_INDEX_INDEXING_PASSAGES_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace vexfs::index {

struct PassageOptions {
  // About 4 bytes per token in English text: ~300 tokens by default.
  size_t target_bytes = 1200;
  // Never longer than this (a cut falls back to a space, then a character).
  size_t max_bytes = 2000;
};

struct Passage {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// Passages of `text` in order. Together they cover every byte except stretches
// that are only whitespace. Cuts never split a UTF-8 character.
std::vector<Passage> SplitPassages(std::string_view text, const PassageOptions& options = {});

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_INDEXING_PASSAGES_H_
