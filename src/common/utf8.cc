// UTF-8 validity and boundaries (see utf8.h).
#include "common/utf8.h"

namespace vexfs {

int Utf8SequenceLength(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

bool IsValidUtf8SecondByte(uint8_t lead, uint8_t second) {
  if (lead == 0xe0) return second >= 0xa0;
  if (lead == 0xed) return second <= 0x9f;
  if (lead == 0xf0) return second >= 0x90;
  if (lead == 0xf4) return second <= 0x8f;
  return true;
}

bool IsValidUtf8(std::string_view data) {
  size_t i = 0;
  while (i < data.size()) {
    uint8_t b = static_cast<uint8_t>(data[i]);
    int len = Utf8SequenceLength(b);
    if (len == 0 || i + len > data.size()) return false;
    for (int k = 1; k < len; ++k) {
      uint8_t c = static_cast<uint8_t>(data[i + k]);
      if (!IsUtf8Continuation(c) || (k == 1 && !IsValidUtf8SecondByte(b, c))) return false;
    }
    i += len;
  }
  return true;
}

size_t Utf8BoundaryAtOrBefore(std::string_view data, size_t pos) {
  if (pos >= data.size()) return data.size();
  while (pos > 0 && IsUtf8Continuation(static_cast<uint8_t>(data[pos]))) --pos;
  return pos;
}

size_t CompleteUtf8Prefix(std::string_view data) {
  // Only the last character can be cut, and it starts at most 3 bytes back.
  size_t start = data.size();
  while (start > 0 && data.size() - start < 4 &&
         IsUtf8Continuation(static_cast<uint8_t>(data[start - 1]))) {
    --start;
  }
  if (start == 0) return data.size();
  int len = Utf8SequenceLength(static_cast<uint8_t>(data[start - 1]));
  bool cut = len > 0 && start - 1 + static_cast<size_t>(len) > data.size();
  return cut ? start - 1 : data.size();
}

}  // namespace vexfs
