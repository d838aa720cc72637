// What the transfer-protocol fuzzer does with every input, shared with the
// regression test that replays seeds and saved inputs
// (kv_transport_fuzz_regression_test.cc). The decoders are those of the bytes a
// receiver reads from any peer that connects (the hello) and a sender reads from
// the receiver (its messages): src/kv/transport_protocol.
#ifndef VEXFS_TESTS_FUZZ_KV_TRANSPORT_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_KV_TRANSPORT_FUZZ_BODY_H_

#include <string>
#include <string_view>
#include <vector>

namespace vexfs::kv::fuzz {

// The first byte picks the reader, even: the receiver's (a hello), odd: the
// sender's (a message); the rest is the bytes off the wire, read as the
// receiver and sender read them: the fixed part, then the name or text of the
// length it gave. A hello or message that is accepted must respect every bound
// (name and text lengths, stream size, version, kind, status code) and encode
// to exactly the bytes it was read from; a refusal must carry the documented
// status code. Returns "" when all holds, else what broke. `decoded` (when not
// null) says whether a whole hello or message was accepted.
std::string CheckTransportInput(std::string_view bytes, bool* decoded = nullptr);

// Valid inputs (selector byte included): a hello with a name, one without, a
// resume, an accepting verdict and a refusing one with text. Every one decodes.
std::vector<std::string> KvTransportSeeds();

}  // namespace vexfs::kv::fuzz

#endif  // VEXFS_TESTS_FUZZ_KV_TRANSPORT_FUZZ_BODY_H_
