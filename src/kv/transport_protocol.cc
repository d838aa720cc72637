// Encoding and decoding of the transfer protocol's hello and messages. Every
// length read from the network is bounded here, before anyone allocates for it.
#include "kv/transport_protocol.h"

#include <cstring>

#include "usxf/le.h"

namespace vexfs::kv::wire {
namespace {

using usxf::AppendLE;
using usxf::LoadLE;

bool HasMagic(std::string_view bytes) {
  return bytes.size() >= sizeof(kMagic) && std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0;
}

}  // namespace

std::string EncodeHello(const Hello& hello) {
  std::string out(kMagic, sizeof(kMagic));
  AppendLE<uint16_t>(&out, hello.version);
  AppendLE<uint16_t>(&out, hello.flags);
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(hello.name.size()));
  AppendLE<uint64_t>(&out, hello.total_size);
  out.append(reinterpret_cast<const char*>(hello.id.data()), hello.id.size());
  return out + hello.name;
}

Result<HelloFixed> DecodeHelloFixed(std::string_view bytes, uint64_t max_total) {
  if (bytes.size() != kHelloFixedSize) return Status::InvalidArgument("hello: wrong size");
  if (!HasMagic(bytes)) return Status::InvalidArgument("hello: not a vexfs transfer (bad magic)");
  HelloFixed f;
  f.hello.version = LoadLE<uint16_t>(bytes.data() + 8);
  f.hello.flags = LoadLE<uint16_t>(bytes.data() + 10);
  f.name_length = LoadLE<uint32_t>(bytes.data() + 12);
  f.hello.total_size = LoadLE<uint64_t>(bytes.data() + 16);
  std::memcpy(f.hello.id.data(), bytes.data() + 24, f.hello.id.size());
  if (f.hello.version != kVersion) {
    return Status::NotSupported("hello: protocol version " + std::to_string(f.hello.version) +
                                " (this receiver speaks 1)");
  }
  if (f.hello.flags != 0) return Status::NotSupported("hello: unknown flags " + std::to_string(f.hello.flags));
  if (f.name_length > kMaxNameLength) {
    return Status::InvalidArgument("hello: name length " + std::to_string(f.name_length) +
                                   " exceeds " + std::to_string(kMaxNameLength));
  }
  if (f.hello.total_size < kMinStreamBytes) {
    return Status::InvalidArgument("hello: a stream of " + std::to_string(f.hello.total_size) +
                                   " bytes cannot be a USXF file");
  }
  if (f.hello.total_size > max_total) {
    return Status::FileTooLarge("hello: a stream of " + std::to_string(f.hello.total_size) +
                                " bytes exceeds this receiver's limit of " + std::to_string(max_total));
  }
  return f;
}

Status CheckName(std::string_view name) {
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return Status::InvalidArgument("hello: the name holds a control character");
  }
  return Status::Ok();
}

std::string EncodeMessage(const Message& message) {
  const std::string_view text = std::string_view(message.text).substr(0, kMaxTextLength);
  std::string out(kMagic, sizeof(kMagic));
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(message.kind));
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(message.code));
  AppendLE<uint64_t>(&out, message.value);
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(text.size()));
  AppendLE<uint32_t>(&out, 0);  // reserved
  out.append(text);
  return out;
}

Result<Message> DecodeMessageFixed(std::string_view bytes, uint32_t* text_length) {
  if (bytes.size() != kMessageFixedSize || !HasMagic(bytes)) {
    return Status::Corruption("the receiver's answer is not a vexfs transfer message (bad magic)");
  }
  Message m;
  const uint32_t kind = LoadLE<uint32_t>(bytes.data() + 8);
  const uint32_t code = LoadLE<uint32_t>(bytes.data() + 12);
  m.value = LoadLE<uint64_t>(bytes.data() + 16);
  *text_length = LoadLE<uint32_t>(bytes.data() + 24);
  if (kind != static_cast<uint32_t>(MessageKind::kResume) && kind != static_cast<uint32_t>(MessageKind::kVerdict)) {
    return Status::Corruption("receiver message: unknown kind " + std::to_string(kind));
  }
  if (code > static_cast<uint32_t>(StatusCode::kPermissionDenied)) {
    return Status::Corruption("receiver message: unknown status code " + std::to_string(code));
  }
  if (*text_length > kMaxTextLength) {
    return Status::Corruption("receiver message: text length " + std::to_string(*text_length) +
                              " exceeds " + std::to_string(kMaxTextLength));
  }
  if (LoadLE<uint32_t>(bytes.data() + 28) != 0) return Status::Corruption("receiver message: reserved field is not 0");
  m.kind = static_cast<MessageKind>(kind);
  m.code = static_cast<StatusCode>(code);
  return m;
}

}  // namespace vexfs::kv::wire
