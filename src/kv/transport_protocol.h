// The wire format of USXF transfers (docs/kv-transport.md, "Protocol"): the
// sender's hello, the receiver's messages (where to resume, the verdict), and
// their bounds. Pure encoding and decoding, no sockets, so it can be tested and
// fuzzed on its own.
#ifndef VEXFS_KV_TRANSPORT_PROTOCOL_H_
#define VEXFS_KV_TRANSPORT_PROTOCOL_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs::kv::wire {

// "\x89VXKT\r\n\x1a": like USXF's magic, the high byte, CR LF and ^Z catch a
// text-mode channel, and a stray client (HTTP, TLS) fails on the first bytes.
inline constexpr char kMagic[8] = {'\x89', 'V', 'X', 'K', 'T', '\r', '\n', '\x1a'};
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kHelloFixedSize = 56;
inline constexpr size_t kMessageFixedSize = 32;
inline constexpr uint32_t kMaxNameLength = 255;
inline constexpr uint32_t kMaxTextLength = 4096;
// Nothing shorter can be a USXF file (its preamble alone is 80 bytes).
inline constexpr uint64_t kMinStreamBytes = 80;

using TransferId = std::array<uint8_t, 32>;

struct Hello {
  uint16_t version = kVersion;
  uint16_t flags = 0;
  uint64_t total_size = 0;
  TransferId id{};
  std::string name;
};

// The fixed part of a hello: everything but the name, whose length it bounds.
struct HelloFixed {
  Hello hello;  // name empty
  uint32_t name_length = 0;
};

std::string EncodeHello(const Hello& hello);
// Checks magic, version, flags, name length and the stream size against
// [kMinStreamBytes, max_total]; the message names the field at fault
// (kInvalidArgument; kNotSupported for a version; kFileTooLarge for a size).
Result<HelloFixed> DecodeHelloFixed(std::string_view bytes, uint64_t max_total);
// A name is shown in logs and handed to the receiver's hook: printable bytes only.
Status CheckName(std::string_view name);

enum class MessageKind : uint32_t {
  kResume = 1,   // value: the offset the sender continues from
  kVerdict = 2,  // code: the outcome; text: the verified path, or what was wrong
};
// Verdict flag: the receiver's own copy was at fault (its partial file did not
// verify); sending again from byte 0 may succeed.
inline constexpr uint64_t kVerdictRetry = 1;

struct Message {
  MessageKind kind = MessageKind::kVerdict;
  StatusCode code = StatusCode::kOk;
  uint64_t value = 0;
  std::string text;  // at most kMaxTextLength bytes; longer text is cut
};

std::string EncodeMessage(const Message& message);
// The fixed part; sets *text_length (bounded) for the caller to read next.
// kCorruption names the field at fault.
Result<Message> DecodeMessageFixed(std::string_view bytes, uint32_t* text_length);

}  // namespace vexfs::kv::wire

#endif  // VEXFS_KV_TRANSPORT_PROTOCOL_H_
