// The reader of .vxg GloVe word-vector files (docs/glove.md): maps the file
// read-only and answers word -> frequency rank by binary search over the sorted
// vocabulary, and rank -> vector, with no load step and no table built at open.
//
// The rule of this file: the bytes come from outside. Open() checks the header,
// the whole-file XXH3-64 checksum and every offset and length against the file
// size (and the vocabulary's order, which binary search relies on) before any
// accessor may touch them; after a successful Open() the accessors need no checks.
#ifndef VEXFS_INDEX_EMBEDDERS_GLOVE_FILE_H_
#define VEXFS_INDEX_EMBEDDERS_GLOVE_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs::index {

inline constexpr char kGloveMagic[8] = {'V', 'E', 'X', 'G', 'L', 'O', 'V', 'E'};
inline constexpr uint32_t kGloveVersion = 1;
inline constexpr size_t kGloveHeaderSize = 256;
inline constexpr size_t kGloveTrailerSize = 8;  // XXH3-64 of everything before it
inline constexpr uint32_t kGloveMaxDim = 4096;
inline constexpr uint32_t kGloveMaxCount = 1u << 24;
inline constexpr uint32_t kGloveMaxWordBytes = 255;
// The largest vector value magnitude a file may hold: float16's largest finite
// value, so that a sum over every word of a vocabulary stays finite in float32.
inline constexpr float kGloveMaxMagnitude = 65504.0f;

enum class GloveDtype : uint32_t { kF16 = 1, kF32 = 2 };

// An open, verified .vxg file. Immutable after Open(), so one GloveFile may be
// shared by any number of threads and embedders.
class GloveFile {
 public:
  // Maps and verifies `path`. Errors name the path: kNotFound if it does not exist
  // (the message says how to fetch it), kIOError if it cannot be read or mapped,
  // kCorruption if it is truncated, fails its checksum or its header or sections
  // are inconsistent.
  static Result<std::unique_ptr<GloveFile>> Open(const std::string& path);
  // The same checks over bytes the caller owns and keeps alive and unchanged for
  // the GloveFile's lifetime (fuzzing, tests); `name` stands for the path in errors.
  static Result<std::unique_ptr<GloveFile>> FromBytes(std::string_view bytes,
                                                      const std::string& name);
  ~GloveFile();
  GloveFile(const GloveFile&) = delete;
  GloveFile& operator=(const GloveFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return size_; }
  GloveDtype dtype() const { return dtype_; }
  uint32_t dim() const { return dim_; }
  uint32_t count() const { return count_; }
  // The model name the converter recorded ("glove-6b-100d").
  const std::string& name() const { return name_; }
  // Hex SHA-256 of the converted payload: identifies the words and vectors.
  const std::string& payload_fingerprint() const { return payload_hex_; }
  // Hex SHA-256 of the source tarball (all zeros when the converter was not told).
  const std::string& source_sha256() const { return source_hex_; }
  // The norm an unknown word's vector gets: the mean norm of the rarest words.
  float oov_norm() const { return oov_norm_; }

  // Frequency rank of `word` (0 = most frequent), compared bytewise; nullopt when
  // the vocabulary lacks it.
  std::optional<uint32_t> Find(std::string_view word) const;
  // The word of sorted position `i` < count() (for tests and diagnostics).
  std::string_view SortedWord(uint32_t i) const;
  // acc[0..dim) += weight * vector(rank); `rank` < count().
  void AddScaled(uint32_t rank, float weight, float* acc) const;

 private:
  GloveFile() = default;
  Status ParseHeader();
  Status CheckSections();
  Status CheckChecksum() const;
  Status CheckVocabulary() const;
  Status CheckVectors() const;
  Status Fail(const std::string& what) const;
  Status Verify();
  uint32_t Offset(uint32_t i) const;

  std::string path_;
  const char* base_ = nullptr;  // the mapping (or the caller's bytes), size_ bytes
  bool mapped_ = false;         // base_ is ours to unmap
  uint64_t size_ = 0;
  GloveDtype dtype_ = GloveDtype::kF16;
  uint32_t dim_ = 0;
  uint32_t count_ = 0;
  std::string name_;
  std::string payload_hex_;
  std::string source_hex_;
  float oov_norm_ = 0;
  const char* offsets_ = nullptr;  // u32[count_ + 1] into strings_
  const char* ranks_ = nullptr;    // u32[count_]: rank of each sorted word
  const char* strings_ = nullptr;  // the sorted words, concatenated
  const char* vectors_ = nullptr;  // count_ rows of dim_ values, in rank order
};

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_GLOVE_FILE_H_
