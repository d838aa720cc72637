// Base64 (RFC 4648, with padding) by OpenSSL: how binary file content travels in
// JSON (the MCP server's reads, writes and resources).
#ifndef VEXFS_COMMON_BASE64_H_
#define VEXFS_COMMON_BASE64_H_

#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs {

std::string EncodeBase64(std::string_view bytes);
// kInvalidArgument unless `text` is base64 with padding (no whitespace).
Result<std::string> DecodeBase64(std::string_view text);

}  // namespace vexfs

#endif  // VEXFS_COMMON_BASE64_H_
