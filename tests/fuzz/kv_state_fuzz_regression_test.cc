// Replays KV state inputs through the fuzz body (CheckStateInput) in the normal
// and the sanitizer builds: the seeds, which must all decode; single-byte changes
// of the seed files, as given and with their checksums repaired the way the
// fuzzer's mutator does; every truncation and byte change of the reference
// texts, the HF exports' manifests among them; changes and truncations of the
// whole HF exports, sampled past their first 4 KiB; and every input saved under
// tests/fuzz/kv_state_regressions/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "fuzz/kv_state_fuzz_body.h"
#include "fuzz/saved_inputs.h"
#include "fuzz/usxf_fuzz_repair.h"
#include "usxf/format.h"
#include "usxf/le.h"

namespace vexfs::kv::fuzz {
namespace {

bool IsStateFile(const std::string& bytes) { return bytes.rfind(std::string(usxf::kMagic, 8), 0) == 0; }

// Where a file's preamble and header end: every byte before it is sampled.
size_t HeaderEnd(const std::string& file) {
  auto preamble = usxf::DecodePreamble(file);
  EXPECT_TRUE(preamble.ok()) << preamble.status().ToString();
  return preamble.ok() ? usxf::kPreambleSize + preamble->header_length : 0;
}

TEST(KvStateFuzzTest, EverySeedDecodes) {
  const auto seeds = KvStateSeeds();
  ASSERT_EQ(seeds.size(), 7u);
  for (const auto& [name, bytes] : seeds) {
    bool decoded = false;
    EXPECT_EQ(CheckStateInput(bytes, &decoded), "") << name;
    EXPECT_TRUE(decoded) << name << " does not decode, so nothing of it was checked";
  }
}

constexpr std::string_view kHfPrefix = "vexfs-hf\n";
bool IsHfExport(const std::string& bytes) { return bytes.rfind(kHfPrefix, 0) == 0; }

// Every byte of the manifest and a sample of the floats, changed, and every
// truncation: refused naming the manifest, or decoded consistently.
TEST(KvStateFuzzTest, ChangedHfExportsAreRefusedOrConsistent) {
  size_t exports = 0, refused = 0;
  for (const auto& [name, input] : KvStateSeeds()) {
    if (!IsHfExport(input)) continue;
    ++exports;
    for (size_t at = 0; at < input.size(); at += at < 4096 ? 1 : 97) {
      for (char delta : {'\x01', '\x80'}) {
        std::string changed = input;
        changed[at] = static_cast<char>(changed[at] ^ delta);
        bool decoded = false;
        ASSERT_EQ(CheckStateInput(changed, &decoded), "") << name << " byte " << at;
        refused += !decoded;
      }
    }
    for (size_t n = 0; n < input.size(); n += n < 4096 ? 1 : 509) {
      ASSERT_EQ(CheckStateInput(input.substr(0, n)), "") << name << " cut to " << n;
    }
  }
  EXPECT_EQ(exports, 2u);
  EXPECT_GT(refused, 0u) << "no changed export was refused: the checks see nothing";
}

TEST(KvStateFuzzTest, ChangedFilesAreRefusedOrConsistent) {
  for (const auto& [name, file] : KvStateSeeds()) {
    if (!IsStateFile(file)) continue;
    size_t decoded_after_repair = 0;
    const size_t header_end = HeaderEnd(file);
    for (size_t i = 0; i < file.size(); i += i < header_end ? 1 : 53) {
      for (int bit : {0x01, 0x80}) {
        std::string changed = file;
        changed[i] = static_cast<char>(changed[i] ^ bit);
        ASSERT_EQ(CheckStateInput(changed), "") << name << " byte " << i << " ^ " << bit;
        usxf::fuzz::RepairChecksums(&changed);
        bool decoded = false;
        ASSERT_EQ(CheckStateInput(changed, &decoded), "")
            << name << " byte " << i << " ^ " << bit << ", repaired";
        decoded_after_repair += decoded;
      }
    }
    // The repaired changes are what reach the decoding behind the checksums.
    EXPECT_GT(decoded_after_repair, 0u) << name;
    for (size_t n = 0; n < file.size(); n += 97) {
      ASSERT_EQ(CheckStateInput(file.substr(0, n)), "") << name << " cut to " << n;
    }
  }
}

// Where an input's text ends: a reference text is text throughout; an HF export
// is text up to the end of its manifest, then floats (the cache and the logits),
// which ChangedHfExportsAreRefusedOrConsistent changes.
size_t TextEnd(const std::string& input) {
  const size_t length_at = kHfPrefix.size();
  if (!IsHfExport(input) || input.size() < length_at + 4) return input.size();
  const uint32_t manifest = usxf::LoadLE<uint32_t>(input.data() + length_at);
  return std::min<size_t>(input.size(), length_at + 4 + manifest);
}

// Every truncation of every text, and every byte of it changed to each of the
// characters that change a JSON document's structure.
TEST(KvStateFuzzTest, ChangedReferenceTextsAreRefusedOrConsistent) {
  for (const auto& [name, input] : KvStateSeeds()) {
    if (IsStateFile(input)) continue;
    const size_t text_end = TextEnd(input);
    for (size_t n = 0; n < text_end; ++n) {
      ASSERT_EQ(CheckStateInput(input.substr(0, n)), "") << name << " cut to " << n;
    }
    for (size_t i = 0; i < text_end; ++i) {
      for (char to : {'0', '"', '[', '{', '-', 'e', ' ', '\x80'}) {
        std::string changed = input;
        changed[i] = to;
        ASSERT_EQ(CheckStateInput(changed), "") << name << " byte " << i << " = " << to;
      }
    }
  }
}

TEST(KvStateFuzzTest, SavedInputsKeepEveryPromise) {
  int replayed = vexfs::fuzz::ReplaySavedInputs(
      VEXFS_KV_STATE_REGRESSIONS_DIR, [](const std::string& bytes) { return CheckStateInput(bytes); });
  EXPECT_GT(replayed, 0);  // the hand-written inputs that once made the reader throw
}

}  // namespace
}  // namespace vexfs::kv::fuzz
