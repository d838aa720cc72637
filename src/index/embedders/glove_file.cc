// The .vxg reader: mmap, then validation in the order that gives the clearest
// message (header fields, file size, checksum, section bounds, vocabulary order).
// Every length is checked against the file size before it is used; nothing is
// dereferenced until Open() has returned ok.
#include "index/embedders/glove_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/file_util.h"

namespace vexfs::index {
namespace {

// Header field offsets (docs/glove.md).
constexpr size_t kVersionAt = 8, kDtypeAt = 12, kDimAt = 16, kCountAt = 20;
constexpr size_t kFileSizeAt = 24, kOffsetsAt = 32, kRanksAt = 40, kStringsAt = 48;
constexpr size_t kStringsSizeAt = 56, kVectorsAt = 64, kVectorsSizeAt = 72;
constexpr size_t kOovNormAt = 80, kSourceShaAt = 88, kPayloadShaAt = 120, kNameAt = 152;
constexpr size_t kNameBytes = 32;
constexpr float kMaxOovNorm = 1e4f;

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // the format is little-endian, as x86-64/aarch64
  return v;
}

std::string Hex(const char* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// IEEE half -> float without branches: shifting the exponent and mantissa into
// float position and scaling by 2^112 rebiases normals and subnormals alike.
// Infinity/NaN patterns come out as large finite values, so an f16 file can never
// put a non-finite number into a sum.
inline float HalfToFloat(uint16_t h) {
  float magnitude = std::bit_cast<float>(static_cast<uint32_t>(h & 0x7fff) << 13) * 0x1p112f;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) |
                              (static_cast<uint32_t>(h & 0x8000) << 16));
}

size_t DtypeBytes(GloveDtype t) { return t == GloveDtype::kF16 ? 2 : 4; }

}  // namespace

Result<std::unique_ptr<GloveFile>> GloveFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    return Status::NotFound("GloVe vectors '" + path +
                            "' not found: an install keeps them in "
                            "<datadir>/vexfs/glove beside its library, a checkout gets "
                            "them from scripts/setup.sh (or scripts/fetch_glove.sh); or "
                            "set VEXFS_GLOVE, or use the embedder spec glove:PATH");
  }
  if (fd < 0) return Status::IOError(ErrnoStatus("open GloVe vectors '" + path + "'").message());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    Status s = Status::IOError(ErrnoStatus("stat GloVe vectors '" + path + "'").message());
    ::close(fd);
    return s;
  }
  std::unique_ptr<GloveFile> file(new GloveFile());
  file->path_ = path;
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IOError("GloVe vectors '" + path + "' is not a regular file");
  }
  file->size_ = static_cast<uint64_t>(st.st_size);
  if (file->size_ < kGloveHeaderSize + kGloveTrailerSize) {
    ::close(fd);
    return file->Fail("truncated: " + std::to_string(file->size_) + " bytes, less than a header");
  }
  // MAP_POPULATE: the checksum reads every page anyway, so fault them in at once.
  void* m = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  Status map_status = m == MAP_FAILED ? ErrnoStatus("mmap GloVe vectors '" + path + "'")
                                      : Status::Ok();
  ::close(fd);  // the mapping keeps the file open
  if (!map_status.ok()) return Status::IOError(map_status.message());
  file->base_ = static_cast<const char*>(m);
  file->mapped_ = true;
  VEXFS_RETURN_IF_ERROR(file->Verify());
  return file;
}

Result<std::unique_ptr<GloveFile>> GloveFile::FromBytes(std::string_view bytes,
                                                        const std::string& name) {
  std::unique_ptr<GloveFile> file(new GloveFile());
  file->path_ = name;
  file->size_ = bytes.size();
  if (file->size_ < kGloveHeaderSize + kGloveTrailerSize) {
    return file->Fail("truncated: " + std::to_string(file->size_) + " bytes, less than a header");
  }
  file->base_ = bytes.data();
  VEXFS_RETURN_IF_ERROR(file->Verify());
  return file;
}

Status GloveFile::Verify() {
  VEXFS_RETURN_IF_ERROR(ParseHeader());
  VEXFS_RETURN_IF_ERROR(CheckChecksum());
  VEXFS_RETURN_IF_ERROR(CheckSections());
  VEXFS_RETURN_IF_ERROR(CheckVectors());
  return CheckVocabulary();
}

// Every value finite: one infinity would make every sentence holding its word
// embed to NaN, which the indexer refuses, so the file would block indexing.
Status GloveFile::CheckVectors() const {
  uint64_t n = uint64_t{count_} * dim_;
  if (dtype_ == GloveDtype::kF16) {
    for (uint64_t i = 0; i < n; ++i) {
      if ((Load<uint16_t>(vectors_ + 2 * i) & 0x7c00) == 0x7c00) {
        return Fail("vector value " + std::to_string(i) + " is not finite");
      }
    }
    return Status::Ok();
  }
  // float32 values are held to float16's range too: a sum of finite but huge
  // values (a sentence's words) would overflow to infinity all the same. Real
  // word vectors are within a few units of zero.
  for (uint64_t i = 0; i < n; ++i) {
    float v = Load<float>(vectors_ + 4 * i);
    if (!std::isfinite(v) || std::fabs(v) > kGloveMaxMagnitude) {
      return Fail("vector value " + std::to_string(i) + " is not finite or over " +
                  std::to_string(static_cast<int>(kGloveMaxMagnitude)) + " in magnitude");
    }
  }
  return Status::Ok();
}

GloveFile::~GloveFile() {
  if (mapped_) ::munmap(const_cast<char*>(base_), size_);
}

Status GloveFile::Fail(const std::string& what) const {
  return Status::Corruption("GloVe vectors '" + path_ + "': " + what);
}

Status GloveFile::ParseHeader() {
  if (std::memcmp(base_, kGloveMagic, sizeof(kGloveMagic)) != 0) {
    return Fail("not a .vxg file (bad magic)");
  }
  uint32_t version = Load<uint32_t>(base_ + kVersionAt);
  if (version != kGloveVersion) {
    return Fail("format version " + std::to_string(version) + ", this build reads " +
                std::to_string(kGloveVersion));
  }
  uint32_t dtype = Load<uint32_t>(base_ + kDtypeAt);
  if (dtype != 1 && dtype != 2) return Fail("unknown dtype " + std::to_string(dtype));
  dtype_ = static_cast<GloveDtype>(dtype);
  dim_ = Load<uint32_t>(base_ + kDimAt);
  count_ = Load<uint32_t>(base_ + kCountAt);
  if (dim_ == 0 || dim_ > kGloveMaxDim) return Fail("absurd dimension " + std::to_string(dim_));
  if (count_ == 0 || count_ > kGloveMaxCount) {
    return Fail("absurd word count " + std::to_string(count_));
  }
  uint64_t recorded = Load<uint64_t>(base_ + kFileSizeAt);
  if (recorded != size_) {
    return Fail("the header says " + std::to_string(recorded) + " bytes but the file has " +
                std::to_string(size_) + (size_ < recorded ? " (truncated)" : ""));
  }
  oov_norm_ = Load<float>(base_ + kOovNormAt);
  if (!std::isfinite(oov_norm_) || oov_norm_ <= 0 || oov_norm_ > kMaxOovNorm) {
    return Fail("absurd unknown-word norm");
  }
  const char* name = base_ + kNameAt;
  size_t name_len = strnlen(name, kNameBytes);
  if (name_len == 0 || name_len == kNameBytes) return Fail("model name missing or unterminated");
  name_.assign(name, name_len);
  source_hex_ = Hex(base_ + kSourceShaAt, 32);
  payload_hex_ = Hex(base_ + kPayloadShaAt, 32);
  return Status::Ok();
}

Status GloveFile::CheckChecksum() const {
  uint64_t body = size_ - kGloveTrailerSize;
  uint64_t want = Load<uint64_t>(base_ + body);
  uint64_t got = XXH3_64bits(base_, body);
  if (got == want) return Status::Ok();
  return Fail("checksum mismatch (the file is damaged; fetch it again with "
              "scripts/fetch_glove.sh)");
}

// Each section lies inside the body, in the order of docs/glove.md, with exactly
// the size the counts imply.
Status GloveFile::CheckSections() {
  struct Section {
    const char* name;
    uint64_t offset;
    uint64_t size;
    uint64_t want;  // expected size; 0 = any
  };
  uint64_t strings_size = Load<uint64_t>(base_ + kStringsSizeAt);
  const Section sections[] = {
      {"offsets", Load<uint64_t>(base_ + kOffsetsAt), 4ull * (count_ + 1), 0},
      {"ranks", Load<uint64_t>(base_ + kRanksAt), 4ull * count_, 0},
      {"strings", Load<uint64_t>(base_ + kStringsAt), strings_size, 0},
      {"vectors", Load<uint64_t>(base_ + kVectorsAt), Load<uint64_t>(base_ + kVectorsSizeAt),
       uint64_t{count_} * dim_ * DtypeBytes(dtype_)},
  };
  uint64_t floor = kGloveHeaderSize;
  uint64_t body = size_ - kGloveTrailerSize;
  for (const Section& s : sections) {
    if (s.want != 0 && s.size != s.want) {
      return Fail(std::string(s.name) + " section has " + std::to_string(s.size) +
                  " bytes, the counts need " + std::to_string(s.want));
    }
    if (s.offset < floor || s.offset > body || s.size > body - s.offset || s.offset % 4 != 0) {
      return Fail(std::string(s.name) + " section at " + std::to_string(s.offset) + "+" +
                  std::to_string(s.size) + " is out of bounds or out of order");
    }
    floor = s.offset + s.size;
  }
  offsets_ = base_ + sections[0].offset;
  ranks_ = base_ + sections[1].offset;
  strings_ = base_ + sections[2].offset;
  vectors_ = base_ + sections[3].offset;
  if (Offset(0) != 0 || Offset(count_) != strings_size) {
    return Fail("word offsets do not span the strings section");
  }
  return Status::Ok();
}

// Offsets ascend with every word 1-255 bytes, words are strictly increasing
// (binary search relies on it) and the ranks are a permutation of 0..count-1.
Status GloveFile::CheckVocabulary() const {
  std::vector<bool> seen(count_, false);
  std::string_view prev;
  // Each word is checked against the end of the strings before it is read: the
  // offsets ascending is only known once every word has been seen.
  const uint32_t strings_end = Offset(count_);
  for (uint32_t i = 0; i < count_; ++i) {
    uint32_t begin = Offset(i), end = Offset(i + 1);
    if (end <= begin || end > strings_end || end - begin > kGloveMaxWordBytes) {
      return Fail("word " + std::to_string(i) + " has a bad length");
    }
    std::string_view word(strings_ + begin, end - begin);
    if (i > 0 && !(prev < word)) return Fail("vocabulary not sorted at word " + std::to_string(i));
    prev = word;
    uint32_t rank = Load<uint32_t>(ranks_ + 4ull * i);
    if (rank >= count_ || seen[rank]) return Fail("ranks are not a permutation");
    seen[rank] = true;
  }
  return Status::Ok();
}

uint32_t GloveFile::Offset(uint32_t i) const { return Load<uint32_t>(offsets_ + 4ull * i); }

std::string_view GloveFile::SortedWord(uint32_t i) const {
  uint32_t begin = Offset(i);
  return std::string_view(strings_ + begin, Offset(i + 1) - begin);
}

std::optional<uint32_t> GloveFile::Find(std::string_view word) const {
  uint32_t lo = 0, hi = count_;  // the answer, if any, is in [lo, hi)
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = SortedWord(mid).compare(word);
    if (c == 0) return Load<uint32_t>(ranks_ + 4ull * mid);
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return std::nullopt;
}

void GloveFile::AddScaled(uint32_t rank, float weight, float* acc) const {
  if (dtype_ == GloveDtype::kF16) {
    const char* row = vectors_ + uint64_t{rank} * dim_ * 2;
    for (uint32_t i = 0; i < dim_; ++i) acc[i] += weight * HalfToFloat(Load<uint16_t>(row + 2 * i));
  } else {
    const char* row = vectors_ + uint64_t{rank} * dim_ * 4;
    for (uint32_t i = 0; i < dim_; ++i) acc[i] += weight * Load<float>(row + 4 * i);
  }
}

}  // namespace vexfs::index
