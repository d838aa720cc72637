// Content-based text detection (see text_detect.h).
#include "index/text_detect.h"

#include <cstdint>

namespace vexfs::index {
namespace {

// Bytes in the UTF-8 sequence that `lead` starts, or 0 if `lead` cannot start one.
int SequenceLength(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

bool IsContinuation(uint8_t b) { return (b & 0xc0) == 0x80; }

// Rejects overlong forms, surrogates and code points past U+10FFFF.
bool ValidSecondByte(uint8_t lead, uint8_t second) {
  if (lead == 0xe0) return second >= 0xa0;
  if (lead == 0xed) return second <= 0x9f;
  if (lead == 0xf0) return second >= 0x90;
  if (lead == 0xf4) return second <= 0x8f;
  return true;
}

}  // namespace

bool LooksLikeText(std::string_view data) {
  if (data.empty()) return false;
  size_t controls = 0;
  size_t i = 0;
  while (i < data.size()) {
    uint8_t b = static_cast<uint8_t>(data[i]);
    int len = SequenceLength(b);
    if (len == 0) return false;
    // A prefix may cut its last character: check the bytes that are there, and
    // still count controls over the whole of the data.
    if (i + len > data.size()) len = static_cast<int>(data.size() - i);
    for (int k = 1; k < len; ++k) {
      uint8_t c = static_cast<uint8_t>(data[i + k]);
      if (!IsContinuation(c) || (k == 1 && !ValidSecondByte(b, c))) return false;
    }
    if (b == 0) return false;
    bool control = (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f') || b == 0x7f;
    if (control) ++controls;
    i += len;
  }
  return controls * 100 <= data.size();
}

bool IsValidUtf8(std::string_view data) {
  size_t i = 0;
  while (i < data.size()) {
    uint8_t b = static_cast<uint8_t>(data[i]);
    int len = SequenceLength(b);
    if (len == 0 || i + len > data.size()) return false;
    for (int k = 1; k < len; ++k) {
      uint8_t c = static_cast<uint8_t>(data[i + k]);
      if (!IsContinuation(c) || (k == 1 && !ValidSecondByte(b, c))) return false;
    }
    i += len;
  }
  return true;
}

size_t Utf8BoundaryAtOrBefore(std::string_view data, size_t pos) {
  if (pos >= data.size()) return data.size();
  while (pos > 0 && IsContinuation(static_cast<uint8_t>(data[pos]))) --pos;
  return pos;
}

size_t CompleteUtf8Prefix(std::string_view data) {
  // Only the last character can be cut, and it starts at most 3 bytes back.
  size_t start = data.size();
  while (start > 0 && data.size() - start < 4 &&
         IsContinuation(static_cast<uint8_t>(data[start - 1]))) {
    --start;
  }
  if (start == 0) return data.size();
  int len = SequenceLength(static_cast<uint8_t>(data[start - 1]));
  bool cut = len > 0 && start - 1 + static_cast<size_t>(len) > data.size();
  return cut ? start - 1 : data.size();
}

}  // namespace vexfs::index
