// Records of the search index in its store tables: the model registry, the passages of each
// file version, the vector log and its dedup keys. docs/format.md gives the bytes.
//
// Why this shape: a vector belongs to (model, passage content hash), so a passage
// that appears in many files, branches or snapshots is embedded and stored once.
// Vector ids are per model, dense and assigned in insert order: the ix_vectors
// table doubles as the ordered insert log that the FAISS checkpoint catches up
// from, and the ids are FAISS's own sequential ids.
#ifndef VEXFS_INDEX_INDEX_RECORDS_H_
#define VEXFS_INDEX_INDEX_RECORDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/embedders/embedder.h"
#include "vexfs/status.h"
#include "vexfs/types.h"

namespace vexfs::index {

// How a model's vectors arrive.
enum class ModelKind : uint8_t {
  kEmbedded = 'e',  // computed by an embedder from passage text by the indexer
  kSupplied = 's',  // given by the agent (API, CLI, xattr) for files or ranges
  kLexical = 'l',   // no vectors: passage texts for the lexical (BM25) index
};

struct ModelRecord {
  uint32_t id = 0;
  ModelKind kind = ModelKind::kEmbedded;
  ModelInfo info;
  uint64_t next_vector = 0;  // vector ids [0, next_vector) exist
};

// A passage as stored: its byte range in the file and its vector's id.
struct StoredPassage {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t vector = 0;
};

// One vector of the log.
struct VectorRecord {
  ObjectId passage_hash;  // SHA-256 of the passage bytes (or of the supplied range)
  std::vector<float> values;
};

// Keys.
std::string ModelIdKey(uint32_t id);             // 'i' + be32 id
std::string ModelNameKey(std::string_view name);  // 'n' + name
inline constexpr std::string_view kNextModelIdKey = "next";
std::string PassagesKey(uint32_t model, const ObjectId& manifest);
std::string VectorKey(uint32_t model, uint64_t vector);
std::string VectorPrefix(uint32_t model);
std::string VectorDedupKey(uint32_t model, const ObjectId& passage_hash);

// Encodings. Decoders return kCorruption naming the record on malformed bytes.
std::string EncodeModel(const ModelRecord& m);
Status DecodeModel(std::string_view v, ModelRecord* m);
std::string EncodePassages(const std::vector<StoredPassage>& passages);
Status DecodePassages(std::string_view v, std::vector<StoredPassage>* passages);
// Floats are stored as IEEE-754 little-endian; `dim` checks the length.
std::string EncodeVector(const ObjectId& passage_hash, const float* values, uint32_t dim);
Status DecodeVector(std::string_view v, uint32_t dim, VectorRecord* out);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_INDEX_RECORDS_H_
