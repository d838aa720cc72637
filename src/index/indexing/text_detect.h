// Deciding whether file bytes are text worth indexing: by content, not by name.
#ifndef VEXFS_INDEX_INDEXING_TEXT_DETECT_H_
#define VEXFS_INDEX_INDEXING_TEXT_DETECT_H_

#include <string_view>

#include "common/utf8.h"  // the index uses its UTF-8 helpers too

namespace vexfs::index {

// True if `data` is valid UTF-8 (a sequence cut at the very end is allowed, since
// callers may pass a prefix), has no NUL bytes, and at most 1% control
// characters other than tab, newline, carriage return and form feed. Empty data
// is not text.
bool LooksLikeText(std::string_view data);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_INDEXING_TEXT_DETECT_H_
