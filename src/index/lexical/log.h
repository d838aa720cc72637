// The lexical model's log in LMDB: one record per distinct passage text, keyed
// like vectors by (model, id) with the same dedup key (model, passage hash). A
// record holds the passage hash and the passage text, zstd-compressed, so the
// Xapian files can always be rebuilt from LMDB alone (they are a cache).
//
// Why the text and not Xapian's terms: rebuilding re-analyses the text, so the
// analysis can change (a new fingerprint) without losing anything.
#ifndef VEXFS_INDEX_LEXICAL_LOG_H_
#define VEXFS_INDEX_LEXICAL_LOG_H_

#include <functional>
#include <string>
#include <string_view>

#include "index/index_records.h"
#include "index/search_tables.h"

namespace vexfs::index {

// Passages longer than this never occur (passages.h caps them far lower); the
// limit bounds what a damaged record can make a reader allocate.
inline constexpr size_t kMaxLexicalText = size_t{1} << 20;

std::string EncodeLexicalRecord(const ObjectId& passage_hash, std::string_view text);
// kCorruption naming the record when the bytes are malformed or do not
// decompress to text of the stored hash.
Status DecodeLexicalRecord(std::string_view record, ObjectId* passage_hash, std::string* text);

// The lexical id of `text` (whose SHA-256 is `passage_hash`), appending a record
// if the model has none for it. Advances model->next_vector; the caller saves the
// model record in the same transaction.
Result<uint64_t> AppendLexicalRecord(StoreTxn* txn, const IndexTables& ix,
                                     ModelRecord* model, const ObjectId& passage_hash,
                                     std::string_view text);

// Calls `fn` for records [from, model.next_vector) in id order; a gap or a
// malformed record is kCorruption.
Status ForEachLexicalRecord(
    const StoreTxn& txn, const IndexTables& ix, const ModelRecord& model,
    uint64_t from,
    const std::function<Status(uint64_t id, const ObjectId& hash, std::string_view text)>& fn);

// The passage hash of record `id` (checkpoints remember their last one).
Result<ObjectId> LexicalRecordHash(const StoreTxn& txn, const IndexTables& ix,
                                   const ModelRecord& model, uint64_t id);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_LEXICAL_LOG_H_
