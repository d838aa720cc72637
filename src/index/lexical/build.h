// Writing a lexical model's log records into a Xapian (glass) database, on
// several cores when there are many.
//
// Xapian's indexer is single-threaded and costs about a millisecond per passage
// of a few hundred words here, so a fresh build of a large log is split into
// shards of consecutive records built side by side, then merged by Xapian's
// compactor keeping the document numbers (record id + 1 everywhere). The result
// is the database a single writer would have made: same documents, same terms,
// same BM25 statistics.
#ifndef VEXFS_INDEX_LEXICAL_BUILD_H_
#define VEXFS_INDEX_LEXICAL_BUILD_H_

#include <xapian.h>

#include <functional>
#include <string>

#include "index/index_records.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs::index {

// Asked between commits; true ends a build early with kBusy ("stopped").
using BuildStopFn = std::function<bool()>;

// Adds records [from, model.next_vector) to `db` as documents id + 1,
// committing every thousand documents. Xapian errors become kIOError.
Status AddLexicalRecords(Store* store, const ModelRecord& model, uint64_t from,
                         Xapian::WritableDatabase* db, const ProgressFn& progress,
                         const BuildStopFn& stop = nullptr);

// Writes records [0, model.next_vector) to a new database at `path` (which must
// not exist), in as many shards as the log's size and the cores make worth it.
// Scratch shards live beside it, in `path` + ".s<N>", and are removed on success
// (a crash or a stop leaves them to the caller's cleanup).
Status BuildLexicalDatabase(Store* store, const ModelRecord& model,
                            const std::string& path, const ProgressFn& progress,
                            const BuildStopFn& stop = nullptr);
// The same in exactly `shards` shards (at least 1); for tests.
Status BuildLexicalDatabaseInShards(Store* store, const ModelRecord& model,
                                    const std::string& path, const ProgressFn& progress,
                                    unsigned shards, const BuildStopFn& stop = nullptr);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_LEXICAL_BUILD_H_
