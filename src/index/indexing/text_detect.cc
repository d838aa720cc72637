// Content-based text detection (see text_detect.h).
#include "index/indexing/text_detect.h"

#include <cstdint>

#include "common/utf8.h"

namespace vexfs::index {

bool LooksLikeText(std::string_view data) {
  if (data.empty()) return false;
  size_t controls = 0;
  size_t i = 0;
  while (i < data.size()) {
    uint8_t b = static_cast<uint8_t>(data[i]);
    int len = Utf8SequenceLength(b);
    if (len == 0) return false;
    // A prefix may cut its last character: check the bytes that are there, and
    // still count controls over the whole of the data.
    if (i + len > data.size()) len = static_cast<int>(data.size() - i);
    for (int k = 1; k < len; ++k) {
      uint8_t c = static_cast<uint8_t>(data[i + k]);
      if (!IsUtf8Continuation(c) || (k == 1 && !IsValidUtf8SecondByte(b, c))) return false;
    }
    if (b == 0) return false;
    bool control = (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f') || b == 0x7f;
    if (control) ++controls;
    i += len;
  }
  return controls * 100 <= data.size();
}

}  // namespace vexfs::index
