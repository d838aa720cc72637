// Agent bundles (vexfs/agent_bundle.h): a whole agent (files, memory graph, a
// KV state) moves to another store with the same commit and node ids and is
// searchable there; an incremental bundle carries what changed; and every bad
// bundle (untrusted or missing signature, damage anywhere, a missing base, a
// taken branch or name, a manifest that lies, more than the disk holds) is
// refused with the target store unchanged.
#include "vexfs/agent_bundle.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agent/bundle_layout.h"
#include "agent/manifest.h"
#include "agent/object_pack.h"
#include "store/objects.h"
#include "test_util.h"
#include "vexfs/agent_resume.h"
#include "vexfs/graph.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/usxf_io.h"

namespace vexfs::agent {
namespace {

// One layer, 2 KV heads of dim 4, `tokens` tokens, f16: a state file with real
// structure and no model behind it (resume is tested with the tiny models).
kv::StateBundle SmallState(int tokens) {
  kv::StateBundle b;
  usxf::KvCacheInfo& info = b.info;
  info.arch = "qwen2";
  info.weights_fingerprint.fill(1);
  info.hparams_fingerprint.fill(2);
  info.tokenizer_fingerprint.fill(3);
  info.n_layers = 1;
  info.n_heads = {4};
  info.n_kv_heads = {2};
  info.k_head_dim = {4};
  info.v_head_dim = {4};
  info.attention = usxf::AttentionKind::kGQA;
  for (int i = 0; i < tokens; ++i) info.token_ids.push_back(100 + i);
  info.block_size = 4;
  info.ComputeBlockHashes();
  b.kv.type = kv::CacheType::kF16;
  b.kv.n_tokens = tokens;
  b.kv.data = test::RandomBytes(7, info.ElementCount() * 2);
  b.next_logits = {0.25f, -1.0f, 4.0f};
  return b;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), bytes.size());
}

// What an import must leave alone when it is refused.
struct StoreState {
  uint64_t last_commit = 0;
  std::vector<std::string> snapshots;
  std::vector<std::string> branches;
  bool operator==(const StoreState&) const = default;
};

class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = Open("source");
    target_ = Open("target");
    key_ = usxf::SigningKey::Generate().value();
    std::filesystem::create_directories(dir_.Sub("keyring"));
    ASSERT_OK(usxf::SavePublicKey(dir_.Sub("keyring/agent.pub"), key_.public_key));
    keyring_ = usxf::Keyring::Load(dir_.Sub("keyring")).value();
    ASSERT_OK(kv::WriteStateFile(dir_.Sub("ctx.usxf"), SmallState(12), nullptr));
  }

  std::unique_ptr<Db> Open(const std::string& name) {
    DbOptions o = DefaultDbOptions();
    o.embedder = "hash";
    o.sync_on_commit = false;
    // No indexer committing in the background: the tests compare the stores'
    // commit counters (a search with wait indexes what it needs).
    o.background_indexing = false;
    auto db = Db::Create(dir_.Sub(name), o);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return std::move(db).value();
  }

  void Put(Db& db, const std::string& path, const std::string& text) {
    auto tree = db.store().Tree().value();
    ASSERT_OK(test::PutFile(tree.get(), path, text));
  }

  // Files, a conversation whose turn is covered by the KV cache "ctx", a done
  // and an open pending action; then snapshot `name`.
  CommitInfo Agent(const std::string& name, int files) {
    for (int i = 0; i < files; ++i) {
      Put(*source_, "/notes/n" + std::to_string(i) + ".md", "note " + std::to_string(i) + " about topic" + std::to_string(i));
    }
    Put(*source_, "/notes/lighthouse.md", "the lighthouse keeper logs the fog horn schedule");
    GraphBatch batch;
    turn_ = batch.AddNode(NodeSpec{.kind = "turn", .text = "user asked about the lighthouse", .thread = "t1",
                                   .span = KvSpan{.cache = "ctx", .start = 0, .end = 12, .cache_tokens = 12}});
    done_ = batch.AddNode(NodeSpec{.kind = "pending_action", .text = "send the report", .key = "send-1"});
    open_ = batch.AddNode(NodeSpec{.kind = "pending_action", .text = "book the boat", .key = "book-1"});
    batch.SetAction(done_, ActionState::kDone);
    EXPECT_OK(source_->graph().Apply(batch).status());
    return source_->store().CreateSnapshot(name, "", {}).value();
  }

  std::string Export(const ExportOptions& o, const std::string& name = "agent.usxf") {
    const std::string path = dir_.Sub(name);
    auto report = ExportToPath(*source_, o, path);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return path;
  }

  ExportOptions Signed() {
    ExportOptions o;
    o.kv = {{"ctx", dir_.Sub("ctx.usxf")}};
    o.signers = {&key_};
    return o;
  }

  Result<ImportReport> ImportInto(Db& db, const std::string& path, const std::string& branch = "moved",
                                  bool with_keyring = true) {
    ImportOptions o;
    o.keyring = with_keyring ? &keyring_ : nullptr;
    o.branch = branch;
    return Import(db, path, o);
  }

  StoreState StateOf(Db& db) {
    StoreState s;
    s.last_commit = db.store().LastCommitId();
    std::vector<CommitInfo> snapshots = db.store().ListSnapshots().value();
    for (const CommitInfo& c : snapshots) {
      for (const std::string& n : c.names) s.snapshots.push_back(n + "=" + c.id.ToHex());
    }
    std::vector<BranchInfo> branches = db.store().ListBranches().value();
    for (const BranchInfo& b : branches) s.branches.push_back(b.name);
    return s;
  }

  // Imports `path` expecting `code`, and that the target did not change.
  void ExpectRefused(const std::string& path, StatusCode code, bool with_keyring = true,
                     const std::string& needle = "") {
    StoreState before = StateOf(*target_);
    auto r = ImportInto(*target_, path, "moved", with_keyring);
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    if (!needle.empty()) {
      EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().ToString();
    }
    EXPECT_EQ(StateOf(*target_), before);
    EXPECT_FALSE(std::filesystem::exists(KvStatePath(DefaultKvDir(*target_), "ctx")));
  }

  std::vector<GraphNode> Nodes(Db& db, const std::string& snapshot) {
    GraphQuery q;
    q.read.snapshot = snapshot;
    q.read.include_invalid = true;
    return db.graph().Nodes(q).value();
  }

  test::TempDir dir_;
  std::unique_ptr<Db> source_, target_;
  usxf::SigningKey key_;
  usxf::Keyring keyring_;
  GraphId turn_, done_, open_;
};

TEST_F(BundleTest, WholeAgentArrivesWithSameIdsGraphKvAndSearch) {
  CommitInfo s1 = Agent("s1", 30);
  const std::string path = Export(Signed());
  ASSIGN_OR_FAIL(ImportReport r, ImportInto(*target_, path));

  ASSIGN_OR_FAIL(CommitInfo there, target_->store().ResolveSnapshot("s1"));
  EXPECT_EQ(there.id, s1.id);
  EXPECT_EQ(there.roots, s1.roots);
  EXPECT_EQ(r.manifest.snapshot, s1.id);
  ASSERT_EQ(r.signatures.size(), 1u);
  EXPECT_TRUE(r.signatures[0].valid);

  auto here_view = source_->store().OpenSnapshot("s1").value();
  auto there_view = target_->store().Tree("moved").value();
  EXPECT_EQ(test::DumpTree(there_view.get()).value(), test::DumpTree(here_view.get()).value());
  EXPECT_EQ(Nodes(*target_, "s1"), Nodes(*source_, "s1"));
  GraphQuery done;
  done.action = ActionState::kDone;
  done.read.branch = "moved";
  auto done_there = target_->graph().Nodes(done).value();
  ASSERT_EQ(done_there.size(), 1u);
  EXPECT_EQ(done_there[0].id, done_);

  ASSERT_EQ(r.manifest.kv.size(), 1u);
  EXPECT_EQ(r.manifest.kv[0].nodes, std::vector<std::string>{turn_.ToHex()});
  ASSERT_EQ(r.kv_files.size(), 1u);
  EXPECT_EQ(ReadBytes(r.kv_files[0]), ReadBytes(dir_.Sub("ctx.usxf")));
  ASSIGN_OR_FAIL(kv::StateBundle state, kv::ReadStateFile(r.kv_files[0], nullptr));
  EXPECT_EQ(state.info.token_ids, SmallState(12).info.token_ids);

  SearchRequest q;
  q.query = "lighthouse fog horn";
  ASSIGN_OR_FAIL(DbBranch moved, target_->Branch("moved"));
  ASSIGN_OR_FAIL(SearchResult hits, moved.Search(q, /*wait=*/true));
  ASSERT_FALSE(hits.hits.empty());
  EXPECT_EQ(hits.hits[0].path, "notes/lighthouse.md");
  EXPECT_TRUE(test::FsckClean(target_->store()));
}

TEST_F(BundleTest, ImportingTwiceChangesNothing) {
  Agent("s1", 5);
  const std::string path = Export(Signed());
  ASSERT_OK(ImportInto(*target_, path).status());
  StoreState after_first = StateOf(*target_);
  ASSIGN_OR_FAIL(ImportReport again, ImportInto(*target_, path));
  EXPECT_EQ(again.objects_added, 0u);
  EXPECT_EQ(StateOf(*target_), after_first) << "a second import wrote to the store";
}

TEST_F(BundleTest, AnotherStateUnderTheSameCacheIdentityIsRefused) {
  Agent("s1", 5);
  ASSERT_OK(ImportInto(*target_, Export(Signed())).status());
  const std::string held = ReadBytes(KvStatePath(DefaultKvDir(*target_), "ctx"));
  // A later capture under the same identity: the first state is the target's own.
  ASSERT_OK(kv::WriteStateFile(dir_.Sub("ctx.usxf"), SmallState(16), nullptr));
  Put(*source_, "/notes/n1.md", "changed");
  ASSERT_TRUE(source_->store().CreateSnapshot("s2", "", {}).ok());
  ExportOptions o = Signed();
  o.since = {"s1"};
  StoreState before = StateOf(*target_);
  auto r = ImportInto(*target_, Export(o, "step.usxf"), "step");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kAlreadyExists) << r.status().ToString();
  EXPECT_EQ(StateOf(*target_), before);
  EXPECT_EQ(ReadBytes(KvStatePath(DefaultKvDir(*target_), "ctx")), held);
}

// Where `agent resume` starts: the latest turn a KV cache covers (turns
// written in one batch ordered by their spans), the turns after it, and the
// pending actions by whether they completed.
TEST_F(BundleTest, TheResumePointIsTheLatestCoveredTurn) {
  GraphBatch first;
  first.AddNode(NodeSpec{.kind = "turn", .text = "early", .thread = "t1",
                         .span = KvSpan{.cache = "ctx", .start = 0, .end = 4, .cache_tokens = 12}});
  GraphId late = first.AddNode(NodeSpec{.kind = "turn", .text = "late", .thread = "t1",
                                        .span = KvSpan{.cache = "ctx", .start = 4, .end = 12, .cache_tokens = 12}});
  GraphId done = first.AddNode(NodeSpec{.kind = "pending_action", .text = "sent", .key = "a1"});
  first.AddNode(NodeSpec{.kind = "pending_action", .text = "to book", .key = "a2"});
  first.SetAction(done, ActionState::kDone);
  ASSERT_OK(source_->graph().Apply(first).status());
  GraphBatch second;
  GraphId after = second.AddNode(NodeSpec{.kind = "turn", .text = "not in the cache", .thread = "t1"});
  ASSERT_OK(source_->graph().Apply(second).status());
  std::filesystem::create_directories(DefaultKvDir(*source_));
  std::filesystem::copy_file(dir_.Sub("ctx.usxf"), KvStatePath(DefaultKvDir(*source_), "ctx"));

  ASSIGN_OR_FAIL(ResumePoint point, FindResumePoint(*source_, {}));
  EXPECT_EQ(point.turn.id, late);
  EXPECT_EQ(point.cache, "ctx");
  ASSERT_EQ(point.uncovered_turns.size(), 1u);
  EXPECT_EQ(point.uncovered_turns[0].id, after);
  ASSERT_EQ(point.completed_actions.size(), 1u);
  EXPECT_EQ(point.completed_actions[0].id, done);
  EXPECT_EQ(point.open_actions.size(), 1u);
  EXPECT_EQ(FindResumePoint(*source_, {}, "another").status().code(), StatusCode::kNotFound);
}


TEST_F(BundleTest, IncrementalBundleCarriesWhatChanged) {
  CommitInfo s1 = Agent("s1", 200);
  ASSERT_OK(ImportInto(*target_, Export(Signed(), "full.usxf")).status());

  Put(*source_, "/notes/n7.md", "note 7, revised");
  GraphBatch turn;
  turn.AddNode(NodeSpec{.kind = "turn", .text = "a new turn", .thread = "t1"});
  ASSERT_OK(source_->graph().Apply(turn).status());
  CommitInfo s2 = source_->store().CreateSnapshot("s2", "", {}).value();

  ExportOptions o;
  o.since = {"s1"};
  o.signers = {&key_};
  ASSIGN_OR_FAIL(ExportReport e, ExportToPath(*source_, o, dir_.Sub("step.usxf")));
  EXPECT_EQ(e.manifest.base, std::vector<ObjectId>{s1.id});
  // The commit, the root and notes directories, the file and its chunk, and
  // the graph tree's changed path: not the 200 files.
  EXPECT_LE(e.manifest.objects, 20u);
  ASSIGN_OR_FAIL(ImportReport r, ImportInto(*target_, dir_.Sub("step.usxf"), "step"));
  EXPECT_EQ(target_->store().ResolveSnapshot("s2").value().id, s2.id);
  auto here = source_->graph().Diff("s1", "s2").value();
  auto there = target_->graph().Diff("s1", "s2").value();
  ASSERT_EQ(there.changes.size(), here.changes.size());
  for (size_t i = 0; i < here.changes.size(); ++i) EXPECT_EQ(there.changes[i].node, here.changes[i].node);
  std::vector<DiffEntry> changed = target_->store().Diff("s1", "s2").value();
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0].path, "notes/n7.md");
  EXPECT_EQ(changed[1].root, "graph");
  EXPECT_TRUE(test::FsckClean(target_->store()));
}

TEST_F(BundleTest, IncrementalBundleWithoutItsBaseIsRefused) {
  Agent("s1", 5);
  Put(*source_, "/notes/n1.md", "changed");
  ASSERT_TRUE(source_->store().CreateSnapshot("s2", "", {}).ok());
  ExportOptions o = Signed();
  o.since = {"s1"};
  ExpectRefused(Export(o), StatusCode::kNotFound, true, "lacks");
}

TEST_F(BundleTest, SignaturesAreRequiredAndChecked) {
  Agent("s1", 5);
  ExportOptions unsigned_bundle;
  ExpectRefused(Export(unsigned_bundle, "unsigned.usxf"), StatusCode::kPermissionDenied);

  usxf::SigningKey stranger = usxf::SigningKey::Generate().value();
  ExportOptions by_stranger;
  by_stranger.signers = {&stranger};
  ExpectRefused(Export(by_stranger, "stranger.usxf"), StatusCode::kPermissionDenied);
  // A signed bundle read without a keyring: its signature could not be checked.
  ExpectRefused(Export(by_stranger, "stranger.usxf"), StatusCode::kPermissionDenied, /*with_keyring=*/false);
}

TEST_F(BundleTest, DamageAnywhereIsRefusedAndChangesNothing) {
  Agent("s1", 40);
  const std::string path = Export(Signed());
  const std::string good = ReadBytes(path);
  const std::string bad = dir_.Sub("bad.usxf");
  test::Random rng(37);
  // Bit flips at spread and random offsets: preamble, header, manifest,
  // objects, the KV state, footer.
  std::vector<uint64_t> offsets = {0, 10, 100, 300, good.size() / 2, good.size() - 1, good.size() - 100};
  for (int i = 0; i < 40; ++i) offsets.push_back(rng.Uniform(0, good.size() - 1));
  for (uint64_t at : offsets) {
    std::string damaged = good;
    damaged[at] ^= static_cast<char>(1u << rng.Uniform(0, 7));
    WriteBytes(bad, damaged);
    StoreState before = StateOf(*target_);
    auto r = ImportInto(*target_, bad);
    EXPECT_FALSE(r.ok()) << "a flip at " << at << " of " << good.size() << " was imported";
    EXPECT_EQ(StateOf(*target_), before);
  }
  for (uint64_t cut : {uint64_t{0}, uint64_t{79}, good.size() / 3, good.size() - 1}) {
    WriteBytes(bad, std::string_view(good).substr(0, cut));
    StoreState before = StateOf(*target_);
    EXPECT_FALSE(ImportInto(*target_, bad).ok()) << "cut at " << cut;
    EXPECT_EQ(StateOf(*target_), before);
  }
}

TEST_F(BundleTest, BranchOrNameHeldElsewhereIsRefusedBeforeWriting) {
  Agent("s1", 5);
  const std::string path = Export(Signed());
  Put(*target_, "/other.md", "another agent's memory");
  ASSERT_TRUE(target_->store().CreateSnapshot("elsewhere", "", {}).ok());
  ASSERT_OK(target_->store().CreateBranch("moved", std::string("elsewhere")));
  ExpectRefused(path, StatusCode::kAlreadyExists, true, "branch 'moved'");

  ASSERT_OK(target_->store().TagSnapshot("s1", "elsewhere"));
  StoreState before = StateOf(*target_);
  auto r = ImportInto(*target_, path, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kAlreadyExists) << r.status().ToString();
  EXPECT_EQ(StateOf(*target_), before);
}

// Runs `vexfs --store STORE agent import BUNDLE --branch moved` and kills it
// with SIGKILL after `delay` (or lets it finish when delay is negative).
// Returns whether the kill landed before the importer finished.
bool ImportKilledAfter(const std::string& store, const std::string& bundle, std::chrono::microseconds delay) {
  const char* bin = std::getenv("VEXFS_BIN");
  EXPECT_NE(bin, nullptr) << "VEXFS_BIN is not set";
  if (bin == nullptr) return false;
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    execl(bin, bin, "--store", store.c_str(), "agent", "import", bundle.c_str(), "--branch", "moved",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  if (delay.count() >= 0) {
    std::this_thread::sleep_for(delay);
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (delay.count() < 0) {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the import failed";
  }
  return WIFSIGNALED(status);
}

TEST_F(BundleTest, AnImporterKilledAnywhereLeavesNothingOrAllOfIt) {
  CommitInfo s1 = Agent("s1", 1500);
  ExportOptions o;
  o.kv = {{"ctx", dir_.Sub("ctx.usxf")}};
  const std::string path = Export(o);
  auto here = source_->store().OpenSnapshot("s1").value();
  const test::TreeDump expected = test::DumpTree(here.get()).value();
  // How long a whole import takes here, so the kills spread over it.
  Open("timed").reset();
  auto start = std::chrono::steady_clock::now();
  ASSERT_FALSE(ImportKilledAfter(dir_.Sub("timed"), path, std::chrono::microseconds(-1)));
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
  ASSERT_TRUE(Db::Open(dir_.Sub("timed"), DefaultDbOptions()).value()->store().ResolveSnapshot("s1").ok());

  int untouched = 0, killed = 0;
  for (int i = 0; i < 10; ++i) {
    const std::string store = dir_.Sub("kill" + std::to_string(i));
    Open("kill" + std::to_string(i)).reset();
    killed += ImportKilledAfter(store, path, whole * i / 10);
    auto db = Db::Open(store, DefaultDbOptions()).value();
    auto held = db->store().ResolveSnapshot("s1");
    if (!held.ok()) {
      EXPECT_TRUE(held.status().IsNotFound()) << held.status().ToString();
      EXPECT_EQ(db->store().ListBranches().value().size(), 1u) << "a branch without its snapshot";
      ++untouched;
    } else {
      EXPECT_EQ(held->id, s1.id);
    }
    EXPECT_TRUE(test::FsckClean(db->store())) << "kill " << i;
    // Running the import again completes whatever the kill cut short.
    ImportOptions again;
    again.branch = "moved";
    ASSERT_OK(Import(*db, path, again).status());
    auto tree = db->store().Tree("moved").value();
    EXPECT_EQ(test::DumpTree(tree.get()).value(), expected) << "kill " << i;
    EXPECT_TRUE(std::filesystem::exists(KvStatePath(DefaultKvDir(*db), "ctx")));
    for (const auto& entry : std::filesystem::directory_iterator(DefaultKvDir(*db))) {
      EXPECT_EQ(entry.path().extension(), ".usxf") << "left behind: " << entry.path();
    }
  }
  EXPECT_GE(untouched, 1);
  EXPECT_GE(killed, 1);
}

// A bundle made by hand (unsigned, so it verifies without a keyring) whose
// manifest is sound JSON but lies.
class ForgedBundleTest : public BundleTest {
 protected:
  // `lie` changes the manifest, and the first object pack when it is given one.
  std::string Forge(const std::function<void(BundleManifest*)>& lie,
                    const std::function<void(BundleManifest*, std::string*)>& lie_in_pack = nullptr) {
    Agent("s1", 5);
    ExportOptions o;
    o.kv = {{"ctx", dir_.Sub("ctx.usxf")}};
    auto file = usxf::MappedFile::Open(Export(o, "honest.usxf")).value();
    BundleManifest m = DecodeManifest(file->StoredBytes(file->Find(kManifestSection).value())).value();
    std::string pack(file->StoredBytes(file->Find(ObjectSection(0)).value()));
    lie(&m);
    if (lie_in_pack) lie_in_pack(&m, &pack);
    std::string manifest = EncodeManifest(m);
    std::vector<usxf::SectionData> sections;
    for (size_t i = 0; i < file->sections().size(); ++i) {
      usxf::SectionData s;
      s.info.name = file->sections()[i].name;
      s.values = s.info.name == kManifestSection ? std::string_view(manifest)
                 : s.info.name == ObjectSection(0) ? std::string_view(pack)
                                                    : file->StoredBytes(i);
      sections.push_back(s);
    }
    const std::string path = dir_.Sub("forged.usxf");
    EXPECT_OK(usxf::WriteFileToPath(path, sections, usxf::Metadata()));
    return path;
  }
};

TEST_F(ForgedBundleTest, MoreThanTheDiskHoldsIsRefused) {
  std::string path = Forge([](BundleManifest* m) { m->object_bytes = 1ull << 60; });
  ExpectRefused(path, StatusCode::kNoSpace, /*with_keyring=*/false, "free");
}

TEST_F(ForgedBundleTest, CountsThatDisagreeAreRefused) {
  std::string path = Forge([](BundleManifest* m) { m->objects += 1; });
  ExpectRefused(path, StatusCode::kCorruption, /*with_keyring=*/false, "manifest says");
}

TEST_F(ForgedBundleTest, ASnapshotThatIsNotInTheBundleIsRefused) {
  std::string path = Forge([](BundleManifest* m) { m->snapshot.bytes[0] ^= 1; });
  ExpectRefused(path, StatusCode::kCorruption, /*with_keyring=*/false, "snapshot");
}

TEST_F(ForgedBundleTest, AnExtensionThisProgramLacksIsRefused) {
  std::string path = Forge([](BundleManifest* m) { m->extensions.push_back("telepathy"); });
  ExpectRefused(path, StatusCode::kNotSupported, /*with_keyring=*/false, "telepathy");
}

// The same when only a commit says so and the manifest keeps quiet: its
// roots are read, not the manifest's list.
TEST_F(ForgedBundleTest, ACommitCarryingDataOfAnUnknownExtensionIsRefused) {
  std::string path = Forge([](BundleManifest*) {}, [](BundleManifest* m, std::string* pack) {
    std::string snapshot_stored;
    ASSERT_OK(DecodePack(*pack, "objects.0", [&](const ObjectId& id, std::string_view stored) {
      if (id == m->snapshot) snapshot_stored = std::string(stored);
      return Status::Ok();
    }));
    internal::ObjectType type;
    std::string payload;
    ASSERT_OK(internal::VerifyStoredObject(m->snapshot, snapshot_stored, &type, &payload));
    internal::Commit commit;
    ASSERT_OK(internal::DecodeCommit(payload, &commit));
    commit.roots["telepathy"] = commit.tree;  // an object the bundle holds
    const std::string forged = internal::EncodeCommit(commit);
    const ObjectId id = internal::ComputeObjectId(internal::ObjectType::kCommit, forged);
    const std::string stored = internal::EncodeStoredObject(id, internal::ObjectType::kCommit, forged);
    *pack += PackRecordHead(id, stored.size()) + stored;
    m->objects += 1;
    m->object_bytes += stored.size();
    m->snapshot = id;
    m->names = {{"forged", id}};
  });
  ExpectRefused(path, StatusCode::kNotSupported, /*with_keyring=*/false, "telepathy");
}

TEST_F(ForgedBundleTest, ASectionTheManifestDoesNotNameIsRefused) {
  std::string path = Forge([](BundleManifest* m) { m->kv.clear(); });
  ExpectRefused(path, StatusCode::kCorruption, /*with_keyring=*/false, "not in its manifest");
}

}  // namespace
}  // namespace vexfs::agent
