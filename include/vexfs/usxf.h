// USXF: the Unified State Exchange Format, VexFS's container for moving an agent's
// live state (KV caches now; store snapshots and the memory graph later) between
// processes, machines and runtimes. The byte layout is specified in docs/usxf.md;
// this header is the library over it.
//
// What a USXF file guarantees once verified:
//  - integrity against accidents: every byte is covered by a checksum (preamble,
//    header, each section's XXH3-128, zero padding, the footer); any damage is
//    reported with the part it hit;
//  - integrity against tampering (when the file is "sealed"): a SHA-256 Merkle tree
//    over 1 MiB chunks of every section and over the header gives one root;
//  - origin: zero or more Ed25519 signatures over the root, checked only against
//    public keys the receiver trusts (its keyring). A key carried in the file is a
//    hint for finding the right trusted key, never evidence by itself.
// What it does not guarantee: that the state is meaningful for a given model; that
// is the job of the section's own metadata (see usxf_kv.h) and of the receiver.
//
// Thread-safety: Writer and StreamReader are single-threaded objects. A MappedFile
// may be read from any number of threads. It maps the file shared: whoever can
// write the file can change bytes after Verify, and truncating it makes reads
// fault (SIGBUS). Verify-then-use is sound for files only the caller can write;
// for others, read the file into memory and use FromBytes.
#ifndef VEXFS_USXF_H_
#define VEXFS_USXF_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/status.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::usxf {

inline constexpr uint16_t kMajorVersion = 1;
inline constexpr uint16_t kMinorVersion = 0;
inline constexpr size_t kPreambleSize = 80;
inline constexpr size_t kSectionEntrySize = 128;
inline constexpr size_t kMaxRank = 8;
inline constexpr uint32_t kMinAlignment = 64;
inline constexpr uint32_t kMaxAlignment = 1u << 20;
inline constexpr uint32_t kDefaultChunkLog2 = 20;  // 1 MiB Merkle chunks
inline constexpr uint32_t kMaxSections = 4096;
inline constexpr uint64_t kMaxHeaderLength = 64ull << 20;
inline constexpr uint64_t kMaxSectionLength = 1ull << 44;  // 16 TiB
inline constexpr size_t kMaxSignatures = 16;

// Section kinds. A reader keeps, verifies and reports a kind it does not know,
// but refuses to interpret it.
enum class SectionKind : uint32_t {
  kBlob = 1,     // opaque bytes
  kTensor = 2,   // a typed, shaped array
  kKvCache = 3,  // a transformer KV cache in the canonical layout (usxf_kv.h)
};

// Element types as their producer holds them.
enum class DType : uint32_t {
  kNone = 0,  // untyped bytes (blobs)
  kF32 = 1,
  kF16 = 2,
  kBF16 = 3,
  kI8 = 4,
  kU8 = 5,
  kI32 = 6,
  kU32 = 7,
  kI64 = 8,
  kU64 = 9,
  kF64 = 10,
  kQ8_0 = 11,  // ggml's block format: per 32 elements an f16 scale and 32 int8
};

// How elements travel (transfer quantisation). The reader decodes back to dtype.
enum class Encoding : uint32_t {
  kNone = 0,       // stored as dtype
  kF16 = 1,        // IEEE binary16, round to nearest even
  kBF16 = 2,       // bfloat16, round to nearest even
  kInt8Group = 3,  // int8 values, then one f32 scale per group_size elements
};

enum class Compression : uint32_t { kNone = 0, kZstd = 1 };

const char* SectionKindName(uint32_t kind);     // "kv_cache", "unknown"
const char* DTypeName(uint32_t dtype);          // "f16", "unknown"
const char* EncodingName(uint32_t encoding);    // "int8_group", "unknown"
const char* CompressionName(uint32_t compression);
std::optional<DType> ParseDType(std::string_view name);
std::optional<Encoding> ParseEncoding(std::string_view name);

using Digest = std::array<uint8_t, 32>;  // SHA-256
struct Xxh128 {
  uint64_t low = 0, high = 0;
  bool operator==(const Xxh128&) const = default;
};
std::string HexOf(const uint8_t* bytes, size_t n);
inline std::string HexOf(const Digest& d) { return HexOf(d.data(), d.size()); }

// ---------------------------------------------------------------------------
// Metadata: the typed key-value records of the header (docs/usxf.md, "Fields").
// Tags are small integers; a field marked critical must be understood by a reader
// that interprets the record, others may be skipped. Encoding is canonical
// (ascending tags, no duplicates), so equal metadata has equal bytes.
enum class FieldType : uint8_t {
  kU64 = 1,
  kI64 = 2,
  kF64 = 3,       // IEEE binary64 bits, little-endian; NaN is refused
  kString = 4,    // UTF-8
  kBytes = 5,
  kU32Array = 6,
  kI32Array = 7,
  kU64Array = 8,
  kRecord = 9,    // nested metadata
};

class Metadata {
 public:
  struct Field {
    FieldType type;
    bool critical;
    std::string value;  // encoded little-endian payload
  };

  void SetU64(uint16_t tag, uint64_t v, bool critical = false);
  void SetI64(uint16_t tag, int64_t v, bool critical = false);
  void SetF64(uint16_t tag, double v, bool critical = false);
  void SetString(uint16_t tag, std::string_view v, bool critical = false);
  void SetBytes(uint16_t tag, std::string_view v, bool critical = false);
  void SetU32Array(uint16_t tag, const std::vector<uint32_t>& v, bool critical = false);
  void SetI32Array(uint16_t tag, const std::vector<int32_t>& v, bool critical = false);
  void SetRecord(uint16_t tag, const Metadata& v, bool critical = false);

  bool Has(uint16_t tag) const { return fields_.count(tag) != 0; }
  // Each getter: kNotFound if absent, kCorruption if the field has another type.
  // `what` names the field in messages ("n_layers").
  Result<uint64_t> GetU64(uint16_t tag, std::string_view what) const;
  Result<int64_t> GetI64(uint16_t tag, std::string_view what) const;
  Result<double> GetF64(uint16_t tag, std::string_view what) const;
  Result<std::string> GetString(uint16_t tag, std::string_view what) const;
  Result<std::string> GetBytes(uint16_t tag, std::string_view what) const;
  Result<std::vector<uint32_t>> GetU32Array(uint16_t tag, std::string_view what) const;
  Result<std::vector<int32_t>> GetI32Array(uint16_t tag, std::string_view what) const;
  Result<Metadata> GetRecord(uint16_t tag, std::string_view what) const;

  // Critical fields whose tags are not in `known` (empty when all are understood).
  std::vector<uint16_t> UnknownCritical(const std::vector<uint16_t>& known) const;

  const std::map<uint16_t, Field>& fields() const { return fields_; }
  std::string Encode() const;
  // kCorruption naming the offending field on malformed or non-canonical input.
  static Result<Metadata> Decode(std::string_view bytes);

 private:
  friend Result<Metadata> DecodeMetadataAtDepth(std::string_view, int);
  std::map<uint16_t, Field> fields_;
};

// ---------------------------------------------------------------------------
// Sections as the header describes them.
struct SectionInfo {
  std::string name;  // 1..255 bytes of UTF-8, unique in the file
  uint32_t kind = static_cast<uint32_t>(SectionKind::kBlob);
  uint32_t dtype = static_cast<uint32_t>(DType::kNone);
  uint32_t encoding = static_cast<uint32_t>(Encoding::kNone);
  uint32_t compression = static_cast<uint32_t>(Compression::kNone);
  uint32_t group_size = 0;      // elements per int8 scale; 0 unless kInt8Group
  std::vector<uint64_t> shape;  // rank 0 for blobs
  uint64_t stored_length = 0;   // bytes in the file
  uint64_t raw_length = 0;      // bytes after decompression (the encoded payload)
  uint64_t offset = 0;          // absolute file offset; set by the writer
  std::string metadata;         // encoded Metadata (may be empty)

  uint64_t ElementCount() const;  // product of shape (1 for rank 0)
};

// Bytes an encoded payload of `count` elements occupies (kInvalidArgument if the
// combination of dtype, encoding and group size is not allowed).
Result<uint64_t> EncodedLength(uint32_t dtype, uint32_t encoding, uint32_t group_size,
                               uint64_t count);

// Where bytes go: a file, a socket, a buffer. Write must take all of `bytes` or fail.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Write(std::string_view bytes) = 0;
};
// And where they come from: Read fills up to n bytes, returning 0 only at the end.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
};

struct FileSummary;  // below

// ---------------------------------------------------------------------------
// Writer: emits a USXF file front to back without seeking. The caller declares
// every section (with its stored length) up front, then streams each section's
// stored bytes in order; Finish writes the footer.
struct WriterOptions {
  uint32_t alignment = 4096;  // power of two, 64 .. 1 MiB
  bool seal = true;           // compute the SHA-256 Merkle tree and root
  uint32_t chunk_log2 = kDefaultChunkLog2;
};

struct SigningKey;  // usxf_keys.h

class Writer {
 public:
  // Validates the plan (names, lengths, dtype/encoding/shape agreement) and writes
  // the preamble and header. kInvalidArgument names the section that is wrong.
  static Result<std::unique_ptr<Writer>> Start(ByteSink* sink,
                                               std::vector<SectionInfo> sections,
                                               const Metadata& file_metadata,
                                               const WriterOptions& options = {});
  ~Writer();

  // Appends the next stored bytes of the current section; moves to the next section
  // when one is full. kInvalidArgument when more bytes arrive than were declared.
  Status Append(std::string_view bytes);
  // Writes the footer; signs the root with each key (requires seal). kInvalidArgument
  // if sections are short.
  Status Finish(const std::vector<const SigningKey*>& signers = {});

  const std::vector<SectionInfo>& sections() const;

 private:
  struct State;
  explicit Writer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// A section with its logical contents in memory, for WriteFile below.
struct SectionData {
  SectionInfo info;        // name, kind, dtype, encoding, compression, group_size, shape, metadata
  std::string_view values; // elements in dtype (or raw bytes for blobs)
};
// Encodes (quantises), compresses and writes whole sections in one call.
Status WriteFile(ByteSink* sink, const std::vector<SectionData>& sections,
                 const Metadata& file_metadata, const WriterOptions& options = {},
                 const std::vector<const SigningKey*>& signers = {});
// WriteFile to `path` atomically (temporary file, fsync, rename).
Status WriteFileToPath(const std::string& path, const std::vector<SectionData>& sections,
                       const Metadata& file_metadata, const WriterOptions& options = {},
                       const std::vector<const SigningKey*>& signers = {});

// ---------------------------------------------------------------------------
// What the footer says, and what a reader found.
struct Signature {
  uint32_t algorithm = 1;  // 1 = Ed25519
  std::array<uint8_t, 32> public_key{};
  std::array<uint8_t, 64> signature{};
};

struct FileSummary {
  uint16_t major = 0, minor = 0;
  uint32_t alignment = 0;
  uint32_t chunk_log2 = 0;
  uint64_t header_length = 0;
  uint64_t data_offset = 0;
  uint64_t footer_offset = 0;
  uint64_t file_length = 0;
  std::string file_metadata;  // encoded Metadata
  std::vector<SectionInfo> sections;
  std::vector<Xxh128> section_checksums;
  bool sealed = false;
  std::vector<Digest> section_digests;  // when sealed
  Digest header_digest{};               // when sealed
  Digest root{};                        // when sealed
  std::vector<Signature> signatures;
};

enum class VerifyLevel {
  kFast,  // checksums, structure, zero padding: detects accidents
  kFull,  // plus SHA-256 Merkle tree and root: detects tampering (needs a sealed file)
};

// ---------------------------------------------------------------------------
// StreamReader: reads a USXF file front to back from a ByteSource, checking as it
// goes. It holds the header (at most 64 MiB, and never more than has arrived), one
// 1 MiB piece, and 32 bytes per Merkle chunk of the section being read.
class StreamReader {
 public:
  // Reads and checks the preamble and header. With `hash_threads` > 1 a
  // second thread computes the SHA-256 leaves of a kFull read while the
  // caller's thread reads on (and runs `consume`); the result is the same.
  static Result<std::unique_ptr<StreamReader>> Open(ByteSource* source,
                                                    VerifyLevel level = VerifyLevel::kFull,
                                                    int hash_threads = 1);
  ~StreamReader();

  const std::vector<SectionInfo>& sections() const;
  const std::string& file_metadata() const;

  // Calls `consume(section_index, bytes)` with every section's stored bytes in
  // order (bytes arrive in pieces), then reads and checks the footer. Returns the
  // first failure: a truncated stream, non-zero padding, a bad footer or the first
  // section whose digest does not match (named). `consume` may return an error
  // to stop early. On success summary() is complete.
  Status ReadAll(const std::function<Status(size_t, std::string_view)>& consume);

  const FileSummary& summary() const;

 private:
  struct State;
  explicit StreamReader(std::unique_ptr<State> state);
  Status ReadSections(const std::function<Status(size_t, std::string_view)>& consume, uint64_t piece_size,
                      std::vector<Xxh128>* checksums, std::vector<Digest>* digests);
  Status ReadSectionsPipelined(const std::function<Status(size_t, std::string_view)>& consume,
                               std::vector<Xxh128>* checksums, std::vector<Digest>* digests);
  Status FinishReading(const std::vector<Xxh128>& checksums, const std::vector<Digest>& digests);
  std::unique_ptr<State> state_;
};

// ---------------------------------------------------------------------------
// MappedFile: the whole file mapped read-only; sections are handed out without
// copying. Open checks structure and checksums of preamble, header and footer
// (cheap); Verify checks section contents.
class MappedFile {
 public:
  static Result<std::unique_ptr<MappedFile>> Open(const std::string& path);
  // Over bytes the caller keeps alive (tests, fuzzing).
  static Result<std::unique_ptr<MappedFile>> FromBytes(std::string_view bytes);
  ~MappedFile();

  const FileSummary& summary() const;
  const std::vector<SectionInfo>& sections() const { return summary().sections; }
  // Index of the section named `name`, or kNotFound.
  Result<size_t> Find(std::string_view name) const;
  // The stored bytes of section i (compressed and/or encoded as the header says).
  std::string_view StoredBytes(size_t i) const;
  // Section contents decoded (decompressed, dequantised) to its dtype; a section of
  // an unknown kind gives its decompressed bytes. kNotSupported for an unknown
  // dtype, encoding or compression. For an
  // uncompressed section stored in its dtype this is StoredBytes (no copy) and
  // `storage` is untouched; otherwise the bytes are decoded into `storage`.
  Result<std::string_view> Values(size_t i, std::string* storage) const;

  // kCorruption naming the first damaged section; kFull also recomputes the
  // Merkle tree (kInvalidArgument when the file is not sealed). `threads` > 1
  // hashes chunks in parallel.
  Status Verify(VerifyLevel level, int threads = 1) const;

 private:
  struct State;
  explicit MappedFile(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The bytes every signature signs: "USXF-v1-signature", a zero byte, then the root.
std::string SignedMessage(const Digest& root);

}  // namespace vexfs::usxf

#pragma GCC visibility pop

#endif  // VEXFS_USXF_H_
