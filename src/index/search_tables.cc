// Registering the search index with the store: tables, subscription, fsck check.
#include "index/search_tables.h"

#include <map>
#include <memory>

#include "common/coding.h"
#include "index/index_records.h"

namespace vexfs::index {
namespace {

constexpr char kExtensionName[] = "search";
// Left by format-1 stores in the store's meta table: the old homes of the index
// generation and of the embedder spec (now keys of the models table).
constexpr std::string_view kLegacyGenerationKey = "ix_generation";
constexpr std::string_view kLegacyEmbedderKey = "ix_embedder";  // now "embedder" in ix_models
constexpr std::string_view kEmbedderKey = "embedder";

std::vector<TableSpec> TableSpecs() {
  return {{"ix_files", TableScope::kPerInode},
          {"ix_models", TableScope::kGlobal},
          {"ix_passages", TableScope::kGlobal},
          {"ix_vectors", TableScope::kGlobal},
          {"ix_vector_keys", TableScope::kGlobal},
          {"ix_queue", TableScope::kGlobal}};
}

// The index's fsck check: its records decode, and passages name vectors that
// exist. Derived data: a problem here is repaired by `vexfs index rebuild`.
class SearchExtension : public Extension {
 public:
  explicit SearchExtension(IndexTables tables) : tables_(std::move(tables)) {}
  const std::string& name() const override { return name_; }
  const IndexTables& tables() const { return tables_; }

  Status Check(const StoreTxn& txn, FsckReport* report) override {
    VEXFS_RETURN_IF_ERROR(CheckIndexedFiles(txn, report));
    std::map<uint32_t, uint64_t> next_vector;
    VEXFS_RETURN_IF_ERROR(CheckModels(txn, report, &next_vector));
    return CheckPassages(txn, next_vector, report);
  }

 private:
  Status CheckIndexedFiles(const StoreTxn& txn, FsckReport* report) {
    VEXFS_ASSIGN_OR_RETURN(auto rows, txn.Scan(tables_.files, ""));
    for (const auto& [key, value] : rows) {
      IndexedFile f;
      if (key.size() != 12 || !DecodeIndexedFile(value, &f).ok()) {
        report->problems.push_back("search index: an indexed-file record is malformed");
      }
    }
    return Status::Ok();
  }

  Status CheckModels(const StoreTxn& txn, FsckReport* report, std::map<uint32_t, uint64_t>* next) {
    VEXFS_ASSIGN_OR_RETURN(auto rows, txn.Scan(tables_.models, "i"));
    for (const auto& [key, value] : rows) {
      ModelRecord m;
      Status st = DecodeModel(value, &m);
      if (!st.ok()) {
        report->problems.push_back("search index: " + st.message());
        continue;
      }
      (*next)[m.id] = m.next_vector;
    }
    return Status::Ok();
  }

  Status CheckPassages(const StoreTxn& txn, const std::map<uint32_t, uint64_t>& next_vector,
                       FsckReport* report) {
    TableCursor cursor;
    VEXFS_RETURN_IF_ERROR(cursor.Open(txn, tables_.passages));
    VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
    while (more) {
      std::string problem = PassagesProblem(cursor.key(), cursor.value(), next_vector);
      if (!problem.empty()) report->problems.push_back("search index: " + problem);
      VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
    }
    return Status::Ok();
  }

  static std::string PassagesProblem(std::string_view key, std::string_view value,
                                     const std::map<uint32_t, uint64_t>& next_vector) {
    if (key.size() != 36) return "a passages record has a key of " + std::to_string(key.size()) + " bytes";
    Decoder d(key);
    uint32_t model = 0;
    d.GetFixed32BE(&model);
    std::string where = "passages of version " + ObjectId::FromBytes(key.substr(4)).ToHex();
    auto it = next_vector.find(model);
    if (it == next_vector.end()) return where + " belong to unknown model " + std::to_string(model);
    std::vector<StoredPassage> passages;
    if (Status st = DecodePassages(value, &passages); !st.ok()) return where + ": " + st.message();
    for (const StoredPassage& p : passages) {
      if (p.vector >= it->second) return where + " name vector " + std::to_string(p.vector) + ", which does not exist";
    }
    return "";
  }

  std::string name_ = kExtensionName;
  IndexTables tables_;
};

// A format-1 store kept two index settings in the store's meta table.
Status MoveLegacyMeta(StoreTxn* txn, const IndexTables& ix) {
  VEXFS_ASSIGN_OR_RETURN(auto embedder, txn->ReadLegacySetting(kLegacyEmbedderKey));
  if (embedder) VEXFS_RETURN_IF_ERROR(txn->Put(ix.models, kEmbedderKey, *embedder));
  VEXFS_RETURN_IF_ERROR(txn->DeleteLegacySetting(kLegacyEmbedderKey));
  return txn->DeleteLegacySetting(kLegacyGenerationKey);
}

// Subscribes the index to the change feed; a new subscription queues every view
// (it missed what came before) and moves what a format-1 store kept in meta.
Result<FeedSubscription> SubscribeToChanges(Store* store, const IndexTables& ix) {
  StoreTxn txn;
  if (IsReadOnly(store)) {
    VEXFS_RETURN_IF_ERROR(txn.Begin(store, /*write=*/false));
    VEXFS_ASSIGN_OR_RETURN(auto found, txn.FindSubscription(kExtensionName));
    return found.value_or(FeedSubscription());  // never indexed: nothing waits
  }
  VEXFS_RETURN_IF_ERROR(txn.Begin(store, /*write=*/true));
  VEXFS_ASSIGN_OR_RETURN(auto subscribed, txn.Subscribe(kExtensionName));
  FeedSubscription work = subscribed.first;
  if (!subscribed.second) return work;
  IndexTables with_work = ix;
  with_work.work = work;
  VEXFS_RETURN_IF_ERROR(QueueEveryView(&txn, with_work, /*forget_indexed=*/false));
  VEXFS_RETURN_IF_ERROR(MoveLegacyMeta(&txn, ix));
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  return work;
}

Result<IndexTables> RegisterSearchTables(Store* store) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<Table> tables, RegisterTables(store, TableSpecs()));
  IndexTables ix;
  ix.files = tables[0];
  ix.models = tables[1];
  ix.passages = tables[2];
  ix.vectors = tables[3];
  ix.vector_keys = tables[4];
  ix.legacy_queue = tables[5];
  VEXFS_ASSIGN_OR_RETURN(ix.work, SubscribeToChanges(store, ix));
  return ix;
}

Result<IndexTables> AttachedTables(const std::shared_ptr<Extension>& found) {
  auto* search = dynamic_cast<SearchExtension*>(found.get());
  if (search == nullptr) {
    return Status::InvalidArgument("another extension named 'search' is attached to the store");
  }
  return search->tables();
}

}  // namespace

std::string ManifestWorkEntry(const ObjectId& manifest) {
  return static_cast<char>(IndexWork::kManifest) + std::string(manifest.AsBytes());
}

Result<IndexTables> SearchTables(Store* store) {
  if (auto found = FindExtension(store, kExtensionName)) return AttachedTables(found);
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, RegisterSearchTables(store));
  Status st = AttachExtension(store, std::make_shared<SearchExtension>(ix));
  if (st.code() == StatusCode::kAlreadyExists) {  // another thread attached it meanwhile
    return AttachedTables(FindExtension(store, kExtensionName));
  }
  VEXFS_RETURN_IF_ERROR(st);
  return ix;
}

namespace {

// Moves up to `limit` format-1 queue entries in `txn`. The cursor lives only
// here: LMDB frees a write transaction's cursors at commit.
Status MoveLegacyEntries(StoreTxn* txn, const IndexTables& ix, size_t limit) {
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(*txn, ix.legacy_queue));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.First());
  for (size_t moved = 0; more && moved < limit; ++moved) {
    // Format-1 queue keys are the feed's entries: the same kinds, the same bytes.
    VEXFS_RETURN_IF_ERROR(ix.work.Post(txn, cursor.key()));
    VEXFS_RETURN_IF_ERROR(cursor.DeleteCurrent());
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return Status::Ok();
}

}  // namespace

Status AdoptLegacyQueue(Store* store, const IndexTables& ix) {
  constexpr size_t kMovePerTransaction = 4096;
  if (IsReadOnly(store)) return Status::Ok();
  {
    StoreTxn probe;
    VEXFS_RETURN_IF_ERROR(probe.Begin(store, /*write=*/false));
    TableCursor cursor;
    VEXFS_RETURN_IF_ERROR(cursor.Open(probe, ix.legacy_queue));
    VEXFS_ASSIGN_OR_RETURN(bool any, cursor.First());
    if (!any) return Status::Ok();
  }
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store, /*write=*/true));
  VEXFS_RETURN_IF_ERROR(MoveLegacyEntries(&txn, ix, kMovePerTransaction));
  return txn.Commit();
}

Status QueueEveryView(StoreTxn* txn, const IndexTables& ix, bool forget_indexed) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchRef> branches, txn->Branches());
  for (const BranchRef& branch : branches) {
    if (forget_indexed) {
      VEXFS_RETURN_IF_ERROR(txn->DeletePrefix(ix.files, BranchKeyPrefix(branch.id)));
    }
    VEXFS_ASSIGN_OR_RETURN(bool empty, txn->WorkingTreeIsEmpty(branch.id));
    if (!empty) VEXFS_RETURN_IF_ERROR(ix.work.Post(txn, TreeChangeEntry(branch.id)));
  }
  // Snapshots too: versions no working tree holds any more still need indexing.
  VEXFS_ASSIGN_OR_RETURN(std::vector<ObjectId> commits, txn->SnapshotCommits());
  for (const ObjectId& commit : commits) {
    VEXFS_RETURN_IF_ERROR(ix.work.Post(txn, SnapshotChangeEntry(commit)));
  }
  return Status::Ok();
}

std::string EncodeIndexedFile(const IndexedFile& f) {
  Encoder e;
  e.PutId(f.manifest);
  e.PutSignedVarint(f.ctime);
  return e.Take();
}

Status DecodeIndexedFile(std::string_view v, IndexedFile* f) {
  Decoder d(v);
  int64_t ctime = 0;
  if (!d.GetId(&f->manifest) || !d.GetSignedVarint(&ctime) || !d.done()) {
    return Status::Corruption("indexed-file record is malformed");
  }
  f->ctime = ctime;
  return Status::Ok();
}

}  // namespace vexfs::index
