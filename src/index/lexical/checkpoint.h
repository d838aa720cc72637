// The on-disk checkpoint of a lexical model: a Xapian (glass) database of the
// model's records [0, count), in a generation directory that is never modified
// after it is published.
//
//   <dir>/lexical-m<ID>.meta     which generation is current, and its digest
//   <dir>/lexical-m<ID>/g<GEN>/  the Xapian database of that generation
//   <dir>/lexical-m<ID>.lock     flock: exclusive while a generation is built
//
// Publishing a generation is one atomic rename of the meta file; a crash before
// it leaves the previous generation current (the half-built directory is removed
// by the next build). Opening verifies the meta against the model and the LMDB
// log (the last record's passage hash) and an XXH3-128 digest over every file of
// the generation before Xapian reads a byte, so files that are stale, from
// another store or damaged are never searched: the caller rebuilds instead.
// The previous generation is kept, so a reader that opened it survives one
// rebuild; older ones are deleted.
//
// Rule: nothing here is the source of truth. Every failure to read means "no
// checkpoint", never an error that loses data.
#ifndef VEXFS_INDEX_LEXICAL_CHECKPOINT_H_
#define VEXFS_INDEX_LEXICAL_CHECKPOINT_H_

#include <xapian.h>

#include <memory>
#include <optional>
#include <string>

#include "index/index_records.h"
#include "index/lexical/build.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs::index {

struct LexicalCheckpoint {
  uint64_t generation = 0;
  uint64_t count = 0;  // records [0, count) are in `db`
  std::unique_ptr<Xapian::Database> db;
};

// The valid current checkpoint of `model` in `dir`, or nullopt (missing, stale,
// foreign or damaged). Fails only on store errors.
Result<std::optional<LexicalCheckpoint>> LoadLexicalCheckpoint(Store* store,
                                                               const ModelRecord& model,
                                                               const std::string& dir);

// Publishes a generation holding records [0, model.next_vector): a copy of the
// current valid generation plus the newer records, or a fresh build from the
// log. Waits for another process building one; returns without building when
// the current generation already holds every record. kReadOnly/kIOError when
// `dir` cannot be written (the caller carries on from memory).
// `stop`, asked between commits, ends the build early with kBusy and publishes
// nothing.
Status BuildLexicalCheckpoint(Store* store, const ModelRecord& model,
                              const std::string& dir, const ProgressFn& progress = nullptr,
                              const BuildStopFn& stop = nullptr);

// The same, only when LexicalCheckpointDue says the current valid generation
// lacks enough records; otherwise returns at once.
Status BuildLexicalCheckpointIfDue(Store* store, const ModelRecord& model,
                                   const std::string& dir, const BuildStopFn& stop);

// Whether a checkpoint holding `checkpointed` of a log's `total` records should
// be replaced by one holding them all, rather than the rest held in memory: when
// it lacks a quarter of them, and at least 1000.
bool LexicalCheckpointDue(uint64_t checkpointed, uint64_t total);

// Removes every checkpoint file of model `id` (for `vexfs index rebuild`).
Status RemoveLexicalCheckpoint(const std::string& dir, uint32_t id);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_LEXICAL_CHECKPOINT_H_
