// Base64 through OpenSSL's EVP_EncodeBlock and EVP_DecodeBlock.
#include "common/base64.h"

#include <openssl/evp.h>

#include <climits>

namespace vexfs {

std::string EncodeBase64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  // EVP_EncodeBlock takes an int length; encode in slices a multiple of 3 long.
  constexpr size_t kSlice = size_t{3} << 20;
  size_t written = 0;
  for (size_t from = 0; from < bytes.size(); from += kSlice) {
    size_t n = std::min(kSlice, bytes.size() - from);
    written += static_cast<size_t>(EVP_EncodeBlock(
        reinterpret_cast<unsigned char*>(out.data() + written),
        reinterpret_cast<const unsigned char*>(bytes.data() + from), static_cast<int>(n)));
  }
  out.resize(written);
  return out;
}

Result<std::string> DecodeBase64(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::InvalidArgument("base64 text must be a multiple of 4 characters long");
  }
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return Status::InvalidArgument("base64 text is too long");
  }
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return Status::InvalidArgument("the text is not base64");
  // EVP_DecodeBlock counts padding as zero bytes; take them off again.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace vexfs
