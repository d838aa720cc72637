// Draining the indexing queue: read, embed outside any transaction, apply.
#include "index/indexing/indexer.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "common/coding.h"
#include "common/sha256.h"
#include "index/dense/vector_log.h"
#include "index/indexing/text_detect.h"
#include "index/lexical/analysis.h"
#include "index/lexical/log.h"
#include "index/model_registry.h"

namespace vexfs::index {

namespace {

constexpr size_t kNoSlot = SIZE_MAX;
constexpr size_t kTextsPerEmbed = 64;

struct PendingPassage {
  Passage range;
  ObjectId hash;
  std::optional<uint64_t> vector;  // known already
  size_t embed_slot = kNoSlot;     // else: which embedded text gives it
  std::optional<uint64_t> lexical;  // the same for the lexical model
  size_t lexical_slot = kNoSlot;
};

// Passage texts a model has never seen, each once per batch.
struct NewTexts {
  std::vector<std::string> texts;
  std::vector<ObjectId> hashes;
  std::unordered_map<ObjectId, size_t, ObjectIdHash> slot_of_hash;
  size_t bytes = 0;

  size_t SlotFor(const ObjectId& hash, std::string_view text) {
    auto [it, inserted] = slot_of_hash.try_emplace(hash, texts.size());
    if (inserted) {
      texts.emplace_back(text);
      hashes.push_back(hash);
      bytes += text.size();
    }
    return it->second;
  }
};

}  // namespace

// One queue entry and what indexing it means.
struct Indexer::Job {
  std::string key;
  std::string stamp;
  bool drop = false;   // nothing to index (file gone, not a file): just dequeue
  bool known = false;  // this version's passages are stored already
  bool lexical_known = false;  // ... and its lexical passages
  ObjectId manifest;
  bool is_file = false;  // a working-tree file: record it in ix_files
  uint32_t branch = 0;
  uint64_t ino = 0;
  TimeNs ctime = 0;
  std::vector<PendingPassage> passages;
};

namespace {

Result<std::optional<std::string>> BranchNameById(const StoreTxn& txn, uint32_t id) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchRef> branches, txn.Branches());
  for (BranchRef& branch : branches) {
    if (branch.id == id) return std::optional<std::string>(std::move(branch.name));
  }
  return std::optional<std::string>();
}

uint32_t BranchOfKey(std::string_view key) {
  Decoder d(key.substr(1));
  uint32_t id = 0;
  d.GetFixed32BE(&id);
  return id;
}

}  // namespace

Status BumpIndexGeneration(StoreTxn* txn, const IndexTables& ix) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t gen, ReadIndexGeneration(*txn, ix));
  Encoder e;
  e.PutFixed64BE(gen + 1);
  return txn->Put(ix.models, kIndexGenerationKey, e.data());
}

struct Indexer::Batch {
  char kind = static_cast<char>(ChangeKind::kFile);
  std::vector<Job> jobs;
  NewTexts dense;    // passage texts to embed, one per slot
  NewTexts lexical;  // passage texts new to the lexical model
  std::vector<float> vectors;  // dense.texts.size() * dim
  size_t text_bytes() const { return dense.bytes + lexical.bytes; }
  bool is_files() const { return kind == static_cast<char>(ChangeKind::kFile); }
};

Result<uint64_t> ReadIndexGeneration(const StoreTxn& txn, const IndexTables& ix) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.models, kIndexGenerationKey));
  if (!raw) return uint64_t{0};
  Decoder d(*raw);
  uint64_t gen = 0;
  if (!d.GetFixed64BE(&gen)) return Status::Corruption("index generation is malformed");
  return gen;
}

Indexer::Indexer(Store* store, Embedder* embedder, IndexerOptions options)
    : store_(store), embedder_(embedder), options_(options) {}

Result<ModelRecord> Indexer::EnsureModel() {
  if (model_) return *model_;
  VEXFS_ASSIGN_OR_RETURN(ix_, SearchTables(store_));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  VEXFS_ASSIGN_OR_RETURN(auto found, FindModel(txn, ix_, embedder_->info().name));
  txn.Abort();
  if (!found) {
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_, true));
    VEXFS_ASSIGN_OR_RETURN(ModelRecord m, RegisterModel(&txn, ix_, embedder_->info(),
                                                        ModelKind::kEmbedded));
    VEXFS_RETURN_IF_ERROR(txn.Commit());
    found = m;
  } else if (found->info.fingerprint != embedder_->info().fingerprint ||
             found->info.dim != embedder_->info().dim || found->kind != ModelKind::kEmbedded) {
    // Same name, different model: registering again gives the precise error.
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_, true));
    VEXFS_RETURN_IF_ERROR(
        RegisterModel(&txn, ix_, embedder_->info(), ModelKind::kEmbedded).status());
  }
  model_ = *found;
  if (options_.lexical) VEXFS_RETURN_IF_ERROR(EnsureLexicalModel());
  return *model_;
}

// The lexical model is registered beside the first text model. A store indexed
// before it existed gets every branch and snapshot queued once, so its files
// become lexically searchable without a re-index by hand.
Status Indexer::EnsureLexicalModel() {
  ModelInfo info{std::string(kLexicalModelName), 0, Metric::kInnerProduct, LexicalFingerprint()};
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  VEXFS_ASSIGN_OR_RETURN(auto found, FindModel(txn, ix_, info.name));
  txn.Abort();
  if (found && found->kind == ModelKind::kLexical && found->info.fingerprint == info.fingerprint) {
    lexical_ = *found;
    return Status::Ok();
  }
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, true));
  // Read again in the write transaction: another indexer may have appended.
  VEXFS_ASSIGN_OR_RETURN(found, FindModel(txn, ix_, info.name));
  if (found && found->kind == ModelKind::kLexical) {
    // Another analysis (a new release or Xapian version): the log holds texts,
    // which stay valid; only the Xapian files, which check the fingerprint, are
    // rebuilt.
    found->info.fingerprint = info.fingerprint;
    VEXFS_RETURN_IF_ERROR(SaveModel(&txn, ix_, *found));
    VEXFS_RETURN_IF_ERROR(txn.Commit());
    lexical_ = *found;
    return Status::Ok();
  }
  VEXFS_ASSIGN_OR_RETURN(ModelRecord m, RegisterModel(&txn, ix_, info, ModelKind::kLexical));
  if (!found) VEXFS_RETURN_IF_ERROR(QueueEveryView(&txn, ix_, /*forget_indexed=*/false));
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  lexical_ = m;
  return Status::Ok();
}

Result<size_t> Indexer::RunBatch() {
  VEXFS_RETURN_IF_ERROR(EnsureModel().status());
  VEXFS_RETURN_IF_ERROR(AdoptLegacyQueue(store_, ix_));
  Batch batch;
  {
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
    VEXFS_ASSIGN_OR_RETURN(std::vector<FeedItem> head, ix_.work.Peek(txn, "", 1));
    if (head.empty()) return size_t{0};
    const std::string& first = head[0].entry;
    const std::string& stamp = head[0].stamp;
    if (first.empty()) return Status::Corruption("the index's work set holds an empty entry");
    batch.kind = first[0];
    if (batch.kind == static_cast<char>(ChangeKind::kTree)) return ExpandBranch(first, stamp);
    if (batch.kind == static_cast<char>(ChangeKind::kSnapshot)) return ExpandCommit(first, stamp);
    if (batch.kind != static_cast<char>(ChangeKind::kFile) &&
        batch.kind != static_cast<char>(IndexWork::kManifest)) {
      return Status::Corruption("the index's work set holds an entry of unknown kind");
    }
    // Files of one branch, or snapshot file versions: one kind per batch.
    std::string group = batch.is_files() ? first.substr(0, 5) : first.substr(0, 1);
    VEXFS_ASSIGN_OR_RETURN(std::vector<FeedItem> items,
                           ix_.work.Peek(txn, group, options_.batch_entries));
    for (FeedItem& item : items) {
      Job job;
      job.key = std::move(item.entry);
      job.stamp = std::move(item.stamp);
      batch.jobs.push_back(std::move(job));
    }
  }
  VEXFS_RETURN_IF_ERROR(batch.is_files() ? PrepareFiles(&batch) : PrepareManifests(&batch));
  VEXFS_RETURN_IF_ERROR(Embed(&batch));
  VEXFS_RETURN_IF_ERROR(Apply(&batch));
  return batch.jobs.size();
}

Status Indexer::Drain(const ProgressFn& progress, const std::function<bool()>& stop,
                      uint64_t* handled_out) {
  uint64_t local = 0;
  uint64_t& handled = handled_out ? *handled_out : local;
  handled = 0;
  // Counting what is left walks the work set, so it is counted at most every
  // half second (counting after every batch would make a long drain quadratic);
  // in between, the estimate shrinks by what was handled.
  constexpr auto kRecount = std::chrono::milliseconds(500);
  auto counted_at = std::chrono::steady_clock::time_point{};
  uint64_t total = 0;
  while (!stop || !stop()) {
    VEXFS_ASSIGN_OR_RETURN(size_t n, RunBatch());
    if (n == 0) break;
    handled += n;
    if (!progress) continue;
    if (std::chrono::steady_clock::now() - counted_at >= kRecount) {
      StoreTxn txn;
      VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
      VEXFS_ASSIGN_OR_RETURN(uint64_t left, ix_.work.Pending(txn));
      total = handled + left;
      counted_at = std::chrono::steady_clock::now();
    }
    progress(handled, std::max(total, handled));
  }
  return Status::Ok();
}

// Texts are handed in, not queued: a batch holds as many as the bytes allow, so
// a bulk of short node texts commits once per thousand, not once per 64.
constexpr size_t kTextsPerBatch = 1024;

Status Indexer::IndexTexts(const std::vector<std::pair<ObjectId, std::string>>& texts) {
  VEXFS_RETURN_IF_ERROR(EnsureModel().status());
  size_t next = 0;
  while (next < texts.size()) {
    Batch batch;
    batch.kind = static_cast<char>(IndexWork::kManifest);
    {
      StoreTxn txn;
      VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
      while (next < texts.size() && batch.jobs.size() < kTextsPerBatch &&
             batch.text_bytes() < options_.batch_text_bytes) {
        std::string_view text = texts[next].second;
        Job job;
        job.manifest = texts[next].first;
        batch.jobs.push_back(std::move(job));
        auto read = [text](uint64_t n) -> Result<std::string> {
          return std::string(text.substr(0, n));
        };
        VEXFS_RETURN_IF_ERROR(PrepareContent(txn, read, batch.jobs.size() - 1, &batch));
        ++next;
      }
    }
    VEXFS_RETURN_IF_ERROR(Embed(&batch));
    VEXFS_RETURN_IF_ERROR(Apply(&batch));
  }
  return Status::Ok();
}

// Splits one file version into passages and finds which need embedding.
Status Indexer::PrepareContent(const StoreTxn& txn,
                               const std::function<Result<std::string>(uint64_t n)>& read,
                               size_t job_index, Batch* batch) {
  Job& job = batch->jobs[job_index];
  VEXFS_ASSIGN_OR_RETURN(auto stored, LoadPassages(txn, ix_, model_->id, job.manifest));
  job.known = stored.has_value();
  job.lexical_known = !lexical_;
  if (lexical_) {
    VEXFS_ASSIGN_OR_RETURN(auto lex, LoadPassages(txn, ix_, lexical_->id, job.manifest));
    job.lexical_known = lex.has_value();
  }
  if (job.known && job.lexical_known) return Status::Ok();
  VEXFS_ASSIGN_OR_RETURN(std::string bytes, read(options_.max_indexed_bytes));
  bytes.resize(CompleteUtf8Prefix(bytes));
  if (!LooksLikeText(bytes)) return Status::Ok();  // indexed: nothing to search
  for (const Passage& p : SplitPassages(bytes, options_.passages)) {
    std::string_view text = std::string_view(bytes).substr(p.offset, p.length);
    PendingPassage pending{p, Sha256Of(text), std::nullopt, kNoSlot, std::nullopt, kNoSlot};
    if (!job.known) {
      VEXFS_ASSIGN_OR_RETURN(pending.vector, FindVector(txn, ix_, model_->id, pending.hash));
      if (!pending.vector) pending.embed_slot = batch->dense.SlotFor(pending.hash, text);
    }
    if (!job.lexical_known) {
      VEXFS_ASSIGN_OR_RETURN(pending.lexical,
                             FindVector(txn, ix_, lexical_->id, pending.hash));
      if (!pending.lexical) pending.lexical_slot = batch->lexical.SlotFor(pending.hash, text);
    }
    job.passages.push_back(pending);
  }
  return Status::Ok();
}

Status Indexer::PrepareFiles(Batch* batch) {
  StoreTxn probe;
  VEXFS_RETURN_IF_ERROR(probe.Begin(store_, false));
  uint32_t branch = BranchOfKey(batch->jobs.front().key);
  VEXFS_ASSIGN_OR_RETURN(auto name, BranchNameById(probe, branch));
  probe.Abort();
  if (!name) {  // the branch was deleted
    for (Job& job : batch->jobs) job.drop = true;
    return Status::Ok();
  }
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.BeginOnBranch(store_, /*write=*/false, *name));
  for (size_t i = 0; i < batch->jobs.size(); ++i) {
    if (batch->text_bytes() >= options_.batch_text_bytes) {
      batch->jobs.resize(i);  // the rest waits for the next batch
      break;
    }
    VEXFS_RETURN_IF_ERROR(PrepareFile(&txn, i, batch));
  }
  return Status::Ok();
}

Status Indexer::PrepareFile(StoreTxn* txn, size_t job_index, Batch* batch) {
  Job& job = batch->jobs[job_index];
  job.is_file = true;
  if (!DecodeInodeKeyPrefix(std::string_view(job.key).substr(1), &job.branch, &job.ino)) {
    job.drop = true;  // a damaged entry names no file: consuming it loses nothing
    return Status::Ok();
  }
  auto rec = txn->Stat(job.ino);
  // Gone, not a file, or unlinked while open (an orphan is in no view).
  if (rec.status().IsNotFound() ||
      (rec.ok() && (rec->type != FileType::kRegular || rec->nlink == 0))) {
    job.drop = true;
    return Status::Ok();
  }
  VEXFS_RETURN_IF_ERROR(rec.status());
  job.ctime = rec->ctime;
  VEXFS_ASSIGN_OR_RETURN(job.manifest, txn->FileVersion(job.ino));
  uint64_t ino = job.ino;
  return PrepareContent(*txn, [&](uint64_t n) { return txn->ReadFile(ino, 0, n); }, job_index,
                        batch);
}

Status Indexer::PrepareManifests(Batch* batch) {
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  for (size_t i = 0; i < batch->jobs.size(); ++i) {
    if (batch->text_bytes() >= options_.batch_text_bytes) {
      batch->jobs.resize(i);
      break;
    }
    Job& job = batch->jobs[i];
    job.manifest = ObjectId::FromBytes(std::string_view(job.key).substr(1));
    auto size = txn.VersionSize(job.manifest);
    // Collected by gc, or damaged (fsck reports that): nothing to index.
    if (size.status().IsNotFound() || size.status().IsCorruption()) {
      job.drop = true;
      continue;
    }
    VEXFS_RETURN_IF_ERROR(size.status());
    const ObjectId version = job.manifest;
    VEXFS_RETURN_IF_ERROR(PrepareContent(
        txn, [&](uint64_t n) { return txn.ReadVersion(version, 0, n); }, i, batch));
  }
  return Status::Ok();
}

Status Indexer::Embed(Batch* batch) {
  if (batch->dense.texts.empty()) return Status::Ok();
  std::vector<std::string_view> views(batch->dense.texts.begin(), batch->dense.texts.end());
  std::vector<float> out;
  // Bounded requests: an external model's time-out applies to one request, and a
  // large batch must not exceed it only because it is large.
  for (size_t from = 0; from < views.size(); from += kTextsPerEmbed) {
    std::vector<std::string_view> part(views.begin() + from,
                                       views.begin() + std::min(views.size(), from + kTextsPerEmbed));
    VEXFS_RETURN_IF_ERROR(embedder_->Embed(part, &out).WithContext(
        "embedder '" + embedder_->info().name + "'"));
  }
  uint32_t dim = model_->info.dim;
  if (out.size() != views.size() * dim) {
    return Status::IOError("embedder '" + embedder_->info().name + "' returned " +
                           std::to_string(out.size()) + " values for " +
                           std::to_string(views.size()) + " texts of dimension " +
                           std::to_string(dim));
  }
  for (size_t i = 0; i < views.size(); ++i) {
    VEXFS_RETURN_IF_ERROR(ValidateVector(model_->info, out.data() + i * dim, dim)
                              .WithContext("embedder '" + embedder_->info().name + "'"));
  }
  batch->vectors = std::move(out);
  return Status::Ok();
}

Status Indexer::Apply(Batch* batch) {
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, true));
  // Re-read: another indexer may have appended vectors since EnsureModel().
  VEXFS_ASSIGN_OR_RETURN(auto model, FindModel(txn, ix_, model_->info.name));
  if (!model) return Status::Corruption("model '" + model_->info.name + "' vanished");
  Ids ids;
  ids.vector.resize(batch->dense.texts.size());
  for (size_t slot = 0; slot < batch->dense.texts.size(); ++slot) {
    const float* v = batch->vectors.data() + slot * model->info.dim;
    VEXFS_ASSIGN_OR_RETURN(ids.vector[slot],
                           AppendVector(&txn, ix_, &*model, batch->dense.hashes[slot], v));
  }
  std::optional<ModelRecord> lexical;
  if (lexical_) {
    VEXFS_ASSIGN_OR_RETURN(lexical, FindModel(txn, ix_, lexical_->info.name));
    if (!lexical) return Status::Corruption("model '" + lexical_->info.name + "' vanished");
    ids.lexical.resize(batch->lexical.texts.size());
    for (size_t slot = 0; slot < batch->lexical.texts.size(); ++slot) {
      VEXFS_ASSIGN_OR_RETURN(ids.lexical[slot],
                             AppendLexicalRecord(&txn, ix_, &*lexical, batch->lexical.hashes[slot],
                                                 batch->lexical.texts[slot]));
    }
    VEXFS_RETURN_IF_ERROR(SaveModel(&txn, ix_, *lexical));
  }
  for (Job& job : batch->jobs) {
    VEXFS_RETURN_IF_ERROR(ApplyJob(&txn, *model, lexical ? &*lexical : nullptr, ids, job));
  }
  VEXFS_RETURN_IF_ERROR(SaveModel(&txn, ix_, *model));
  VEXFS_RETURN_IF_ERROR(BumpIndexGeneration(&txn, ix_));
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  model_ = *model;
  lexical_ = lexical;
  return Status::Ok();
}

Status Indexer::ApplyJob(StoreTxn* txn, const ModelRecord& model, const ModelRecord* lexical,
                         const Ids& ids, const Job& job) {
  if (!job.drop && !job.known) {
    std::vector<StoredPassage> stored;
    for (const PendingPassage& p : job.passages) {
      uint64_t vector = p.vector ? *p.vector : ids.vector[p.embed_slot];
      stored.push_back({p.range.offset, p.range.length, vector});
    }
    VEXFS_RETURN_IF_ERROR(SavePassages(txn, ix_, model.id, job.manifest, stored));
  }
  if (!job.drop && !job.lexical_known && lexical != nullptr) {
    std::vector<StoredPassage> stored;
    for (const PendingPassage& p : job.passages) {
      uint64_t id = p.lexical ? *p.lexical : ids.lexical[p.lexical_slot];
      stored.push_back({p.range.offset, p.range.length, id});
    }
    VEXFS_RETURN_IF_ERROR(SavePassages(txn, ix_, lexical->id, job.manifest, stored));
  }
  if (job.is_file && !job.drop) VEXFS_RETURN_IF_ERROR(RecordIndexedFile(txn, job));
  if (job.key.empty()) return Status::Ok();  // a text handed in, not a queue entry
  return ix_.work.ConsumeIfUnchanged(txn, job.key, job.stamp).status();
}

// Marks the file indexed at this version, unless it changed since it was read.
Status Indexer::RecordIndexedFile(StoreTxn* txn, const Job& job) {
  VEXFS_ASSIGN_OR_RETURN(auto now, txn->FindInode(job.branch, job.ino));
  if (!now || now->ctime != job.ctime) return Status::Ok();
  return txn->Put(ix_.files, InodeKeyPrefix(job.branch, job.ino),
                  EncodeIndexedFile({job.manifest, job.ctime}));
}

Result<size_t> Indexer::ExpandBranch(const std::string& key, const std::string& stamp) {
  uint32_t branch = BranchOfKey(key);
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, true));
  VEXFS_ASSIGN_OR_RETURN(std::vector<Attributes> inodes, txn.ListInodes(branch));
  for (const Attributes& rec : inodes) {
    if (rec.type != FileType::kRegular) continue;
    uint64_t ino = rec.ino;
    VEXFS_ASSIGN_OR_RETURN(auto have, txn.Get(ix_.files, InodeKeyPrefix(branch, ino)));
    IndexedFile indexed;
    if (have && DecodeIndexedFile(*have, &indexed).ok() && indexed.ctime == rec.ctime) {
      // Indexed records are shared by models: only these models' passages count.
      VEXFS_ASSIGN_OR_RETURN(bool done, HasAllPassages(txn, indexed.manifest));
      if (done) continue;
    }
    VEXFS_RETURN_IF_ERROR(ix_.work.Post(&txn, FileChangeEntry(branch, ino)));
  }
  VEXFS_RETURN_IF_ERROR(ix_.work.ConsumeIfUnchanged(&txn, key, stamp).status());
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  return size_t{1};
}

Result<size_t> Indexer::ExpandCommit(const std::string& key, const std::string& stamp) {
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, true));
  auto tree = txn.CommitTree(ObjectId::FromBytes(std::string_view(key).substr(1)));
  if (tree.ok()) {
    VEXFS_RETURN_IF_ERROR(QueueUnindexedVersions(&txn, *tree));
  } else if (!tree.status().IsNotFound() && !tree.status().IsCorruption()) {
    return tree.status();
  }
  VEXFS_RETURN_IF_ERROR(ix_.work.ConsumeIfUnchanged(&txn, key, stamp).status());
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  return size_t{1};
}

// Queues every file version under `root` that has no passages for the model.
Status Indexer::QueueUnindexedVersions(StoreTxn* txn, const ObjectId& root) {
  std::unordered_set<ObjectId, ObjectIdHash> seen;
  std::vector<ObjectId> trees{root};
  while (!trees.empty()) {
    ObjectId id = trees.back();
    trees.pop_back();
    VEXFS_ASSIGN_OR_RETURN(std::vector<StoredEntry> entries, txn->ReadTree(id));
    for (const StoredEntry& e : entries) {
      if (!seen.insert(e.id).second) continue;
      if (e.attr.type == FileType::kDirectory) trees.push_back(e.id);
      if (e.attr.type != FileType::kRegular) continue;
      VEXFS_ASSIGN_OR_RETURN(bool done, HasAllPassages(*txn, e.id));
      if (!done) VEXFS_RETURN_IF_ERROR(ix_.work.Post(txn, ManifestWorkEntry(e.id)));
    }
  }
  return Status::Ok();
}

// Whether the text model and the lexical model both have this version's passages.
Result<bool> Indexer::HasAllPassages(const StoreTxn& txn, const ObjectId& manifest) {
  VEXFS_ASSIGN_OR_RETURN(auto stored, LoadPassages(txn, ix_, model_->id, manifest));
  if (!stored || !lexical_) return stored.has_value();
  VEXFS_ASSIGN_OR_RETURN(auto lex, LoadPassages(txn, ix_, lexical_->id, manifest));
  return lex.has_value();
}

}  // namespace vexfs::index
