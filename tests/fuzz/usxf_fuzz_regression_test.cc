// Replays the USXF reader fuzzer's seed corpus and every input saved under
// tests/fuzz/regressions/ through the fuzz body (CheckReaders), in the normal and
// the sanitizer builds, so a crash or disagreement found once stays fixed. Also
// checks that the fuzzer's checksum repair does what its mutator relies on, and
// replays hostile files found by reading the code that are too large to save.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include "fuzz/seed_corpus.h"
#include "fuzz/usxf_fuzz_body.h"
#include "fuzz/usxf_fuzz_repair.h"
#include "usxf/digests.h"
#include "usxf/format.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

// A hostile header must not make a reader allocate gigabytes. libFuzzer enforces
// that with -malloc_limit_mb; in the sanitizer build (scripts/test.sh runs this
// test there too) a replayed input is held to the same rule, and fails loudly
// instead of swapping or being killed by the kernel.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "max_allocation_size_mb=1024"; }
#endif

namespace vexfs::usxf::fuzz {
namespace {

struct Input {
  std::string name;  // a gtest name: letters, digits and underscores
  std::string bytes;
};

// Keeps gtest from printing the bytes of a failing input.
void PrintTo(const Input& input, std::ostream* os) { *os << input.name; }

std::string TestName(std::string name) {
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

std::vector<Input> AllInputs() {
  std::vector<Input> inputs;
  for (auto& [name, bytes] : MakeSeedCorpus()) inputs.push_back({"seed_" + name, std::move(bytes)});
  std::vector<std::filesystem::path> saved;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(VEXFS_FUZZ_REGRESSIONS_DIR, ec)) {
    if (entry.is_regular_file() && entry.path().filename() != "README.md") {
      saved.push_back(entry.path());
    }
  }
  std::sort(saved.begin(), saved.end());
  for (const auto& path : saved) {
    std::ifstream in(path, std::ios::binary);
    inputs.push_back(
        {TestName(path.filename().string()),
         std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())});
  }
  return inputs;
}

class UsxfFuzzReplayTest : public testing::TestWithParam<Input> {};

TEST_P(UsxfFuzzReplayTest, ReadersAgreeAndKeepTheirPromises) {
  const Input& input = GetParam();
  // CheckReaders accepts a refusal, so a seed the readers refused would pass
  // having checked nothing: every seed must open and verify (fully when sealed).
  if (input.name.rfind("seed_", 0) == 0) {
    auto mapped = MappedFile::FromBytes(input.bytes);
    ASSERT_TRUE(mapped.ok()) << input.name << ": " << mapped.status().ToString();
    const Status verified =
        (*mapped)->Verify((*mapped)->summary().sealed ? VerifyLevel::kFull : VerifyLevel::kFast);
    EXPECT_TRUE(verified.ok()) << input.name << ": " << verified.ToString();
  }
  EXPECT_EQ(CheckReaders(input.bytes), "") << input.name;
}

// AllInputs cannot fail a test; an unreadable directory would leave every saved
// input unreplayed without a word.
TEST(UsxfFuzzSavedTest, RegressionsDirectoryIsThere) {
  EXPECT_TRUE(std::filesystem::is_regular_file(std::string(VEXFS_FUZZ_REGRESSIONS_DIR) + "/README.md"));
}

INSTANTIATE_TEST_SUITE_P(Inputs, UsxfFuzzReplayTest, testing::ValuesIn(AllInputs()),
                         [](const testing::TestParamInfo<Input>& info) { return info.param.name; });

std::string Seed(const std::string& name) {
  for (auto& [n, bytes] : MakeSeedCorpus()) {
    if (n == name) return bytes;
  }
  ADD_FAILURE() << "no seed named " << name;
  return "";
}

// The mutator repairs every mutated input; on a valid file it must be a no-op, or
// the fuzzer would be testing the repair's mistakes instead of the readers.
TEST(UsxfFuzzRepairTest, LeavesValidFilesAsTheyAre) {
  for (const auto& [name, bytes] : MakeSeedCorpus()) {
    std::string repaired = bytes;
    RepairChecksums(&repaired);
    EXPECT_TRUE(repaired == bytes) << name;
  }
}

TEST(UsxfFuzzRepairTest, DamagedContentsVerifyAgainAfterRepair) {
  for (const std::string name : {"blob", "multi_chunk", "signed"}) {
    std::string file = Seed(name);
    auto original = MappedFile::FromBytes(file);
    ASSERT_TRUE(original.ok()) << name;
    const uint64_t at = (*original)->sections()[0].offset + 5;
    file[at] = static_cast<char>(file[at] ^ 0x5a);
    EXPECT_FALSE((*MappedFile::FromBytes(file))->Verify(VerifyLevel::kFull).ok()) << name;
    RepairChecksums(&file);
    auto repaired = MappedFile::FromBytes(file);
    ASSERT_TRUE(repaired.ok()) << name << ": " << repaired.status().ToString();
    EXPECT_TRUE((*repaired)->Verify(VerifyLevel::kFull).ok()) << name;
  }
}

TEST(UsxfFuzzRepairTest, ChangedTokenIdsGetTheirBlockHashesBack) {
  std::string file = Seed("kv_cache");
  auto original = MappedFile::FromBytes(file);
  ASSERT_TRUE(original.ok());
  auto kv = KvCacheInfo::FromSection((*original)->sections()[0]);
  ASSERT_TRUE(kv.ok());
  // The first token id (1000) sits in the header; change it to 1001.
  const std::string id(reinterpret_cast<const char*>(&kv->token_ids[0]), 4);
  const size_t at = file.find(id);
  ASSERT_NE(at, std::string::npos);
  file[at] = static_cast<char>(file[at] + 1);
  RepairChecksums(&file);
  auto repaired = MappedFile::FromBytes(file);
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_TRUE((*repaired)->Verify(VerifyLevel::kFull).ok());
  auto changed = KvCacheInfo::FromSection((*repaired)->sections()[0]);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_EQ(changed->token_ids[0], 1001);
}

// A sealed file laid out and hashed as the writer does it (preamble, header, data
// padded to the alignment, footer), but built from the format's own encoders, so
// that it can hold a section the writer refuses to write.
std::string HandWritten(SectionInfo section, std::string_view data) {
  section.stored_length = section.raw_length = data.size();
  Preamble p;
  p.alignment = 64;
  std::vector<SectionInfo> sections = {section};
  const std::string header = EncodeHeader(&p, &sections, Metadata().Encode());
  const std::string preamble = EncodePreamble(p);
  std::string file = preamble + header;
  file.resize(p.DataOffset(), '\0');
  file += data;
  file.resize(p.FooterOffset(), '\0');
  SectionHasher hasher(/*sealed=*/true, p.chunk_log2);
  hasher.Update(data);
  Footer footer;
  footer.sealed = true;
  footer.checksums = {hasher.FinishChecksum()};
  footer.section_digests = {hasher.FinishDigest()};
  footer.header_digest = HeaderDigest(preamble, header);
  footer.root = RootOf(footer.header_digest, footer.section_digests);
  return file + EncodeFooter(footer);
}

// Without this the test below could not tell a refused KV section from a file
// the hand-written layout got wrong.
TEST(UsxfFuzzRegressionTest, HandWrittenFilesAreWhatTheReadersAccept) {
  const KvCacheInfo kv = SmallKv();
  const std::string values(kv.ElementCount() * 2, '\x11');
  const std::string file = HandWritten(KvSection("kv", kv, DType::kF16), values);
  auto mapped = MappedFile::FromBytes(file);
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_TRUE((*mapped)->Verify(VerifyLevel::kFull).ok());
  EXPECT_TRUE(VerifyBytes(file, VerifyOptions{}).status.ok());
  auto decoded = KvCacheInfo::FromSection((*mapped)->sections()[0]);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->token_ids, kv.token_ids);
  EXPECT_EQ(CheckReaders(file), "");
}

// Found by reading the code, not by the fuzzer: its inputs are capped at 64 KiB and
// this file's header is 2 MiB. 2^19 tokens x 4096 layers x 65536 KV heads x
// (65536 + 65536) dims is exactly 2^64 elements, so ElementCount wraps to 0; the
// header check then accepts a section of shape [0] and KOffset/VOffset point far
// outside it. Every dimension is within its documented limit. The writer refuses
// such a plan, so the file is written by hand: the readers must refuse it too.
TEST(UsxfFuzzRegressionTest, KvElementCountDoesNotWrap) {
  constexpr uint32_t kLayers = 4096, kHeads = 65536, kDim = 65536, kTokens = 1u << 19;
  KvCacheInfo kv;
  kv.arch = "llama";
  kv.weights_fingerprint.fill(1);
  kv.hparams_fingerprint.fill(2);
  kv.tokenizer_fingerprint.fill(3);
  kv.n_layers = kLayers;
  kv.n_heads.assign(kLayers, kHeads);
  kv.n_kv_heads.assign(kLayers, kHeads);
  kv.k_head_dim.assign(kLayers, kDim);
  kv.v_head_dim.assign(kLayers, kDim);
  kv.token_ids.assign(kTokens, 7);
  kv.block_size = 1u << 20;
  kv.ComputeBlockHashes();
  ASSERT_EQ(kv.ElementCount(), 0u);  // the wrap this test is about
  const SectionData section{KvSection("kv", kv, DType::kF16), ""};
  ASSERT_EQ(section.info.shape, std::vector<uint64_t>{0});
  StringSink sink;
  EXPECT_EQ(WriteFile(&sink, {section}, Metadata(), WriterOptions{.alignment = 64}).code(),
            StatusCode::kInvalidArgument);

  const std::string file = HandWritten(section.info, "");
  auto mapped = MappedFile::FromBytes(file);
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();  // the header rules pass it
  ASSERT_EQ((*mapped)->sections().size(), 1u);
  auto decoded = KvCacheInfo::FromSection((*mapped)->sections()[0]);
  ASSERT_FALSE(decoded.ok()) << "a KV section of 2^64 elements was accepted as [0]";
  EXPECT_NE(decoded.status().message().find("n_tokens"), std::string::npos)
      << decoded.status().ToString();
  // Its bytes are intact (Verify checks integrity only); what it says is not.
  EXPECT_TRUE((*mapped)->Verify(VerifyLevel::kFull).ok());
  EXPECT_FALSE(VerifyBytes(file, VerifyOptions{}).status.ok());
  EXPECT_EQ(CheckReaders(file), "");
}

}  // namespace
}  // namespace vexfs::usxf::fuzz
