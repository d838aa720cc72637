// WriteBuffer: extents of written bytes over the stored file (see write_buffer.h).
#include "fuse/write_buffer.h"

#include <algorithm>

namespace vexfs::fuse {

void WriteBuffer::Write(uint64_t offset, std::string_view data) {
  if (data.empty()) return;
  const uint64_t end = offset + data.size();
  mtime_ = NowNs();
  if (extents_.empty()) first_write_ = std::chrono::steady_clock::now();
  end_ = std::max(end_, end);
  // The common case, a sequential writer: append to the extent that ends here,
  // or, once that one is kExtentBytes long, start the next one beside it (growing
  // one string to the buffer limit would copy everything written so far at each
  // doubling).
  auto next = extents_.lower_bound(offset);
  if (next != extents_.begin()) {
    auto prev = std::prev(next);
    bool touches_next = next != extents_.end() && next->first <= end;
    if (prev->first + prev->second.size() == offset && !touches_next) {
      if (prev->second.size() < kExtentBytes) {
        prev->second.append(data);
      } else {
        extents_.emplace_hint(next, offset, std::string(data));
      }
      bytes_ += data.size();
      return;
    }
  }
  // General case: fold every extent that overlaps or touches [offset, end) into one.
  auto first = extents_.upper_bound(offset);
  if (first != extents_.begin()) {
    auto prev = std::prev(first);
    if (prev->first + prev->second.size() >= offset) first = prev;
  }
  uint64_t start = offset, stop = end;
  auto last = first;
  for (; last != extents_.end() && last->first <= end; ++last) {
    start = std::min(start, last->first);
    stop = std::max(stop, last->first + last->second.size());
  }
  std::string merged(stop - start, '\0');
  for (auto it = first; it != last; ++it) {
    merged.replace(it->first - start, it->second.size(), it->second);
    bytes_ -= it->second.size();
  }
  merged.replace(offset - start, data.size(), data);
  extents_.erase(first, last);
  bytes_ += merged.size();
  extents_.emplace(start, std::move(merged));
}

std::string WriteBuffer::Overlay(uint64_t offset, uint64_t length, std::string_view stored,
                                 uint64_t size) const {
  if (offset >= size) return {};
  const uint64_t n = std::min(length, size - offset);
  std::string out(stored.substr(0, n));
  out.resize(n, '\0');  // past the store's end: a hole up to the buffer's writes
  auto it = extents_.upper_bound(offset);
  if (it != extents_.begin()) --it;
  for (; it != extents_.end() && it->first < offset + n; ++it) {
    uint64_t from = std::max(offset, it->first);
    uint64_t to = std::min(offset + n, it->first + it->second.size());
    if (from >= to) continue;
    out.replace(from - offset, to - from, it->second, from - it->first, to - from);
  }
  return out;
}

Status WriteBuffer::ApplyTo(TreeEditor& editor, uint64_t ino) const {
  for (const auto& [offset, bytes] : extents_) {
    VEXFS_RETURN_IF_ERROR(editor.Write(ino, offset, bytes));
  }
  // The file was modified when it was written, not when the buffer drained.
  TreeEditor::AttrChange change;
  change.mtime = mtime_;
  return editor.SetAttr(ino, change).status();
}

}  // namespace vexfs::fuse
