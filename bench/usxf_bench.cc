// Measures the USXF container (include/vexfs/usxf.h) against memcpy of the same
// bytes: writing one section of f16 values with the fast checksums and sealed
// (SHA-256 Merkle), opening and verifying it through a mapping, Ed25519 signing,
// and the bytes each transfer encoding (f16, bf16, int8 groups; with and without
// zstd) puts on the wire for a synthetic KV-like tensor, with the quantisation
// error it costs next to the documented bounds.
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <sstream>

#include "bench_util.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::bench {
namespace {

constexpr size_t kPiece = size_t{4} << 20;  // Append granularity of the streaming writes
constexpr uint32_t kAlignment = 4096;
constexpr uint64_t kMB = 1000000;

struct Options {
  std::vector<uint64_t> sizes_mb = {50, 500};
  std::vector<int> reps = {5, 3};  // one per size
  std::vector<int> verify_threads = {1, 2};
  uint64_t kv_elements = uint64_t{8} << 20;
  uint32_t head_dim = 64;
  int codec_reps = 3;
  int sign_ops = 2000;
  std::string dir = "/dev/shm";  // its work directory, vexfs-usxf-bench, goes here
  std::string markdown;
};

// ---------------------------------------------------------------------------
// Data.

// Standard normal samples (Box-Muller over splitmix64); the same for every run.
class Normal {
 public:
  explicit Normal(uint64_t seed) : rng_(seed) {}
  float Next() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    double u1 = static_cast<double>(rng_.Next() >> 11) * 0x1p-53;
    double u2 = static_cast<double>(rng_.Next() >> 11) * 0x1p-53;
    double r = std::sqrt(-2 * std::log1p(-u1));  // 1 - u1 is in (0, 1]
    double t = 2 * std::numbers::pi * u2;
    spare_ = static_cast<float>(r * std::sin(t));
    have_spare_ = true;
    return static_cast<float>(r * std::cos(t));
  }

 private:
  Rng rng_;
  bool have_spare_ = false;
  float spare_ = 0;
};

// `bytes` of f16 values drawn from N(0, 1), as a runtime would hold a KV cache.
std::string F16Normal(uint64_t bytes, uint64_t seed) {
  Normal normal(seed);
  std::string out(bytes, '\0');
  for (uint64_t i = 0; i + 1 < bytes; i += 2) {
    uint16_t h = usxf::F32ToF16(normal.Next());
    std::memcpy(out.data() + i, &h, 2);
  }
  return out;
}

// A synthetic stand-in for K or V rows: `channels` channels per row, each with its
// own scale (log-uniform over two orders of magnitude) and a few outlier channels
// far above the rest, the shape real attention activations have. Not real data.
struct KvLike {
  std::vector<float> values;
  uint32_t channels = 0;
};

constexpr uint32_t kOutlierChannels[] = {5, 23, 41};
constexpr double kOutlierScale = 30;

KvLike MakeKvLike(uint64_t elements, uint32_t channels) {
  KvLike kv;
  kv.channels = channels;
  std::vector<double> scales;
  Rng rng(77);
  for (uint32_t c = 0; c < channels; ++c) {
    double u = static_cast<double>(rng.Next() >> 11) * 0x1p-53;
    scales.push_back(0.05 * std::pow(100.0, u));  // 0.05 .. 5
  }
  for (uint32_t c : kOutlierChannels) {
    if (c < channels) scales[c] = kOutlierScale;
  }
  Normal normal(78);
  kv.values.resize(elements);
  for (uint64_t i = 0; i < elements; ++i) {
    kv.values[i] = static_cast<float>(scales[i % channels] * normal.Next());
  }
  return kv;
}

// Memory allocated and touched once up front, so no timed copy pays page faults.
std::unique_ptr<char[]> Prefaulted(size_t n) {
  auto p = std::make_unique_for_overwrite<char[]>(n);
  std::memset(p.get(), 0, n);
  return p;
}

// Copies into a pre-faulted buffer: the format's own cost, directly comparable
// with memcpy into the same kind of buffer.
class BufferSink : public usxf::ByteSink {
 public:
  BufferSink(char* buffer, size_t capacity) : buffer_(buffer), capacity_(capacity) {}
  Status Write(std::string_view bytes) override {
    if (bytes.size() > capacity_ - used_) return Status::NoSpace("benchmark buffer full");
    std::memcpy(buffer_ + used_, bytes.data(), bytes.size());
    used_ += bytes.size();
    return Status::Ok();
  }
  std::string_view bytes() const { return {buffer_, used_}; }

 private:
  char* buffer_;
  size_t capacity_;
  size_t used_ = 0;
};

// ---------------------------------------------------------------------------
// Writing, opening and verifying one section of f16 values.

usxf::SectionInfo F16Section(uint64_t bytes) {
  usxf::SectionInfo s;
  s.name = "kv";
  s.kind = static_cast<uint32_t>(usxf::SectionKind::kTensor);
  s.dtype = static_cast<uint32_t>(usxf::DType::kF16);
  s.shape = {bytes / 2};
  s.stored_length = s.raw_length = bytes;
  return s;
}

// Streams `data` as one section: Start, Append in 4 MiB pieces, Finish.
void StreamSection(usxf::ByteSink* sink, std::string_view data, bool seal) {
  usxf::WriterOptions options;
  options.alignment = kAlignment;
  options.seal = seal;
  auto writer =
      CheckValue(usxf::Writer::Start(sink, {F16Section(data.size())}, usxf::Metadata(), options),
                 "start writer");
  for (size_t at = 0; at < data.size(); at += kPiece) {
    Check(writer->Append(data.substr(at, kPiece)), "append");
  }
  Check(writer->Finish(), "finish");
}

double TimeMemcpy(char* dst, std::string_view data) {
  double start = NowSeconds();
  std::memcpy(dst, data.data(), data.size());
  return NowSeconds() - start;
}

// memcpy in the writer's 4 MiB pieces. glibc copies a large enough block with
// non-temporal stores (past a threshold derived from the L3 size), which a
// streaming writer's pieces never reach; this row shows what that is worth.
double TimeMemcpyPieces(char* dst, std::string_view data) {
  double start = NowSeconds();
  for (size_t at = 0; at < data.size(); at += kPiece) {
    std::memcpy(dst + at, data.data() + at, std::min(kPiece, data.size() - at));
  }
  return NowSeconds() - start;
}

// Writes into `buffer`; `file` gets the bytes written (the whole file).
double TimeBufferWrite(char* buffer, size_t capacity, std::string_view data, bool seal,
                       std::string_view* file) {
  BufferSink sink(buffer, capacity);
  double start = NowSeconds();
  StreamSection(&sink, data, seal);
  double elapsed = NowSeconds() - start;
  *file = sink.bytes();
  return elapsed;
}

void Unlink(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) DieErrno("unlink '" + path + "'");
}

// Through AtomicFileSink, Commit (fsync, rename, directory sync) included. The old
// file is removed first, untimed, so every write creates a new file.
double TimeFileWrite(const std::string& path, std::string_view data, bool seal) {
  Unlink(path);
  double start = NowSeconds();
  auto sink = CheckValue(usxf::AtomicFileSink::Create(path), "create " + path);
  StreamSection(sink.get(), data, seal);
  Check(sink->Commit(), "commit " + path);
  return NowSeconds() - start;
}

// The same bytes with write() and fsync into a new plain file: the file baseline.
double TimePlainWrite(const std::string& path, std::string_view data) {
  Unlink(path);
  double start = NowSeconds();
  WriteFile(path, data, true);
  double elapsed = NowSeconds() - start;
  Unlink(path);
  return elapsed;
}

struct OpenVerifyTimes {
  double open_s = 0, verify_s = 0, close_s = 0;
  double cpu_s = 0;  // CPU time of all threads during Open and Verify
};

// User and system time of the whole process so far.
double CpuSeconds() {
  rusage usage;
  if (::getrusage(RUSAGE_SELF, &usage) != 0) DieErrno("getrusage");
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// MappedFile::Open, Verify, then closing (unmapping), each timed on its own.
OpenVerifyTimes TimeOpenVerify(const std::string& path, usxf::VerifyLevel level, int threads) {
  OpenVerifyTimes t;
  double cpu = CpuSeconds();
  double start = NowSeconds();
  auto file = CheckValue(usxf::MappedFile::Open(path), "open " + path);
  double opened = NowSeconds();
  Check(file->Verify(level, threads), "verify " + path);
  double verified = NowSeconds();
  t.cpu_s = CpuSeconds() - cpu;
  file.reset();
  t.open_s = opened - start;
  t.verify_s = verified - opened;
  t.close_s = NowSeconds() - verified;
  return t;
}

// SignFile end to end on a fresh copy of the sealed file (the copy is not timed).
double TimeSignFile(const std::string& path, std::string_view sealed, const usxf::SigningKey& key) {
  Unlink(path);
  WriteFile(path, sealed, false);
  double start = NowSeconds();
  Check(usxf::SignFile(path, key), "sign " + path);
  return NowSeconds() - start;
}

struct SizeResult {
  uint64_t bytes = 0;
  int reps = 0;
  uint64_t file_bytes = 0;
  std::vector<double> memcpy_s, memcpy_pieces_s, buffer_fast_s, buffer_sealed_s, plain_file_s,
      file_fast_s, file_sealed_s, open_s, open_verify_fast_s, close_s, sign_file_s;
  std::map<int, std::vector<double>> verify_full_s;      // by thread count
  std::map<int, std::vector<double>> verify_full_cores;  // CPU time / wall time
};

struct Scratch {
  std::string dir;
  std::unique_ptr<char[]> buffer;  // the memcpy target and the buffer sink
  size_t capacity = 0;
  usxf::SigningKey key;
};

// One repetition of every measurement at one size, interleaved so that a busy
// moment on the machine spreads over all of them instead of one.
void Round(const Options& o, std::string_view data, Scratch* s, SizeResult* r) {
  std::string_view file;
  r->memcpy_s.push_back(TimeMemcpy(s->buffer.get(), data));
  r->memcpy_pieces_s.push_back(TimeMemcpyPieces(s->buffer.get(), data));
  r->buffer_fast_s.push_back(TimeBufferWrite(s->buffer.get(), s->capacity, data, false, &file));
  r->buffer_sealed_s.push_back(TimeBufferWrite(s->buffer.get(), s->capacity, data, true, &file));
  r->file_bytes = file.size();
  r->plain_file_s.push_back(TimePlainWrite(s->dir + "/plain.bin", data));
  r->file_fast_s.push_back(TimeFileWrite(s->dir + "/fast.usxf", data, false));
  Unlink(s->dir + "/fast.usxf");
  const std::string sealed = s->dir + "/sealed.usxf";
  r->file_sealed_s.push_back(TimeFileWrite(sealed, data, true));
  OpenVerifyTimes fast = TimeOpenVerify(sealed, usxf::VerifyLevel::kFast, 1);
  r->open_verify_fast_s.push_back(fast.open_s + fast.verify_s);
  r->open_s.push_back(fast.open_s);
  r->close_s.push_back(fast.close_s);
  for (int t : o.verify_threads) {
    OpenVerifyTimes full = TimeOpenVerify(sealed, usxf::VerifyLevel::kFull, t);
    r->verify_full_s[t].push_back(full.open_s + full.verify_s);
    r->verify_full_cores[t].push_back(full.cpu_s / (full.open_s + full.verify_s));
  }
  // The buffer still holds the sealed file written above.
  r->sign_file_s.push_back(TimeSignFile(s->dir + "/signed.usxf", file, s->key));
}

// After the last round: the signed file must pass a full check against a keyring
// holding the signer's key, or the timings above measured something broken.
void CheckSigned(Scratch* s) {
  std::string keys = FreshDir(s->dir, "keyring");
  Check(usxf::SavePublicKey(keys + "/bench.pub", s->key.public_key), "save public key");
  auto keyring = CheckValue(usxf::Keyring::Load(keys), "load keyring");
  usxf::VerifyOptions options;
  options.keyring = &keyring;
  options.threads = 2;
  Check(usxf::VerifyFile(s->dir + "/signed.usxf", options).status, "verify signed file");
}

SizeResult MeasureSize(const Options& o, std::string_view data, int reps, Scratch* s) {
  SizeResult r;
  r.bytes = data.size();
  r.reps = reps;
  for (int rep = 0; rep < reps; ++rep) {
    Progress("usxf: " + std::to_string(data.size() / kMB) + " MB, repetition " +
             std::to_string(rep + 1) + " of " + std::to_string(reps));
    Round(o, data, s, &r);
  }
  CheckSigned(s);
  for (const char* name : {"sealed.usxf", "signed.usxf"}) Unlink(s->dir + "/" + name);
  return r;
}

// ---------------------------------------------------------------------------
// Ed25519 on the 50-byte message a signature covers.

struct SignatureResult {
  size_t message_bytes = 0;
  std::vector<double> sign_s, verify_s;
};

SignatureResult MeasureSignatures(const usxf::SigningKey& key, int ops) {
  usxf::Digest root;
  Rng rng(5);
  for (uint8_t& b : root) b = static_cast<uint8_t>(rng.Next());
  const std::string message = usxf::SignedMessage(root);
  SignatureResult r;
  r.message_bytes = message.size();
  for (int i = 0; i < ops; ++i) {
    double start = NowSeconds();
    auto signature = CheckValue(key.Sign(message), "sign");
    double signed_at = NowSeconds();
    bool ok = usxf::VerifySignature(key.public_key, message, signature);
    double verified_at = NowSeconds();
    if (!ok) Check(Status::Corruption("a fresh signature does not verify"), "verify signature");
    r.sign_s.push_back(signed_at - start);
    r.verify_s.push_back(verified_at - signed_at);
  }
  return r;
}

// ---------------------------------------------------------------------------
// Transfer encodings of the KV-like tensor: bytes, speed and error.

struct Codec {
  usxf::Encoding encoding;
  uint32_t group_size;
  usxf::Compression compression;
};

std::vector<Codec> Codecs() {
  std::vector<Codec> out;
  for (auto compression : {usxf::Compression::kNone, usxf::Compression::kZstd}) {
    out.push_back({usxf::Encoding::kNone, 0, compression});
    out.push_back({usxf::Encoding::kF16, 0, compression});
    out.push_back({usxf::Encoding::kBF16, 0, compression});
    for (uint32_t g : {32u, 64u, 128u}) out.push_back({usxf::Encoding::kInt8Group, g, compression});
  }
  return out;
}

std::string CodecName(const Codec& c) {
  if (c.encoding == usxf::Encoding::kNone) return "none (f32)";
  std::string name = usxf::EncodingName(static_cast<uint32_t>(c.encoding));
  if (c.group_size != 0) name += " (group " + std::to_string(c.group_size) + ")";
  return name;
}

// Round-trip error, measured against the documented bound.
struct ErrorStats {
  double max_over_tensor_max = 0;  // max |decoded - x| / max |x| over the tensor
  double max_over_group_max = 0;   // int8_group: max over groups of that ratio
  double max_relative = 0;         // f16 / bf16: max |decoded - x| / |x| where the bound holds
  double max_abs_subnormal = 0;    // f16: max |decoded - x| for |x| below 2^-14
  double relative_rms = 0;         // sqrt(sum of squared errors / sum of squares)
  double worst_channel_rms = 0;    // the same ratio for the worst channel
  double bound = 0;                // the documented bound for the headline ratio
  bool within = true;
};

void GroupErrors(const Codec& c, const float* x, const float* d, uint64_t n, ErrorStats* e) {
  const uint64_t g = c.group_size;
  for (uint64_t begin = 0; begin < n; begin += g) {
    double max_x = 0, max_err = 0;
    for (uint64_t i = begin; i < std::min(n, begin + g); ++i) {
      max_x = std::max(max_x, std::fabs(double{x[i]}));
      max_err = std::max(max_err, std::fabs(double{d[i]} - x[i]));
    }
    if (max_x > 0) e->max_over_group_max = std::max(e->max_over_group_max, max_err / max_x);
  }
  // scale / 2 = max / 254, plus f32 rounding of the scale and of the product.
  e->bound = 1.0 / 254;
  e->within = e->max_over_group_max <= e->bound + 0x1p-22;
}

void HalfErrors(const Codec& c, const float* x, const float* d, uint64_t n, ErrorStats* e) {
  const bool f16 = c.encoding == usxf::Encoding::kF16;
  const double normal_min = f16 ? 0x1p-14 : std::numeric_limits<float>::min();
  for (uint64_t i = 0; i < n; ++i) {
    double ax = std::fabs(double{x[i]}), err = std::fabs(double{d[i]} - x[i]);
    if (ax >= normal_min) {
      e->max_relative = std::max(e->max_relative, err / ax);
    } else {
      e->max_abs_subnormal = std::max(e->max_abs_subnormal, err);
    }
  }
  e->bound = f16 ? usxf::kF16RelativeError : usxf::kBF16RelativeError;
  e->within = e->max_relative <= e->bound &&
              (!f16 || e->max_abs_subnormal <= usxf::kF16AbsoluteErrorSubnormal);
}

ErrorStats MeasureError(const Codec& c, const KvLike& kv, std::string_view decoded) {
  const float* x = kv.values.data();
  const float* d = reinterpret_cast<const float*>(decoded.data());
  const uint64_t n = kv.values.size();
  ErrorStats e;
  double max_x = 0, max_err = 0, sum_err = 0, sum_x = 0;
  std::vector<double> channel_err(kv.channels), channel_x(kv.channels);
  for (uint64_t i = 0; i < n; ++i) {
    double err = double{d[i]} - x[i];
    max_x = std::max(max_x, std::fabs(double{x[i]}));
    max_err = std::max(max_err, std::fabs(err));
    channel_err[i % kv.channels] += err * err;
    channel_x[i % kv.channels] += double{x[i]} * x[i];
  }
  for (uint32_t ch = 0; ch < kv.channels; ++ch) {
    sum_err += channel_err[ch];
    sum_x += channel_x[ch];
    e.worst_channel_rms = std::max(e.worst_channel_rms, std::sqrt(channel_err[ch] / channel_x[ch]));
  }
  e.max_over_tensor_max = max_err / max_x;
  e.relative_rms = std::sqrt(sum_err / sum_x);
  if (c.encoding == usxf::Encoding::kInt8Group) GroupErrors(c, x, d, n, &e);
  if (c.encoding == usxf::Encoding::kF16 || c.encoding == usxf::Encoding::kBF16) {
    HalfErrors(c, x, d, n, &e);
  }
  if (c.encoding == usxf::Encoding::kNone) e.within = max_err == 0;
  return e;
}

struct CodecResult {
  Codec codec;
  uint64_t stored_bytes = 0, file_bytes = 0;
  std::vector<double> encode_s, decode_s;
  bool zero_copy = false;  // decoding hands out the stored bytes in place
  ErrorStats error;
};

usxf::SectionData KvSectionData(const Codec& c, const KvLike& kv) {
  usxf::SectionData data;
  data.info.name = "kv";
  data.info.kind = static_cast<uint32_t>(usxf::SectionKind::kTensor);
  data.info.dtype = static_cast<uint32_t>(usxf::DType::kF32);
  data.info.encoding = static_cast<uint32_t>(c.encoding);
  data.info.group_size = c.group_size;
  data.info.compression = static_cast<uint32_t>(c.compression);
  data.info.shape = {kv.values.size() / kv.channels, kv.channels};
  data.values = std::string_view(reinterpret_cast<const char*>(kv.values.data()),
                                 kv.values.size() * sizeof(float));
  return data;
}

// Encode = WriteFile (quantise, compress, checksum, write) into a pre-faulted
// buffer; decode = parse that file and Values (decompress, dequantise).
CodecResult MeasureCodec(const Codec& c, const KvLike& kv, int reps, Scratch* s) {
  CodecResult r;
  r.codec = c;
  const usxf::SectionData data = KvSectionData(c, kv);
  usxf::WriterOptions options;
  options.seal = false;
  std::string_view file;
  std::string storage;
  std::string_view values;
  for (int rep = 0; rep < reps; ++rep) {
    BufferSink sink(s->buffer.get(), s->capacity);
    double start = NowSeconds();
    Check(usxf::WriteFile(&sink, {data}, usxf::Metadata(), options), "write " + CodecName(c));
    r.encode_s.push_back(NowSeconds() - start);
    file = sink.bytes();
    start = NowSeconds();
    auto mapped = CheckValue(usxf::MappedFile::FromBytes(file), "parse " + CodecName(c));
    values = CheckValue(mapped->Values(0, &storage), "decode " + CodecName(c));
    r.decode_s.push_back(NowSeconds() - start);
    r.stored_bytes = mapped->sections()[0].stored_length;
    r.file_bytes = mapped->summary().file_length;
    r.zero_copy = values.data() == mapped->StoredBytes(0).data();
  }
  if (values.size() != data.values.size()) {
    Check(Status::Corruption("decoded length differs"), "decode " + CodecName(c));
  }
  r.error = MeasureError(c, kv, values);
  return r;
}

// ---------------------------------------------------------------------------
// Reporting.

double GBps(uint64_t bytes, double seconds) { return bytes / seconds / 1e9; }

std::string SizeLabel(uint64_t bytes) { return std::to_string(bytes / kMB) + " MB"; }

struct Row {
  std::string label;
  std::vector<double> SizeResult::*samples;
};

const std::vector<Row>& WriteRows() {
  static const std::vector<Row> rows = {
      {"memcpy into a pre-faulted buffer (ceiling)", &SizeResult::memcpy_s},
      {"memcpy in 4 MiB pieces", &SizeResult::memcpy_pieces_s},
      {"write, fast checksums, into a pre-faulted buffer", &SizeResult::buffer_fast_s},
      {"write, fast checksums, to a new file on /dev/shm (AtomicFileSink)",
       &SizeResult::file_fast_s},
      {"plain write()+fsync of the same bytes to a new file on /dev/shm",
       &SizeResult::plain_file_s},
      {"write sealed (SHA-256 Merkle), into a pre-faulted buffer", &SizeResult::buffer_sealed_s},
      {"write sealed, to a new file on /dev/shm", &SizeResult::file_sealed_s},
      {"mmap open + verify fast (page cache warm)", &SizeResult::open_verify_fast_s},
  };
  return rows;
}

void AddThroughputRow(Table* t, const std::string& label, const std::vector<SizeResult>& sizes,
                      const std::function<const std::vector<double>&(const SizeResult&)>& get) {
  std::vector<std::string> row = {label};
  for (const SizeResult& r : sizes) {
    double s = Median(get(r));
    row.push_back(Fixed(GBps(r.bytes, s), 2));
    row.push_back(Fixed(Median(r.memcpy_s) / s, 2));
  }
  t->AddRow(row);
}

Table WriteTable(const Options& o, const std::vector<SizeResult>& sizes) {
  std::vector<std::string> header = {"operation"};
  for (const SizeResult& r : sizes) {
    header.push_back(SizeLabel(r.bytes) + ": GB/s");
    header.push_back("/ memcpy");
  }
  Table t(header);
  for (const Row& row : WriteRows()) {
    AddThroughputRow(&t, row.label, sizes, [&](const SizeResult& r) -> const std::vector<double>& {
      return r.*row.samples;
    });
  }
  for (int threads : o.verify_threads) {
    AddThroughputRow(&t,
                     "mmap open + verify full (SHA-256 Merkle), " + std::to_string(threads) +
                         (threads == 1 ? " thread" : " threads"),
                     sizes, [&](const SizeResult& r) -> const std::vector<double>& {
                       return r.verify_full_s.at(threads);
                     });
  }
  AddThroughputRow(&t, "SignFile end to end (full verify, digests, rewrite, Ed25519)", sizes,
                   [](const SizeResult& r) -> const std::vector<double>& { return r.sign_file_s; });
  return t;
}

// Seconds per byte the Merkle tree adds to a buffer write, as a rate.
double MerkleGBps(const SizeResult& r) {
  return GBps(r.bytes, Median(r.buffer_sealed_s) - Median(r.buffer_fast_s));
}

Table SignatureTable(const SignatureResult& sig, const SizeResult& first) {
  Table t({"operation", "median", "per second"});
  double s = Median(sig.sign_s), v = Median(sig.verify_s), f = Median(first.sign_file_s);
  t.AddRow({"Sign (" + std::to_string(sig.message_bytes) + "-byte message)",
            Fixed(s * 1e6, 1) + " us", Fixed(1 / s, 0)});
  t.AddRow({"VerifySignature", Fixed(v * 1e6, 1) + " us", Fixed(1 / v, 0)});
  t.AddRow({"SignFile, " + SizeLabel(first.bytes) + " sealed file, end to end", Millis(f) + " ms",
            Fixed(1 / f, 1)});
  return t;
}

std::string Speed(uint64_t bytes, const std::vector<double>& samples) {
  return Fixed(GBps(bytes, Median(samples)), 2);
}

Table CodecTable(const std::vector<CodecResult>& codecs, uint64_t n) {
  Table t({"encoding", "compression", "stored MB", "bytes/element", "of f32", "file MB",
           "encode GB/s", "decode GB/s"});
  const uint64_t f32_bytes = n * sizeof(float);
  for (const CodecResult& c : codecs) {
    t.AddRow({CodecName(c.codec), usxf::CompressionName(static_cast<uint32_t>(c.codec.compression)),
              Fixed(double(c.stored_bytes) / kMB, 2), Fixed(double(c.stored_bytes) / n, 3),
              Fixed(100.0 * c.stored_bytes / f32_bytes, 1) + "%",
              Fixed(double(c.file_bytes) / kMB, 2), Speed(f32_bytes, c.encode_s),
              c.zero_copy ? "zero copy" : Speed(f32_bytes, c.decode_s)});
  }
  return t;
}

std::string Sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2e", v);
  return buf;
}

std::string HeadlineError(const CodecResult& c) {
  switch (c.codec.encoding) {
    case usxf::Encoding::kInt8Group:
      return Sci(c.error.max_over_group_max) + " of the group's max";
    case usxf::Encoding::kF16:
    case usxf::Encoding::kBF16:
      return Sci(c.error.max_relative) + " relative";
    default:
      return "0 (exact)";
  }
}

std::string BoundText(const CodecResult& c) {
  switch (c.codec.encoding) {
    case usxf::Encoding::kInt8Group:
      return Sci(c.error.bound) + " (1/254)";
    case usxf::Encoding::kF16:
      return Sci(c.error.bound) + " (2^-11)";
    case usxf::Encoding::kBF16:
      return Sci(c.error.bound) + " (2^-8)";
    default:
      return "0";
  }
}

// Errors do not depend on compression (zstd is lossless): one row per encoding.
Table ErrorTable(const std::vector<CodecResult>& codecs) {
  Table t({"encoding", "measured max error", "documented bound", "within", "max error / tensor max",
           "relative RMS error", "worst channel relative RMS"});
  for (const CodecResult& c : codecs) {
    if (c.codec.compression != usxf::Compression::kNone) continue;
    t.AddRow({CodecName(c.codec), HeadlineError(c), BoundText(c), c.error.within ? "yes" : "NO",
              Sci(c.error.max_over_tensor_max), Sci(c.error.relative_rms),
              Sci(c.error.worst_channel_rms)});
  }
  return t;
}

std::string PerSize(const std::vector<SizeResult>& sizes,
                    const std::function<std::string(const SizeResult&)>& describe) {
  std::string out;
  for (const SizeResult& r : sizes) {
    out += (out.empty() ? "" : "; ") + SizeLabel(r.bytes) + ": " + describe(r);
  }
  return out;
}

// "5 runs (50 MB) and 3 runs (500 MB)"
std::string RepsText(const std::vector<SizeResult>& sizes) {
  std::string out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += i + 1 == sizes.size() ? " and " : ", ";
    out += std::to_string(sizes[i].reps) + " runs (" + SizeLabel(sizes[i].bytes) + ")";
  }
  return out;
}

// "met", "not met", or "met at 50 MB, not at 500 MB" when the sizes disagree.
std::string Verdict(const std::vector<SizeResult>& sizes, const std::vector<bool>& met) {
  std::string yes, no;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::string& list = met[i] ? yes : no;
    list += (list.empty() ? "" : ", ") + SizeLabel(sizes[i].bytes);
  }
  if (no.empty()) return "met";
  if (yes.empty()) return "not met";
  return "met at " + yes + ", not at " + no;
}

// "- Goal: WHAT at least GOAL of memcpy: **VERDICT** (the numbers at every size)."
std::string GoalLine(const std::string& what, double goal, const std::vector<SizeResult>& sizes,
                     std::vector<double> SizeResult::*samples, bool* all_met) {
  std::vector<bool> met;
  for (const SizeResult& r : sizes) met.push_back(Median(r.memcpy_s) / Median(r.*samples) >= goal);
  *all_met = std::find(met.begin(), met.end(), false) == met.end();
  return "- Goal: " + what + " at least " + Fixed(goal * 100, 0) + "% of memcpy: **" +
         Verdict(sizes, met) + "** (" +
         PerSize(sizes,
                 [&](const SizeResult& r) {
                   return Speed(r.bytes, r.*samples) + " GB/s against " +
                          Speed(r.bytes, r.memcpy_s) + " GB/s, " +
                          Fixed(Median(r.memcpy_s) / Median(r.*samples), 2);
                 }) +
         ").\n";
}

std::string Goals(const std::vector<SizeResult>& sizes, nlohmann::json* json) {
  bool write_met = false, verify_met = false;
  std::string out = GoalLine("writing with the fast checksums (into memory)", 0.5, sizes,
                             &SizeResult::buffer_fast_s, &write_met);
  // A file adds the kernel's copy, which no format can avoid: compare it with a
  // plain write of the same bytes instead.
  out += "- The same write to a file on /dev/shm: " +
         PerSize(sizes,
                 [](const SizeResult& r) {
                   return Fixed(Median(r.memcpy_s) / Median(r.file_fast_s), 2) + " of memcpy, " +
                          Fixed(Median(r.plain_file_s) / Median(r.file_fast_s), 2) +
                          " of a plain write() of the same bytes";
                 }) +
         ".\n";
  out +=
      GoalLine("mmap open + fast verify", 0.8, sizes, &SizeResult::open_verify_fast_s, &verify_met);
  (*json)["goals"] = {{"write_fast_half_of_memcpy", write_met},
                      {"open_verify_fast_80pct_of_memcpy", verify_met}};
  return out;
}

// "1 thread: 1.00 (50 MB), 1.00 (500 MB); 2 threads: 1.85 (50 MB), 1.90 (500 MB)"
std::string CoresText(const std::vector<SizeResult>& sizes) {
  std::string out;
  for (const auto& [threads, unused] : sizes.front().verify_full_cores) {
    out += (out.empty() ? "" : "; ") + std::to_string(threads) +
           (threads == 1 ? " thread: " : " threads: ");
    for (size_t i = 0; i < sizes.size(); ++i) {
      out += (i ? ", " : "") + Fixed(Median(sizes[i].verify_full_cores.at(threads)), 2) + " (" +
             SizeLabel(sizes[i].bytes) + ")";
    }
  }
  return out;
}

std::string WriteSection(const Options& o, const std::vector<SizeResult>& sizes,
                         nlohmann::json* json) {
  std::ostringstream md;
  md << "One section of f16 values (N(0, 1) samples converted with `F32ToF16`; kind tensor, "
        "encoding none, shape {n}) written with `Writer::Start`, `Append` in 4 MiB pieces and "
        "`Finish` (alignment 4096), then opened with `MappedFile::Open` and checked with "
        "`Verify`. Medians of "
     << RepsText(sizes)
     << ", the measurements of a run interleaved. GB/s = 10^9 bytes of section data per "
        "second; \"/ memcpy\" is the throughput as a fraction of one memcpy of the same bytes "
        "into a buffer touched beforehand (no page faults), the ceiling for any copy. \"Into a "
        "pre-faulted buffer\" is a `ByteSink` copying into such a buffer: the format's own "
        "cost. \"memcpy in 4 MiB pieces\" copies in the writer's piece size: glibc switches to "
        "non-temporal stores only for one large enough copy, so this is the ceiling for a writer "
        "that streams. Files are on /dev/shm (tmpfs), where fsync costs nothing, so the file "
        "rows add only the kernel's copy into newly allocated pages (the plain `write()` row is "
        "that cost alone). The verify rows read the file just written, so its pages are in memory "
        "(warm page cache); they include `Open` (mmap plus header and footer checks: "
     << PerSize(sizes, [](const SizeResult& r) { return Millis(Median(r.open_s)) + " ms"; })
     << ") but not closing, whose munmap takes "
     << PerSize(sizes, [](const SizeResult& r) { return Millis(Median(r.close_s)) + " ms"; })
     << ". \"Fast\" is XXH3-128 over each section plus the zero padding; \"sealed\" and "
        "\"full\" add the SHA-256 Merkle tree over 1 MiB chunks.\n\n"
     << WriteTable(o, sizes).Markdown() << "\n"
     << "The SHA-256 Merkle tree's own cost (sealed minus fast write into memory), as a "
        "hashing rate: "
     << PerSize(sizes, [](const SizeResult& r) { return Fixed(MerkleGBps(r), 2) + " GB/s"; })
     << ". Cores the full verify kept busy (CPU time / wall time, median; the machine is "
        "shared, so a thread may wait for a core): "
     << CoresText(sizes) << ".\n\n"
     << Goals(sizes, json) << "\n";
  return md.str();
}

std::string SignatureSection(const SignatureResult& sig, const SizeResult& first) {
  std::ostringstream md;
  md << "### Ed25519 signatures\n\n"
     << "`SigningKey::Sign` and `VerifySignature` of the " << sig.message_bytes
     << "-byte message a signature covers (`SignedMessage(root)`), medians of " << sig.sign_s.size()
     << " operations each. `SignFile` (median of the runs above) verifies the sealed file "
        "fully (2 threads), computes its digests, signs the root and rewrites the file through "
        "`AtomicFileSink`.\n\n"
     << SignatureTable(sig, first).Markdown() << "\n";
  return md.str();
}

std::string CodecSection(const Options& o, const std::vector<CodecResult>& codecs) {
  std::ostringstream md;
  const uint64_t n = o.kv_elements;
  md << "### Bytes on the wire by transfer encoding\n\n"
     << "A synthetic KV-like f32 tensor (not real model data): " << n << " elements as "
     << n / o.head_dim << " rows of " << o.head_dim
     << " channels, each channel N(0, 1) times its own scale (log-uniform over 0.05-5, two "
        "orders of magnitude), "
     << std::size(kOutlierChannels) << " of them outliers at " << Fixed(kOutlierScale, 0)
     << ". Written with `WriteFile` (one section, not sealed) into memory; zstd at the "
        "library's level 3. Encode = `WriteFile` (quantise, compress, checksum, copy); decode "
        "= parse the file and `Values` (decompress, dequantise back to f32); GB/s of f32 "
        "values, medians of "
     << o.codec_reps
     << " runs. \"stored MB\" is the section's stored length (MB = 10^6 bytes); \"file MB\" "
        "adds header, padding and footer.\n\n"
     << CodecTable(codecs, n).Markdown() << "\n"
     << "Round-trip error against the documented bounds (include/vexfs/usxf_quant.h). "
        "int8_group: max |decoded - x| over its group's max |x| (bound: scale / 2 = max / 254). "
        "f16 / bf16: max |decoded - x| / |x| over values in the normal range (f16: |x| >= "
        "2^-14; below that the bound is an absolute 2^-25, also checked for \"within\"). "
        "Groups run along the channels of a row, so a group holding an outlier channel "
        "quantises its small channels coarsely; the worst channel's relative RMS error shows "
        "how much.\n\n"
     << ErrorTable(codecs).Markdown() << "\n";
  return md.str();
}

std::string Markdown(const Options& o, const std::vector<SizeResult>& sizes,
                     const SignatureResult& sig, const std::vector<CodecResult>& codecs,
                     nlohmann::json* json) {
  return "## USXF container\n\n" + WriteSection(o, sizes, json) +
         SignatureSection(sig, sizes.front()) + CodecSection(o, codecs);
}

nlohmann::json SizeJson(const SizeResult& r) {
  nlohmann::json j = {{"bytes", r.bytes},
                      {"file_bytes", r.file_bytes},
                      {"reps", r.reps},
                      {"memcpy_s", r.memcpy_s},
                      {"memcpy_4mib_pieces_s", r.memcpy_pieces_s},
                      {"write_fast_buffer_s", r.buffer_fast_s},
                      {"write_fast_file_s", r.file_fast_s},
                      {"plain_file_write_s", r.plain_file_s},
                      {"write_sealed_buffer_s", r.buffer_sealed_s},
                      {"write_sealed_file_s", r.file_sealed_s},
                      {"open_s", r.open_s},
                      {"open_verify_fast_s", r.open_verify_fast_s},
                      {"close_s", r.close_s},
                      {"sign_file_s", r.sign_file_s}};
  for (const auto& [threads, samples] : r.verify_full_s) {
    j["open_verify_full_s"][std::to_string(threads)] = samples;
    j["open_verify_full_cores"][std::to_string(threads)] = r.verify_full_cores.at(threads);
  }
  return j;
}

nlohmann::json CodecJson(const CodecResult& c, uint64_t n) {
  return {{"encoding", usxf::EncodingName(static_cast<uint32_t>(c.codec.encoding))},
          {"group_size", c.codec.group_size},
          {"compression", usxf::CompressionName(static_cast<uint32_t>(c.codec.compression))},
          {"elements", n},
          {"stored_bytes", c.stored_bytes},
          {"file_bytes", c.file_bytes},
          {"encode_s", c.encode_s},
          {"decode_s", c.decode_s},
          {"zero_copy", c.zero_copy},
          {"max_error_over_group_max", c.error.max_over_group_max},
          {"max_relative_error", c.error.max_relative},
          {"max_abs_error_subnormal", c.error.max_abs_subnormal},
          {"max_error_over_tensor_max", c.error.max_over_tensor_max},
          {"relative_rms_error", c.error.relative_rms},
          {"worst_channel_relative_rms", c.error.worst_channel_rms},
          {"bound", c.error.bound},
          {"within_bound", c.error.within}};
}

// ---------------------------------------------------------------------------

bool ParseOptions(int argc, char** argv, Options* o) {
  CLI::App app{"USXF container: write, verify and sign against memcpy; transfer encodings"};
  app.add_option("--sizes-mb", o->sizes_mb, "section sizes in MB (10^6 bytes)")->delimiter(',');
  app.add_option("--reps", o->reps, "repetitions (median), one per size or one for all")
      ->delimiter(',');
  app.add_option("--verify-threads", o->verify_threads, "thread counts for the full verify")
      ->delimiter(',');
  app.add_option("--kv-elements", o->kv_elements, "elements of the KV-like f32 tensor");
  app.add_option("--head-dim", o->head_dim, "channels per row of the KV-like tensor");
  app.add_option("--codec-reps", o->codec_reps, "repetitions of each encoding (median)");
  app.add_option("--sign-ops", o->sign_ops, "Ed25519 signs and verifies (median)");
  app.add_option("--dir", o->dir, "where the scratch directory is made (tmpfs: /dev/shm)");
  app.add_option("--markdown", o->markdown, "write the results section to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  if (o->reps.size() == 1) o->reps.resize(o->sizes_mb.size(), o->reps[0]);
  // A directory of its own, which the run removes: --dir may hold other things.
  o->dir = (std::filesystem::path(o->dir) / "vexfs-usxf-bench").string();
  return !o->sizes_mb.empty() && o->reps.size() == o->sizes_mb.size() &&
         *std::min_element(o->reps.begin(), o->reps.end()) >= 1 && o->head_dim > 0 &&
         o->kv_elements % o->head_dim == 0 && o->codec_reps >= 1 && o->sign_ops >= 1 &&
         !o->verify_threads.empty();
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) {
    std::cerr << "error: bad options (one --reps per size, --kv-elements a multiple of "
                 "--head-dim)\n";
    return 2;
  }
  Scratch s;
  s.dir = FreshDir(o.dir, "files");
  uint64_t largest = *std::max_element(o.sizes_mb.begin(), o.sizes_mb.end()) * kMB;
  Progress("usxf: generating " + std::to_string(largest / kMB) + " MB of f16 values");
  const std::string data = F16Normal(largest, 1);
  // Room for the largest file and for the f32 tensor under zstd's worst case.
  s.capacity = std::max<size_t>(largest, o.kv_elements * 4 * 1.01) + (size_t{8} << 20);
  s.buffer = Prefaulted(s.capacity);
  s.key = CheckValue(usxf::SigningKey::Generate(), "generate key");

  std::vector<SizeResult> sizes;
  for (size_t i = 0; i < o.sizes_mb.size(); ++i) {
    sizes.push_back(
        MeasureSize(o, std::string_view(data).substr(0, o.sizes_mb[i] * kMB), o.reps[i], &s));
  }
  Progress("usxf: Ed25519, " + std::to_string(o.sign_ops) + " signs and verifies");
  SignatureResult sig = MeasureSignatures(s.key, o.sign_ops);
  Progress("usxf: KV-like tensor of " + std::to_string(o.kv_elements) + " f32 elements");
  KvLike kv = MakeKvLike(o.kv_elements, o.head_dim);
  std::vector<CodecResult> codecs;
  for (const Codec& c : Codecs()) {
    Progress("usxf: " + CodecName(c) + ", " +
             usxf::CompressionName(static_cast<uint32_t>(c.compression)));
    codecs.push_back(MeasureCodec(c, kv, o.codec_reps, &s));
  }
  RemoveTree(o.dir);

  nlohmann::json json = {{"bench", "usxf"}};
  for (const SizeResult& r : sizes) json["sizes"].push_back(SizeJson(r));
  json["ed25519"] = {{"message_bytes", sig.message_bytes},
                     {"ops", sig.sign_s.size()},
                     {"median_sign_s", Median(sig.sign_s)},
                     {"median_verify_s", Median(sig.verify_s)}};
  for (const CodecResult& c : codecs) json["encodings"].push_back(CodecJson(c, o.kv_elements));
  std::string md = Markdown(o, sizes, sig, codecs, &json);
  std::cout << WriteTable(o, sizes).Text() << "\n"
            << SignatureTable(sig, sizes.front()).Text() << "\n"
            << CodecTable(codecs, o.kv_elements).Text() << "\n"
            << ErrorTable(codecs).Text();
  Emit(json, md, o.markdown);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
