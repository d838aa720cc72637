// USXF under damage and hostile input: every single-bit flip of a small file,
// random flips of a large one, every truncation, and crafted headers (lengths past
// the end, overlaps, absurd sizes, unknown versions and features). Each must be
// refused with an error naming the damaged part, by both readers, without a crash
// or a large allocation.
#include <gtest/gtest.h>

#include <zstd.h>

#include <random>

#include "test_util.h"
#include "common/file_util.h"
#include "usxf/le.h"
#include "usxf/usxf_test_util.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::usxf {
namespace {

// Both readers' verdicts on `file` at the full level.
struct Verdicts {
  Status mapped, streamed;
};

Verdicts ReadBothWays(std::string_view file) {
  Verdicts v;
  auto mapped = MappedFile::FromBytes(file);
  v.mapped = mapped.ok() ? (*mapped)->Verify(VerifyLevel::kFull) : mapped.status();
  StringSource source(file);
  auto reader = StreamReader::Open(&source, VerifyLevel::kFull);
  v.streamed = reader.ok() ? (*reader)->ReadAll([](size_t, std::string_view) { return Status::Ok(); })
                           : reader.status();
  return v;
}

// The part of the file byte `at` belongs to, as error messages name it.
std::string PartOf(const FileSummary& s, uint64_t at) {
  if (at < kPreambleSize) return "preamble";
  if (at < kPreambleSize + s.header_length) return "header";
  if (at < s.data_offset) return "padding after the header";
  if (at >= s.footer_offset) return "footer";
  for (size_t i = 0; i < s.sections.size(); ++i) {
    const SectionInfo& sec = s.sections[i];
    const std::string name = "section " + std::to_string(i) + " '" + sec.name + "'";
    if (at >= sec.offset && at < sec.offset + sec.stored_length) return name;
    if (at >= sec.offset + sec.stored_length && at < (sec.offset + sec.stored_length + s.alignment - 1) / s.alignment * s.alignment) {
      return "padding after " + name;
    }
  }
  return "?";
}

bool Names(const Status& st, const std::string& part) {
  return st.message().find(part) != std::string::npos;
}

TEST(UsxfDamageTest, EverySingleBitFlipIsDetectedAndNamed) {
  const std::string good = test::SampleFile();
  auto summary = MappedFile::FromBytes(good);
  ASSERT_TRUE(summary.ok());
  const FileSummary s = (*summary)->summary();
  ASSERT_LT(good.size(), 8192u) << "keep the exhaustive test small";
  size_t flips = 0;
  for (size_t byte = 0; byte < good.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit, ++flips) {
      std::string bad = good;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
      Verdicts v = ReadBothWays(bad);
      const std::string part = PartOf(s, byte);
      ASSERT_FALSE(v.mapped.ok()) << "flip at byte " << byte << " bit " << bit << " (" << part << ") undetected";
      ASSERT_FALSE(v.streamed.ok()) << "stream: flip at byte " << byte << " bit " << bit << " undetected";
      // Magic bytes are named as "not a USXF file"; the footer's fixed fields
      // may first be seen as a length or count problem of the footer.
      const bool named = Names(v.mapped, part) || (part == "preamble" && Names(v.mapped, "magic"));
      ASSERT_TRUE(named) << "flip at byte " << byte << " in " << part << ": " << v.mapped.ToString();
      const bool stream_named = Names(v.streamed, part) || (part == "preamble" && Names(v.streamed, "magic")) ||
                                (part == "footer" && Names(v.streamed, "truncated"));
      ASSERT_TRUE(stream_named) << "stream: flip at byte " << byte << " in " << part << ": " << v.streamed.ToString();
    }
  }
  EXPECT_EQ(flips, good.size() * 8);
}

TEST(UsxfDamageTest, RandomFlipsInALargeFileAreDetectedInTheRightSection) {
  // Two 2 MiB sections, 1 MiB Merkle chunks: flips land in every chunk.
  const std::string a = vexfs::test::RandomBytes(11, 2 << 20), b = vexfs::test::RandomBytes(12, 2 << 20);
  SectionData sa{{}, a}, sb{{}, b};
  sa.info.name = "a";
  sb.info.name = "b";
  StringSink sink;
  ASSERT_OK(WriteFile(&sink, {sa, sb}, Metadata()));
  auto good = MappedFile::FromBytes(sink.out);
  ASSERT_TRUE(good.ok());
  const FileSummary s = (*good)->summary();
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 64; ++trial) {
    std::string bad = sink.out;
    const uint64_t at = rng() % bad.size();
    bad[at] = static_cast<char>(bad[at] ^ (1 << (rng() % 8)));
    auto mapped = MappedFile::FromBytes(bad);
    Status fast = mapped.ok() ? (*mapped)->Verify(VerifyLevel::kFast) : mapped.status();
    Status full = mapped.ok() ? (*mapped)->Verify(VerifyLevel::kFull, 2) : mapped.status();
    ASSERT_FALSE(fast.ok()) << "byte " << at;
    ASSERT_FALSE(full.ok()) << "byte " << at;
    ASSERT_TRUE(Names(full, PartOf(s, at))) << "byte " << at << ": " << full.ToString();
  }
}

TEST(UsxfDamageTest, EveryTruncationIsRefusedByBothReaders) {
  const std::string good = test::SampleFile();
  for (size_t len = 0; len < good.size(); ++len) {
    Verdicts v = ReadBothWays(std::string_view(good).substr(0, len));
    ASSERT_FALSE(v.mapped.ok()) << "truncated to " << len;
    ASSERT_EQ(v.mapped.code(), StatusCode::kCorruption) << len << ": " << v.mapped.ToString();
    ASSERT_FALSE(v.streamed.ok()) << "stream truncated to " << len;
    ASSERT_TRUE(Names(v.streamed, "truncated")) << len << ": " << v.streamed.ToString();
  }
  // Bytes after the footer are refused too.
  Verdicts v = ReadBothWays(good + "x");
  EXPECT_FALSE(v.mapped.ok());
  EXPECT_FALSE(v.streamed.ok());
}

// Patches a section table field of section `i` and repairs the checksums, so the
// reader must catch the meaning, not the damage.
std::string WithEntryField(std::string file, size_t i, size_t field_offset, uint64_t value) {
  StoreLE<uint64_t>(file.data() + kPreambleSize + i * kSectionEntrySize + field_offset, value);
  test::FixHeaderChecksums(&file);
  return file;
}

TEST(UsxfDamageTest, HostileHeadersAreRefusedWithSpecificErrors) {
  const std::string good = test::SampleFile();
  auto m = MappedFile::FromBytes(good);
  ASSERT_TRUE(m.ok());
  const FileSummary s = (*m)->summary();
  struct Case {
    const char* what;
    std::string file;
    const char* expected;
  };
  const uint64_t s0_len = s.sections[0].stored_length;
  std::vector<Case> cases = {
      {"length past the end",
       WithEntryField(WithEntryField(good, 0, 8, s0_len + 4096), 0, 16, s0_len + 4096),
       "past the end"},
      {"overlapping sections", WithEntryField(good, 1, 0, s.sections[0].offset + 8), "overlaps"},
      {"2^60-byte section", WithEntryField(good, 0, 8, uint64_t{1} << 60), "16 TiB"},
      {"2^60 raw length", WithEntryField(good, 0, 16, uint64_t{1} << 60), "16 TiB"},
      {"shape that does not fit its length", WithEntryField(good, 1, 48, 1000), "raw length"},
      {"shape overflow", WithEntryField(WithEntryField(good, 1, 48, uint64_t{1} << 40), 1, 56, uint64_t{1} << 40),
       "overflows"},
      {"section shorter than declared elsewhere", WithEntryField(good, 0, 8, s0_len - 1), "raw length"},
  };
  std::string absurd_header = good;
  StoreLE<uint64_t>(absurd_header.data() + 32, uint64_t{1} << 60);
  test::FixHeaderChecksums(&absurd_header);
  cases.push_back({"2^60-byte header", absurd_header, "64 MiB"});
  std::string many = good;
  StoreLE<uint32_t>(many.data() + 24, 1u << 30);
  test::FixHeaderChecksums(&many);
  cases.push_back({"2^30 sections", many, "exceed the limit"});
  std::string major2 = good;
  StoreLE<uint16_t>(major2.data() + 8, 2);
  test::FixHeaderChecksums(&major2);
  cases.push_back({"major version 2", major2, "major version 2 is not supported"});
  std::string flags = good;
  StoreLE<uint32_t>(flags.data() + 12, 1);
  test::FixHeaderChecksums(&flags);
  cases.push_back({"unknown feature flag", flags, "unknown required feature"});
  std::string align = good;
  StoreLE<uint32_t>(align.data() + 16, 48);
  test::FixHeaderChecksums(&align);
  cases.push_back({"alignment 48", align, "alignment 48"});
  cases.push_back({"not USXF", std::string(200, 'x'), "not a USXF file"});
  for (const Case& c : cases) {
    Verdicts v = ReadBothWays(c.file);
    EXPECT_FALSE(v.mapped.ok()) << c.what;
    EXPECT_FALSE(v.streamed.ok()) << c.what;
    EXPECT_TRUE(Names(v.mapped, c.expected)) << c.what << ": " << v.mapped.ToString();
    EXPECT_TRUE(Names(v.streamed, c.expected)) << c.what << " (stream): " << v.streamed.ToString();
  }
}

TEST(UsxfDamageTest, MinorVersionsAndUnknownKindsAreReadButNotInterpreted) {
  std::string file = test::SampleFile();
  StoreLE<uint16_t>(file.data() + 10, 7);  // minor 7: still readable
  // An unknown section kind (section 0 becomes kind 99): verified, not decoded.
  StoreLE<uint32_t>(file.data() + kPreambleSize + 24, 99);
  test::FixHeaderChecksums(&file);
  test::ResealFooter(&file);
  auto m = MappedFile::FromBytes(file);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->summary().minor, 7);
  EXPECT_OK((*m)->Verify(VerifyLevel::kFull));
  EXPECT_EQ(std::string(SectionKindName((*m)->sections()[0].kind)), "unknown");
  // Unknown kinds keep their bytes; an unknown compression cannot be decoded.
  std::string storage;
  EXPECT_TRUE((*m)->Values(0, &storage).ok());
  std::string comp = file;
  StoreLE<uint32_t>(comp.data() + kPreambleSize + 36, 9);
  test::FixHeaderChecksums(&comp);
  test::ResealFooter(&comp);
  auto m2 = MappedFile::FromBytes(comp);
  ASSERT_TRUE(m2.ok()) << m2.status().ToString();
  EXPECT_OK((*m2)->Verify(VerifyLevel::kFull));
  EXPECT_CODE((*m2)->Values(0, &storage).status(), StatusCode::kNotSupported);
}

TEST(UsxfDamageTest, UnknownCriticalMetadataMakesAKvSectionUninterpretable) {
  KvCacheInfo kv = test::SmallKv(1, 3);
  Metadata meta = kv.ToMetadata();
  meta.SetU64(500, 1, /*critical=*/false);
  auto ok = KvCacheInfo::FromMetadata(meta);
  EXPECT_TRUE(ok.ok()) << "unknown non-critical fields are skipped";
  meta.SetU64(501, 1, /*critical=*/true);
  EXPECT_CODE(KvCacheInfo::FromMetadata(meta).status(), StatusCode::kNotSupported);
  // Non-canonical metadata (tags out of order) is refused outright.
  std::string bytes = Metadata().Encode();
  Metadata two;
  two.SetU64(1, 1);
  two.SetU64(2, 2);
  std::string enc = two.Encode();
  std::string swapped = enc.substr(16) + enc.substr(0, 16);
  EXPECT_CODE(Metadata::Decode(swapped).status(), StatusCode::kCorruption);
}

TEST(UsxfDamageTest, InconsistentKvMetadataIsNamed) {
  KvCacheInfo kv = test::SmallKv(2, 5);
  kv.attention = AttentionKind::kMHA;  // 4 heads, 2 KV heads is GQA
  Status st = kv.Validate();
  EXPECT_CODE(st, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("attention"), std::string::npos) << st.ToString();
  kv = test::SmallKv(2, 5);
  kv.token_ids[3] = 99;  // block hashes no longer cover these tokens
  st = kv.Validate();
  EXPECT_NE(st.message().find("block_hashes"), std::string::npos) << st.ToString();
  kv = test::SmallKv(2, 5);
  kv.k_head_dim.pop_back();
  st = kv.Validate();
  EXPECT_NE(st.message().find("k_head_dim"), std::string::npos) << st.ToString();
  // A rotation must be a power of two >= 2 dividing every head dim (8 here).
  for (uint32_t bad : {1u, 3u, 6u, 16u}) {
    kv = test::SmallKv(2, 5);
    kv.k_rotation = bad;
    st = kv.Validate();
    EXPECT_NE(st.message().find("k_rotation"), std::string::npos) << bad << ": " << st.ToString();
  }
  kv = test::SmallKv(2, 5);
  kv.v_rotation = 16;
  st = kv.Validate();
  EXPECT_NE(st.message().find("v_rotation"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace vexfs::usxf

namespace vexfs::usxf {
namespace {

// A compressed section written through the low-level writer exactly as given.
std::string WithZstdSection(const std::string& stored, uint64_t raw_length) {
  SectionInfo s;
  s.name = "z";
  s.compression = static_cast<uint32_t>(Compression::kZstd);
  s.stored_length = stored.size();
  s.raw_length = raw_length;
  StringSink sink;
  auto w = Writer::Start(&sink, {s}, Metadata());
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_OK((*w)->Append(stored));
  EXPECT_OK((*w)->Finish());
  return sink.out;
}

TEST(UsxfDamageTest, CompressionBombsAndExtraFramesAreRefusedBeforeAllocating) {
  const std::string zeros(64 << 20, '\0');
  std::string frame(ZSTD_compressBound(zeros.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), zeros.data(), zeros.size(), 3));
  ASSERT_LT(frame.size() * 1024 + (1 << 20), zeros.size()) << "needs a ratio past the limit";
  std::string file = WithZstdSection(frame, zeros.size());
  auto m = MappedFile::FromBytes(file);
  ASSERT_TRUE(m.ok());
  EXPECT_OK((*m)->Verify(VerifyLevel::kFull)) << "the bytes are intact";
  std::string storage;
  Status st = (*m)->Values(0, &storage).status();
  EXPECT_CODE(st, StatusCode::kCorruption);
  EXPECT_NE(st.message().find("ratio"), std::string::npos) << st.ToString();
  // The writer stores such a section uncompressed instead.
  SectionData data{{}, zeros};
  data.info.name = "zeros";
  data.info.compression = static_cast<uint32_t>(Compression::kZstd);
  StringSink sink;
  ASSERT_OK(WriteFile(&sink, {data}, Metadata()));
  auto written = MappedFile::FromBytes(sink.out);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ((*written)->sections()[0].compression, 0u);
  // A second (empty) frame after the first is not one frame.
  const std::string text = "compress me, compress me, compress me";
  std::string one(ZSTD_compressBound(text.size()), '\0');
  one.resize(ZSTD_compress(one.data(), one.size(), text.data(), text.size(), 3));
  std::string empty(64, '\0');
  empty.resize(ZSTD_compress(empty.data(), empty.size(), "", 0, 3));
  const std::string two_frames = WithZstdSection(one + empty, text.size());  // FromBytes only views it
  auto two = MappedFile::FromBytes(two_frames);
  ASSERT_TRUE(two.ok());
  st = (*two)->Values(0, &storage).status();
  EXPECT_NE(st.message().find("one frame"), std::string::npos) << st.ToString();
  // A skippable frame declares no content and may carry anything.
  std::string skippable("\x50\x2a\x4d\x18\x05\x00\x00\x00HELLO", 13);
  const std::string skip_file = WithZstdSection(skippable, 0);
  auto skip = MappedFile::FromBytes(skip_file);
  ASSERT_TRUE(skip.ok());
  st = (*skip)->Values(0, &storage).status();
  EXPECT_NE(st.message().find("not a regular zstd frame"), std::string::npos) << st.ToString();
}

TEST(UsxfDamageTest, NamesAndStringsMustBeUtf8) {
  for (std::string bad : {std::string("\xc0\xaf"), std::string("\xed\xa0\x80"), std::string("ab\xff")}) {
    SectionInfo s;
    s.name = bad;
    StringSink sink;
    EXPECT_FALSE(Writer::Start(&sink, {s}, Metadata()).ok());
    Metadata m;
    m.SetString(1, bad);
    EXPECT_CODE(Metadata::Decode(m.Encode()).status(), StatusCode::kCorruption);
  }
  Metadata ok;
  ok.SetString(1, "snowman \xe2\x98\x83, emoji \xf0\x9f\x98\x80");
  EXPECT_TRUE(Metadata::Decode(ok.Encode()).ok());
}

TEST(UsxfDamageTest, VerifyInterpretsKvSectionsButSkipsUnknownCriticalFields) {
  vexfs::test::TempDir dir;
  KvCacheInfo kv = test::SmallKv(1, 4);
  std::vector<uint16_t> values(kv.ElementCount(), 0x3c00);
  const std::string bytes = test::Pack(values);
  auto write = [&](const Metadata& meta) {
    SectionData s{KvSection("kv", kv, DType::kF16), bytes};
    s.info.metadata = meta.Encode();
    const std::string path = dir.Sub("kv.usxf");
    Status written = WriteFileToPath(path, {s}, Metadata());
    return written.ok() ? VerifyFile(path, VerifyOptions{}).status : written;
  };
  EXPECT_OK(write(kv.ToMetadata()));
  // The writer refuses wrong block hashes, so damage them in a written file (same
  // length) and repair every checksum, digest and the root: only verify's KV
  // interpretation can notice.
  auto file = ReadWholeFile(dir.Sub("kv.usxf"));
  ASSERT_TRUE(file.ok());
  std::string bytes_of_file = *file;
  const std::string hash(reinterpret_cast<const char*>(kv.block_hashes[0].data()), 32);
  const size_t at = bytes_of_file.find(hash);
  ASSERT_NE(at, std::string::npos);
  bytes_of_file.replace(at, 32, std::string(32, 'x'));
  test::FixHeaderChecksums(&bytes_of_file);
  test::ResealFooter(&bytes_of_file);
  ASSERT_OK(WriteFileAtomically(dir.Sub("bad.usxf"), bytes_of_file));
  Status st = VerifyFile(dir.Sub("bad.usxf"), VerifyOptions{}).status;
  EXPECT_CODE(st, StatusCode::kCorruption);
  EXPECT_NE(st.message().find("section 0 'kv'"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("block_hashes"), std::string::npos) << st.ToString();
  Metadata bad_hashes = kv.ToMetadata();
  bad_hashes.SetBytes(22, std::string(32, 'x'), true);
  EXPECT_CODE(write(bad_hashes), StatusCode::kInvalidArgument) << "the writer refuses them";
  Metadata future = kv.ToMetadata();
  future.SetU64(900, 1, /*critical=*/true);
  EXPECT_OK(write(future)) << "a field from a later minor version leaves the file readable";
}

}  // namespace
}  // namespace vexfs::usxf
