// CheckTransportInput and its seeds (see kv_transport_fuzz_body.h).
#include "fuzz/kv_transport_fuzz_body.h"

#include "kv/transport_protocol.h"

namespace vexfs::kv::fuzz {
namespace {

// A receiver's limit on stream sizes, so that the fuzzer can exceed it.
constexpr uint64_t kMaxTotal = uint64_t{1} << 40;

std::string CheckHello(std::string_view wire, bool* decoded) {
  if (wire.size() < wire::kHelloFixedSize) return "";  // the receiver waits for more
  Result<wire::HelloFixed> f = wire::DecodeHelloFixed(wire.substr(0, wire::kHelloFixedSize), kMaxTotal);
  if (!f.ok()) {
    const StatusCode code = f.status().code();
    if (code != StatusCode::kInvalidArgument && code != StatusCode::kNotSupported &&
        code != StatusCode::kFileTooLarge) {
      return "a refused hello has an undocumented code: " + f.status().ToString();
    }
    return "";
  }
  wire::Hello hello = f->hello;
  if (f->name_length > wire::kMaxNameLength) return "a hello's name length beyond the bound was accepted";
  if (hello.total_size < wire::kMinStreamBytes || hello.total_size > kMaxTotal) {
    return "a hello's stream size beyond the bounds was accepted";
  }
  if (hello.version != wire::kVersion || hello.flags != 0 || !hello.name.empty()) {
    return "a hello's version, flags or name came out of the fixed part";
  }
  std::string_view rest = wire.substr(wire::kHelloFixedSize);
  if (rest.size() < f->name_length) return "";  // the name never arrives
  hello.name = std::string(rest.substr(0, f->name_length));
  if (Status st = wire::CheckName(hello.name); !st.ok()) {
    return st.code() == StatusCode::kInvalidArgument ? "" : "a refused name has the wrong code";
  }
  *decoded = true;
  if (wire::EncodeHello(hello) != wire.substr(0, wire::kHelloFixedSize + f->name_length)) {
    return "an accepted hello encodes to other bytes than it was read from";
  }
  return "";
}

std::string CheckMessage(std::string_view wire, bool* decoded) {
  if (wire.size() < wire::kMessageFixedSize) return "";  // the sender waits for more
  uint32_t text_length = 0;
  Result<wire::Message> m = wire::DecodeMessageFixed(wire.substr(0, wire::kMessageFixedSize), &text_length);
  if (!m.ok()) {
    return m.status().code() == StatusCode::kCorruption
               ? ""
               : "a refused message is not kCorruption: " + m.status().ToString();
  }
  if (text_length > wire::kMaxTextLength) return "a message's text length beyond the bound was accepted";
  if (m->kind != wire::MessageKind::kResume && m->kind != wire::MessageKind::kVerdict) {
    return "a message of an unknown kind was accepted";
  }
  if (static_cast<uint32_t>(m->code) > static_cast<uint32_t>(StatusCode::kPermissionDenied)) {
    return "a message with an unknown status code was accepted";
  }
  std::string_view rest = wire.substr(wire::kMessageFixedSize);
  if (rest.size() < text_length) return "";  // the text never arrives
  m->text = std::string(rest.substr(0, text_length));
  *decoded = true;
  if (wire::EncodeMessage(*m) != wire.substr(0, wire::kMessageFixedSize + text_length)) {
    return "an accepted message encodes to other bytes than it was read from";
  }
  return "";
}

}  // namespace

std::string CheckTransportInput(std::string_view bytes, bool* decoded) {
  bool ignored = false;
  if (decoded == nullptr) decoded = &ignored;
  *decoded = false;
  if (bytes.empty()) return "";
  const std::string_view wire = bytes.substr(1);
  return static_cast<uint8_t>(bytes[0]) % 2 == 0 ? CheckHello(wire, decoded) : CheckMessage(wire, decoded);
}

std::vector<std::string> KvTransportSeeds() {
  wire::Hello named;
  named.total_size = 123456;
  for (size_t i = 0; i < named.id.size(); ++i) named.id[i] = static_cast<uint8_t>(i * 7);
  named.name = "prompt-cache.usxf";
  wire::Hello unnamed;
  unnamed.total_size = wire::kMinStreamBytes;
  wire::Message resume;
  resume.kind = wire::MessageKind::kResume;
  resume.value = 65536;
  wire::Message accepted;
  accepted.text = "/var/spool/vexfs/prompt-cache.usxf";
  wire::Message refused;
  refused.code = StatusCode::kCorruption;
  refused.value = wire::kVerdictRetry;
  refused.text = "the partial file did not verify";
  return {std::string(1, '\0') + wire::EncodeHello(named), std::string(1, '\0') + wire::EncodeHello(unnamed),
          std::string(1, '\1') + wire::EncodeMessage(resume), std::string(1, '\1') + wire::EncodeMessage(accepted),
          std::string(1, '\1') + wire::EncodeMessage(refused)};
}

}  // namespace vexfs::kv::fuzz
