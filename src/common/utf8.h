// UTF-8 validity and character boundaries, for everything that must tell text
// from bytes or cut text without splitting a character (indexing, search
// queries, the MCP server's file reads).
#ifndef VEXFS_COMMON_UTF8_H_
#define VEXFS_COMMON_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vexfs {

// Bytes in the UTF-8 sequence that `lead` starts, or 0 if `lead` cannot start one.
int Utf8SequenceLength(uint8_t lead);
inline bool IsUtf8Continuation(uint8_t b) { return (b & 0xc0) == 0x80; }
// False for overlong forms, surrogates and code points past U+10FFFF.
bool IsValidUtf8SecondByte(uint8_t lead, uint8_t second);

// True if `data` is entirely valid UTF-8 (no cut character at the end either).
bool IsValidUtf8(std::string_view data);

// Length of the longest prefix of `data` that ends on a UTF-8 character boundary.
size_t Utf8BoundaryAtOrBefore(std::string_view data, size_t pos);

// Length of `data` without a last character that is cut short (a prefix of a
// longer file may end inside one); data.size() if the end is whole.
size_t CompleteUtf8Prefix(std::string_view data);

}  // namespace vexfs

#endif  // VEXFS_COMMON_UTF8_H_
