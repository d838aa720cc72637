// USXF round trips: every dtype, encoding, compression and section kind is written
// and read back through both readers, which must agree byte for byte.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>

#include "common/file_util.h"
#include "test_util.h"
#include "usxf/section_codec.h"
#include "usxf/usxf_test_util.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_kv.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf {
namespace {

using test::Pack;
using test::RandomFloats;

// Stored bytes of every section as the stream reader delivers them.
std::vector<std::string> StreamSections(const std::string& file, VerifyLevel level, Status* status,
                                        int hash_threads = 1, FileSummary* summary = nullptr) {
  StringSource source(file);
  auto reader = StreamReader::Open(&source, level, hash_threads);
  if (!reader.ok()) {
    *status = reader.status();
    return {};
  }
  std::vector<std::string> out((*reader)->sections().size());
  *status = (*reader)->ReadAll([&](size_t i, std::string_view bytes) {
    out[i].append(bytes);
    return Status::Ok();
  });
  if (summary != nullptr) *summary = (*reader)->summary();
  return out;
}

// The stream reader's second hashing thread (hash_threads = 2) sees sections
// of every size about its 1 MiB pieces exactly as one thread does: its digests
// make the root the footer holds (a wrong leaf fails the read), and a damaged
// byte in any piece is still refused, naming its section.
TEST(StreamReaderTest, HashingOnASecondThreadAgreesWithOne) {
  std::vector<std::string> blobs;
  std::vector<SectionData> sections;
  for (size_t size : {size_t{0}, size_t{1}, size_t{(1 << 20) - 1}, size_t{1} << 20, size_t{(1 << 20) + 1},
                      size_t{7} << 19}) {
    blobs.push_back(vexfs::test::RandomBytes(size + 1, size));
  }
  for (size_t i = 0; i < blobs.size(); ++i) {
    SectionData d;
    d.info.name = "blob" + std::to_string(i);
    d.values = blobs[i];
    sections.push_back(d);
  }
  StringSink sink;
  ASSERT_OK(WriteFile(&sink, sections, Metadata()));
  Status one, two;
  FileSummary by_one, by_two;
  EXPECT_EQ(StreamSections(sink.out, VerifyLevel::kFull, &one, 1, &by_one),
            StreamSections(sink.out, VerifyLevel::kFull, &two, 2, &by_two));
  ASSERT_OK(one);
  ASSERT_OK(two);
  EXPECT_EQ(by_two.root, by_one.root);
  auto mapped = MappedFile::FromBytes(sink.out).value();
  for (size_t i = 2; i < blobs.size(); ++i) {
    const SectionInfo& info = mapped->sections()[i];
    for (uint64_t at : {info.offset, info.offset + info.stored_length / 2, info.offset + info.stored_length - 1}) {
      std::string damaged = sink.out;
      damaged[at] ^= 0x01;
      Status st;
      StreamSections(damaged, VerifyLevel::kFull, &st, 2);
      EXPECT_TRUE(st.IsCorruption()) << "byte " << at << ": " << st.ToString();
      EXPECT_NE(st.message().find("blob" + std::to_string(i)), std::string::npos) << st.ToString();
    }
  }
}

// Writes one section, checks both readers verify it and agree, returns its values.
std::string RoundTrip(const SectionData& section, uint32_t alignment = 64) {
  StringSink sink;
  WriterOptions options;
  options.alignment = alignment;
  Status st = WriteFile(&sink, {section}, Metadata(), options);
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto mapped = MappedFile::FromBytes(sink.out);
  EXPECT_TRUE(mapped.ok()) << mapped.status().ToString();
  if (!mapped.ok()) return "";
  EXPECT_OK((*mapped)->Verify(VerifyLevel::kFull));
  EXPECT_OK((*mapped)->Verify(VerifyLevel::kFast));
  const SectionInfo& info = (*mapped)->sections()[0];
  EXPECT_EQ(info.offset % alignment, 0u);
  Status stream_status;
  std::vector<std::string> streamed = StreamSections(sink.out, VerifyLevel::kFull, &stream_status);
  EXPECT_OK(stream_status);
  EXPECT_EQ(streamed.at(0), std::string((*mapped)->StoredBytes(0)));
  std::string storage;
  auto values = (*mapped)->Values(0, &storage);
  EXPECT_TRUE(values.ok()) << values.status().ToString();
  // Decoding what the stream delivered gives the same values as the mapping.
  std::string stream_storage;
  auto from_stream = DecodeSection(info, 0, streamed[0], &stream_storage);
  EXPECT_TRUE(from_stream.ok());
  if (!values.ok() || !from_stream.ok()) return "";
  EXPECT_EQ(std::string(*values), std::string(*from_stream));
  return std::string(*values);
}

TEST(UsxfRoundTripTest, EveryDTypeUnencodedIsBitExact) {
  for (uint32_t d = 1; d <= static_cast<uint32_t>(DType::kQ8_0); ++d) {
    for (auto compression : {Compression::kNone, Compression::kZstd}) {
      SCOPED_TRACE(std::string(DTypeName(d)) + " " + CompressionName(static_cast<uint32_t>(compression)));
      const DType dtype = static_cast<DType>(d);
      const uint64_t n = 96;  // a multiple of 32 for q8_0
      const size_t bytes = dtype == DType::kQ8_0 ? n / 32 * 34 : n * DTypeSize(dtype);
      const std::string values = vexfs::test::RandomBytes(d, bytes);
      EXPECT_EQ(RoundTrip(test::TensorSection("t", values, dtype, {3, 32}, Encoding::kNone, 0, compression)), values);
    }
  }
}

TEST(UsxfRoundTripTest, BlobAndEmptySectionsRoundTrip) {
  SectionData blob{{}, "plain bytes"};
  blob.info.name = "b";
  EXPECT_EQ(RoundTrip(blob), "plain bytes");
  SectionData empty{{}, ""};
  empty.info.name = "empty";
  EXPECT_EQ(RoundTrip(empty), "");
  blob.info.compression = static_cast<uint32_t>(Compression::kZstd);
  EXPECT_EQ(RoundTrip(blob, 4096), "plain bytes");
}

// Decoded values against the documented error bounds (usxf_quant.h).
void ExpectWithinBounds(const std::vector<float>& in, const std::vector<float>& out, Encoding e,
                        uint32_t group) {
  ASSERT_EQ(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) {
    double err = std::fabs(double{out[i]} - in[i]);
    if (e == Encoding::kF16) {
      double bound = std::fabs(in[i]) >= 6.103515625e-05 ? kF16RelativeError * std::fabs(in[i])
                                                        : kF16AbsoluteErrorSubnormal;
      ASSERT_LE(err, bound) << "element " << i << " = " << in[i];
    } else if (e == Encoding::kBF16) {
      ASSERT_LE(err, kBF16RelativeError * std::fabs(in[i])) << "element " << i;
    } else {
      size_t g0 = i / group * group;
      float max_abs = 0;
      for (size_t j = g0; j < std::min(in.size(), g0 + group); ++j) max_abs = std::max(max_abs, std::fabs(in[j]));
      double bound = max_abs / 127.0 / 2 + max_abs * 1.2e-7;
      ASSERT_LE(err, bound) << "element " << i << " in group of max " << max_abs;
    }
  }
}

TEST(UsxfRoundTripTest, EveryEncodingDecodesWithinItsDocumentedBound) {
  const std::vector<float> values = RandomFloats(4096 + 17, 3);  // a partial last group
  for (auto e : {Encoding::kF16, Encoding::kBF16, Encoding::kInt8Group}) {
    for (auto c : {Compression::kNone, Compression::kZstd}) {
      SCOPED_TRACE(std::string(EncodingName(static_cast<uint32_t>(e))) + " " +
                   CompressionName(static_cast<uint32_t>(c)));
      const uint32_t group = e == Encoding::kInt8Group ? 32 : 0;
      std::string out = RoundTrip(test::TensorSection("t", Pack(values), DType::kF32, {values.size()}, e, group, c));
      ExpectWithinBounds(values, test::Unpack<float>(out), e, group);
    }
  }
}

TEST(UsxfRoundTripTest, HalfPrecisionSourcesDecodeBackToTheirDType) {
  const std::vector<float> floats = RandomFloats(256, 4);
  std::vector<uint16_t> halves(floats.size());
  for (size_t i = 0; i < floats.size(); ++i) halves[i] = F32ToF16(floats[i]);
  // f16 values carried as int8 come back as f16 within the int8 bound.
  std::string out = RoundTrip(test::TensorSection("t", Pack(halves), DType::kF16, {256}, Encoding::kInt8Group, 64));
  std::vector<uint16_t> back = test::Unpack<uint16_t>(out);
  ASSERT_EQ(back.size(), halves.size());
  std::vector<float> in(256), got(256);
  for (size_t i = 0; i < 256; ++i) {
    in[i] = F16ToF32(halves[i]);
    got[i] = F16ToF32(back[i]);
  }
  // The bound for int8 plus one f16 rounding of the result.
  for (size_t i = 0; i < 256; ++i) EXPECT_LE(std::fabs(got[i] - in[i]), 0.1f) << i;
  // bf16 values carried as f16 (exactly representable ones) come back exactly.
  std::vector<uint16_t> bf = {F32ToBF16(1.5f), F32ToBF16(-2.0f), F32ToBF16(0.25f)};
  out = RoundTrip(test::TensorSection("t", Pack(bf), DType::kBF16, {3}, Encoding::kF16));
  EXPECT_EQ(test::Unpack<uint16_t>(out), bf);
}

TEST(UsxfRoundTripTest, KvCacheSectionKeepsEveryField) {
  KvCacheInfo kv = test::SmallKv(3, 10);
  kv.positions_contiguous = false;
  kv.positions = {5, 6, 7, 8, 9, 10, 11, 12, 40, 41};
  kv.rope_freq_scale = 0.25;
  kv.rope_scaling = RopeScaling::kLinear;
  kv.runtime = "test runtime";
  kv.k_rotation = 8;
  kv.v_rotation = 4;
  std::vector<float> values = RandomFloats(kv.ElementCount(), 9);
  const std::string bytes = Pack(values);  // SectionData only views its values
  SectionData s{KvSection("kv", kv, DType::kF32, Encoding::kBF16), bytes};
  std::string out = RoundTrip(s);
  ExpectWithinBounds(values, test::Unpack<float>(out), Encoding::kBF16, 0);

  StringSink sink;
  ASSERT_OK(WriteFile(&sink, {s}, Metadata()));
  auto mapped = MappedFile::FromBytes(sink.out);
  ASSERT_TRUE(mapped.ok());
  auto back = KvCacheInfo::FromSection((*mapped)->sections()[0]);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToMetadata().Encode(), kv.ToMetadata().Encode());
  EXPECT_EQ(back->positions, kv.positions);
  EXPECT_EQ(back->rope_scaling, RopeScaling::kLinear);
  EXPECT_EQ(back->k_rotation, 8u);
  EXPECT_EQ(back->v_rotation, 4u);
  EXPECT_EQ(back->KOffset(1), 10u * 2 * 16);
  EXPECT_EQ(back->VOffset(1), 10u * 2 * 16 + 10 * 2 * 8);
}

TEST(UsxfRoundTripTest, StreamingWriterAcceptsAnyPieceSizes) {
  const std::string a = vexfs::test::RandomBytes(1, 5000), b = vexfs::test::RandomBytes(2, 3000);
  std::vector<SectionInfo> plan(2);
  plan[0].name = "a";
  plan[0].stored_length = plan[0].raw_length = a.size();
  plan[1].name = "b";
  plan[1].stored_length = plan[1].raw_length = b.size();
  StringSink sink;
  WriterOptions options;
  options.alignment = 256;
  options.chunk_log2 = 12;  // several Merkle chunks per section
  auto writer = Writer::Start(&sink, plan, Metadata(), options);
  ASSERT_TRUE(writer.ok());
  const std::string all = a + b;
  for (size_t at = 0; at < all.size(); at += 777) {
    ASSERT_OK((*writer)->Append(std::string_view(all).substr(at, 777)));
  }
  EXPECT_CODE((*writer)->Append("x"), StatusCode::kInvalidArgument);
  ASSERT_OK((*writer)->Finish());
  auto mapped = MappedFile::FromBytes(sink.out);
  ASSERT_TRUE(mapped.ok());
  EXPECT_OK((*mapped)->Verify(VerifyLevel::kFull, 2));
  EXPECT_EQ((*mapped)->StoredBytes(0), a);
  EXPECT_EQ((*mapped)->StoredBytes(1), b);
  // The same bytes written in one piece give the same file: output depends on
  // contents only.
  StringSink again;
  auto w2 = Writer::Start(&again, plan, Metadata(), options);
  ASSERT_TRUE(w2.ok());
  ASSERT_OK((*w2)->Append(all));
  ASSERT_OK((*w2)->Finish());
  EXPECT_EQ(again.out, sink.out);
}

TEST(UsxfRoundTripTest, WriterRefusesBadPlansNamingTheSection) {
  StringSink sink;
  std::vector<SectionInfo> plan(2);
  plan[0].name = "same";
  plan[1].name = "same";
  auto w = Writer::Start(&sink, plan, Metadata());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("same"), std::string::npos) << w.status().ToString();
  plan[1].name = "t";
  plan[1].kind = static_cast<uint32_t>(SectionKind::kTensor);
  plan[1].dtype = static_cast<uint32_t>(DType::kF32);
  plan[1].shape = {10};
  plan[1].stored_length = plan[1].raw_length = 39;  // 10 f32 need 40 bytes
  w = Writer::Start(&sink, plan, Metadata());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("section 1 't'"), std::string::npos) << w.status().ToString();
  // Too few bytes before Finish.
  plan[1].stored_length = plan[1].raw_length = 40;
  auto ok = Writer::Start(&sink, {plan[1]}, Metadata());
  ASSERT_TRUE(ok.ok());
  ASSERT_OK((*ok)->Append(std::string(20, 'x')));
  Status st = (*ok)->Finish();
  EXPECT_CODE(st, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("short: 20 of 40"), std::string::npos) << st.ToString();
}

TEST(UsxfRoundTripTest, ValuesThatCannotBeCarriedAreRefusedWithTheirIndex) {
  std::vector<float> v = {1.0f, 2.0f, 70000.0f};
  std::string bytes = Pack(v);  // SectionData only views its values
  SectionData s = test::TensorSection("t", bytes, DType::kF32, {3}, Encoding::kF16);
  StringSink sink;
  Status st = WriteFile(&sink, {s}, Metadata());
  EXPECT_CODE(st, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("element 2"), std::string::npos) << st.ToString();
  v[2] = std::nanf("");
  bytes = Pack(v);
  s = test::TensorSection("t", bytes, DType::kF32, {3}, Encoding::kInt8Group, 2);
  st = WriteFile(&sink, {s}, Metadata());
  EXPECT_CODE(st, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("not finite"), std::string::npos) << st.ToString();
  EXPECT_TRUE(sink.out.empty());  // nothing written before the refusal
}

TEST(UsxfRoundTripTest, SampleFileHasEverySectionKindAndReadsBothWays) {
  for (bool compress : {false, true}) {
    test::SampleOptions options;
    options.compress = compress;
    std::string file = test::SampleFile(options);
    auto mapped = MappedFile::FromBytes(file);
    ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
    ASSERT_EQ((*mapped)->sections().size(), 3u);
    EXPECT_EQ((*mapped)->sections()[0].kind, 1u);
    EXPECT_EQ((*mapped)->sections()[1].kind, 2u);
    EXPECT_EQ((*mapped)->sections()[2].kind, 3u);
    std::string storage;
    auto notes = (*mapped)->Values(0, &storage);
    ASSERT_TRUE(notes.ok());
    EXPECT_EQ(*notes, "what I learned about retries: back off, then give up.");
    Status st;
    StreamSections(file, VerifyLevel::kFull, &st);
    EXPECT_OK(st);
    EXPECT_OK((*mapped)->Verify(VerifyLevel::kFull));
  }
}

}  // namespace
}  // namespace vexfs::usxf

namespace vexfs::usxf {
namespace {

TEST(UsxfRoundTripTest, AtomicFileSinkKeepsTheOrderOfSmallAndLargeWrites) {
  vexfs::test::TempDir dir;
  const std::string path = dir.Sub("out");
  auto sink = AtomicFileSink::Create(path);
  ASSERT_TRUE(sink.ok());
  std::string expected;
  for (size_t n : {10u, 70000u, 5u, 3u << 20, 100u, 1u << 20, 64u << 10, 7u}) {
    const std::string piece = vexfs::test::RandomBytes(n, n);
    ASSERT_OK((*sink)->Write(piece));
    expected += piece;
  }
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "nothing visible before Commit";
  ASSERT_OK((*sink)->Commit());
  auto written = ReadWholeFile(path);
  ASSERT_TRUE(written.ok());
  EXPECT_TRUE(*written == expected);
}

TEST(UsxfRoundTripTest, LargeSectionsThroughAFileVerifyByMapAndStream) {
  vexfs::test::TempDir dir;
  const std::string a = vexfs::test::RandomBytes(3, (5 << 20) + 123);
  SectionData s{{}, a};
  s.info.name = "big";
  const std::string path = dir.Sub("big.usxf");
  ASSERT_OK(WriteFileToPath(path, {s}, Metadata()));
  auto m = MappedFile::Open(path);
  ASSERT_TRUE(m.ok());
  EXPECT_OK((*m)->Verify(VerifyLevel::kFull, 2));
  EXPECT_TRUE((*m)->StoredBytes(0) == a);
  auto bytes = ReadWholeFile(path);
  ASSERT_TRUE(bytes.ok());
  Status st;
  auto streamed = StreamSections(*bytes, VerifyLevel::kFull, &st);
  EXPECT_OK(st);
}

}  // namespace
}  // namespace vexfs::usxf

namespace vexfs::usxf {
namespace {

TEST(UsxfRoundTripTest, KvPositionsMustFitInt32WithoutOverflowingTheCheck) {
  KvCacheInfo kv = test::SmallKv(1, 2);
  kv.position_start = INT64_MAX;
  EXPECT_CODE(kv.Validate(), StatusCode::kInvalidArgument);
  kv.position_start = INT32_MAX;
  EXPECT_CODE(kv.Validate(), StatusCode::kInvalidArgument);
  kv.position_start = INT32_MAX - 1;
  EXPECT_OK(kv.Validate());
  kv.positions_contiguous = false;
  kv.positions = {3, -1};
  EXPECT_CODE(kv.Validate(), StatusCode::kInvalidArgument);
}

TEST(UsxfRoundTripTest, WriterRefusesKvSectionsItsReadersWouldNotRestore) {
  KvCacheInfo kv = test::SmallKv(2, 4);
  SectionInfo s = KvSection("kv", kv, DType::kF16);
  s.stored_length = s.raw_length = kv.ElementCount() * 2;
  Metadata bad = kv.ToMetadata();
  bad.SetU64(10, 1, true);  // MHA, but 4 heads share 2 KV heads
  s.metadata = bad.Encode();
  StringSink sink;
  auto w = Writer::Start(&sink, {s}, Metadata());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("section 0 'kv'"), std::string::npos) << w.status().ToString();
  EXPECT_NE(w.status().message().find("attention"), std::string::npos) << w.status().ToString();
  EXPECT_TRUE(sink.out.empty());
}

}  // namespace
}  // namespace vexfs::usxf
