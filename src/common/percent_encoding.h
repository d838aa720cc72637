// Percent-encoding (RFC 3986) of names in URIs and in the mount's search
// directory names: bytes outside the unreserved set become %XX.
#ifndef VEXFS_COMMON_PERCENT_ENCODING_H_
#define VEXFS_COMMON_PERCENT_ENCODING_H_

#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs {

// `bytes` with every byte but ALPHA, DIGIT, "-._~" and those in `keep` as %XX.
std::string PercentEncode(std::string_view bytes, std::string_view keep = "");
// "%XX" escapes decoded; kInvalidArgument on a truncated or non-hex escape.
Result<std::string> PercentDecode(std::string_view text);

}  // namespace vexfs

#endif  // VEXFS_COMMON_PERCENT_ENCODING_H_
