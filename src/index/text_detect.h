// Deciding whether file bytes are text worth indexing: by content, not by name.
#ifndef VEXFS_INDEX_TEXT_DETECT_H_
#define VEXFS_INDEX_TEXT_DETECT_H_

#include <string_view>

namespace vexfs::index {

// True if `data` is valid UTF-8 (a sequence cut at the very end is allowed, since
// callers may pass a prefix), has no NUL bytes, and at most 1% control
// characters other than tab, newline, carriage return and form feed. Empty data
// is not text.
bool LooksLikeText(std::string_view data);

// True if `data` is entirely valid UTF-8 (no cut character at the end either).
bool IsValidUtf8(std::string_view data);

// Length of the longest prefix of `data` that ends on a UTF-8 character boundary.
size_t Utf8BoundaryAtOrBefore(std::string_view data, size_t pos);

// Length of `data` without a last character that is cut short (a prefix of a
// longer file may end inside one); data.size() if the end is whole.
size_t CompleteUtf8Prefix(std::string_view data);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_TEXT_DETECT_H_
