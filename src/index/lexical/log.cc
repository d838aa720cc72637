// Lexical records in ix_vectors: passage hash + zstd(text).
#include "index/lexical/log.h"

#include <zstd.h>

#include "common/coding.h"
#include "common/sha256.h"
#include "index/dense/vector_log.h"

namespace vexfs::index {
namespace {

constexpr size_t kHashBytes = 32;
constexpr int kZstdLevel = 3;

Status Malformed(std::string_view what) {
  return Status::Corruption("lexical record is malformed: " + std::string(what));
}

}  // namespace

std::string EncodeLexicalRecord(const ObjectId& passage_hash, std::string_view text) {
  std::string out(passage_hash.AsBytes());
  size_t bound = ZSTD_compressBound(text.size());
  out.resize(kHashBytes + bound);
  size_t n = ZSTD_compress(out.data() + kHashBytes, bound, text.data(), text.size(), kZstdLevel);
  // Compressing into a buffer of ZSTD_compressBound bytes cannot fail.
  out.resize(kHashBytes + (ZSTD_isError(n) ? 0 : n));
  return out;
}

Status DecodeLexicalRecord(std::string_view record, ObjectId* passage_hash, std::string* text) {
  if (record.size() < kHashBytes) return Malformed("shorter than its hash");
  std::string_view frame = record.substr(kHashBytes);
  unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
      size > kMaxLexicalText) {
    return Malformed("bad text frame");
  }
  text->resize(size);
  size_t n = ZSTD_decompress(text->data(), text->size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != size) return Malformed("text does not decompress");
  *passage_hash = ObjectId::FromBytes(record.substr(0, kHashBytes));
  if (Sha256Of(*text) != *passage_hash) return Malformed("text does not match its hash");
  return Status::Ok();
}

Result<uint64_t> AppendLexicalRecord(StoreTxn* txn, const IndexTables& ix,
                                     ModelRecord* model, const ObjectId& passage_hash,
                                     std::string_view text) {
  return AppendLogRecord(txn, ix, model, passage_hash,
                         [&] { return EncodeLexicalRecord(passage_hash, text); });
}

Status ForEachLexicalRecord(
    const StoreTxn& txn, const IndexTables& ix, const ModelRecord& model,
    uint64_t from,
    const std::function<Status(uint64_t id, const ObjectId& hash, std::string_view text)>& fn) {
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, ix.vectors));
  std::string prefix = VectorPrefix(model.id);
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(VectorKey(model.id, from)));
  ObjectId hash;
  std::string text;
  for (uint64_t expect = from; expect < model.next_vector; ++expect) {
    if (!more || !cursor.key().starts_with(prefix) ||
        DecodeBE64(cursor.key().substr(prefix.size())) != expect) {
      return Status::Corruption("lexical log of model '" + model.info.name + "' has no record " +
                                std::to_string(expect));
    }
    VEXFS_RETURN_IF_ERROR(DecodeLexicalRecord(cursor.value(), &hash, &text)
                              .WithContext("record " + std::to_string(expect)));
    VEXFS_RETURN_IF_ERROR(fn(expect, hash, text));
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return Status::Ok();
}

Result<ObjectId> LexicalRecordHash(const StoreTxn& txn, const IndexTables& ix,
                                   const ModelRecord& model, uint64_t id) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.vectors, VectorKey(model.id, id)));
  if (!raw || raw->size() < kHashBytes) {
    return Status::Corruption("lexical record " + std::to_string(id) + " is missing");
  }
  return ObjectId::FromBytes(raw->substr(0, kHashBytes));
}

}  // namespace vexfs::index
