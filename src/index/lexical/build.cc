// Sequential and sharded builds of lexical databases (see the header).
#include "index/lexical/build.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "index/lexical/analysis.h"
#include "index/lexical/log.h"

namespace vexfs::index {
namespace {

namespace fs = std::filesystem;

// Small commits: glass merges a commit's postings into its tables, and measured
// here 1000 documents a commit indexed twice as fast as Xapian's default of 10000.
constexpr size_t kCommitEvery = 1000;
// Below this many records a second shard saves less than the merge costs.
constexpr uint64_t kMinRecordsPerShard = 4 * kCommitEvery;
constexpr unsigned kMaxShards = 8;
constexpr int kShardFlags =
    Xapian::DB_BACKEND_GLASS | Xapian::DB_NO_SYNC | Xapian::DB_CREATE_OR_OVERWRITE;

Status XapianStatus(const Xapian::Error& e, const std::string& what) {
  return Status::IOError(what + ": " + e.get_description());
}

unsigned ShardCount(uint64_t records) {
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  uint64_t by_size = std::max<uint64_t>(1, records / kMinRecordsPerShard);
  return static_cast<unsigned>(std::min<uint64_t>({cores, by_size, kMaxShards}));
}

// Records [from, to) into a new shard database at `path`.
Status BuildShard(Store* store, const ModelRecord& model, uint64_t from,
                  uint64_t to, const std::string& path, const ProgressFn& progress,
                  const BuildStopFn& stop) {
  ModelRecord range = model;
  range.next_vector = to;  // ForEachLexicalRecord stops here
  try {
    Xapian::WritableDatabase db(path, kShardFlags);
    VEXFS_RETURN_IF_ERROR(AddLexicalRecords(store, range, from, &db, progress, stop));
    db.commit();
    db.close();
  } catch (const Xapian::Error& e) {
    return XapianStatus(e, "write lexical shard '" + path + "'");
  }
  return Status::Ok();
}

// Shards side by side, then one compaction that keeps the document numbers.
Status BuildSharded(Store* store, const ModelRecord& model, unsigned shards,
                    const std::string& path, const ProgressFn& progress,
                    const BuildStopFn& stop) {
  uint64_t total = model.next_vector;
  // Each shard reports its own count; the caller sees the sum, one call at a time.
  std::mutex progress_mu;
  std::atomic<uint64_t> done{0};
  std::vector<std::string> paths;
  for (unsigned s = 0; s < shards; ++s) paths.push_back(path + ".s" + std::to_string(s));
  std::vector<Status> results(shards);
  std::vector<std::thread> threads;
  for (unsigned s = 0; s < shards; ++s) {
    uint64_t from = total * s / shards, to = total * (s + 1) / shards;
    threads.emplace_back([&, s, from, to] {
      uint64_t reported = 0;
      ProgressFn report;
      if (progress) {
        report = [&](uint64_t added, uint64_t) {
          uint64_t sum = done += added - reported;
          reported = added;
          std::lock_guard lock(progress_mu);
          progress(sum, total);
        };
      }
      results[s] = BuildShard(store, model, from, to, paths[s], report, stop);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const Status& st : results) VEXFS_RETURN_IF_ERROR(st);
  try {
    Xapian::Database all;
    for (const std::string& p : paths) all.add_database(Xapian::Database(p));
    all.compact(path, Xapian::DBCOMPACT_NO_RENUMBER);
  } catch (const Xapian::Error& e) {
    return XapianStatus(e, "merge lexical shards into '" + path + "'");
  }
  std::error_code ec;
  for (const std::string& p : paths) fs::remove_all(p, ec);
  return Status::Ok();
}

}  // namespace

Status AddLexicalRecords(Store* store, const ModelRecord& model, uint64_t from,
                         Xapian::WritableDatabase* db, const ProgressFn& progress,
                         const BuildStopFn& stop) {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store, false));
  uint64_t added = 0;
  uint64_t total = model.next_vector - from;
  try {
    VEXFS_RETURN_IF_ERROR(
        ForEachLexicalRecord(txn, ix, model, from,
                             [&](uint64_t id, const ObjectId&, std::string_view text) {
                               db->replace_document(static_cast<Xapian::docid>(id + 1),
                                                    MakeLexicalDocument(text, id));
                               if (++added % kCommitEvery == 0) {
                                 db->commit();
                                 if (progress) progress(added, total);
                                 if (stop && stop()) return Status::Busy("stopped");
                               }
                               return Status::Ok();
                             }));
  } catch (const Xapian::Error& e) {
    return XapianStatus(e, "add lexical records");
  }
  if (progress && added % kCommitEvery != 0) progress(added, total);
  return Status::Ok();
}

Status BuildLexicalDatabase(Store* store, const ModelRecord& model,
                            const std::string& path, const ProgressFn& progress,
                            const BuildStopFn& stop) {
  return BuildLexicalDatabaseInShards(store, model, path, progress,
                                      ShardCount(model.next_vector), stop);
}

Status BuildLexicalDatabaseInShards(Store* store, const ModelRecord& model,
                                    const std::string& path, const ProgressFn& progress,
                                    unsigned shards, const BuildStopFn& stop) {
  if (shards > 1) return BuildSharded(store, model, shards, path, progress, stop);
  try {
    Xapian::WritableDatabase db(path, kShardFlags);
    VEXFS_RETURN_IF_ERROR(AddLexicalRecords(store, model, 0, &db, progress, stop));
    db.commit();
    db.close();
  } catch (const Xapian::Error& e) {
    return XapianStatus(e, "write lexical database '" + path + "'");
  }
  return Status::Ok();
}

}  // namespace vexfs::index
