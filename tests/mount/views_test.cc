// The mount beside the rest of VexFS: .vexfs/ views against the CLI, vectors and
// metadata as xattrs, background indexing after close, the CLI on a mounted
// store, shutdown by signal, a killed daemon, and the mount(8) helper.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "fuse/mount_lock.h"
#include "fuse/mount_table.h"
#include "mount/mount_test_util.h"

namespace vexfs::mount_test {
namespace {

using Clock = std::chrono::steady_clock;

// Names in a directory, sorted (no "." or "..").
std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadLinkAt(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
  return n < 0 ? "<" + std::string(std::strerror(errno)) + ">" : std::string(buf, n);
}

class ViewsTest : public MountTest {
 protected:
  CommandResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--store", store()});
    return RunVexfs(args);
  }
};

TEST_F(ViewsTest, SnapshotViewAgreesWithCatAt) {
  ASSERT_EQ(::mkdir(P("notes").c_str(), 0755), 0);
  ASSERT_EQ(WritePath(P("notes/plan.md"), "first plan"), 0);
  ASSERT_EQ(WritePath(P("top.txt"), "top"), 0);
  ASSERT_EQ(::symlink("notes/plan.md", P("link").c_str()), 0);
  ASSERT_TRUE(Cli({"snapshot", "create", "before"}).ok());
  ASSERT_EQ(WritePath(P("notes/plan.md"), "second plan"), 0);
  ASSERT_EQ(::unlink(P("top.txt").c_str()), 0);

  std::string snap = P(".vexfs/snapshots/before");
  EXPECT_EQ(ListDir(P(".vexfs/snapshots")), std::vector<std::string>{"before"});
  EXPECT_EQ(ListDir(snap), (std::vector<std::string>{"link", "notes", "top.txt"}));
  for (std::string path : {"notes/plan.md", "top.txt"}) {
    CommandResult cat = Cli({"cat", path, "--at", "before"});
    ASSERT_TRUE(cat.ok()) << cat.err;
    EXPECT_EQ(ReadPath(snap + "/" + path), cat.out) << path;
  }
  EXPECT_EQ(ReadLinkAt(snap + "/link"), "notes/plan.md");
  EXPECT_EQ(ReadPath(P("notes/plan.md")), "second plan");
  struct stat st {};
  ASSERT_EQ(::stat((snap + "/notes/plan.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 10);
  EXPECT_EQ(st.st_mode & 0222, 0u);  // shown read-only
  EXPECT_EQ(ReadPath(P(".vexfs/snapshots/nope/x")), "<No such file or directory>");
}

// A file name that is not UTF-8 (any bytes but '/' and NUL are a valid name)
// must not break the JSON lines of a search: the bad bytes are replaced there,
// and the link, named with the real bytes, still leads to the file.
TEST_F(ViewsTest, SearchViewOfANonUtf8FileName) {
  const std::string name = "caf\xe9-notes.md";
  ASSERT_EQ(WritePath(P(name), "The lighthouse keeper trims the wick."), 0);
  ASSERT_TRUE(Cli({"index", "wait"}).ok());
  std::string dir = P(".vexfs/search/lighthouse wick@k=1");
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"01-" + name, "results.jsonl"}));
  std::string jsonl = ReadPath(dir + "/results.jsonl");
  auto line = nlohmann::json::parse(jsonl, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(line.is_discarded()) << jsonl;
  EXPECT_EQ(line["path"], "caf\xef\xbf\xbd-notes.md");  // U+FFFD for the bad byte
  EXPECT_EQ(ReadPath(dir + "/01-" + name), "The lighthouse keeper trims the wick.");
}

TEST_F(ViewsTest, SearchViewAgreesWithCliSearch) {
  ASSERT_EQ(WritePath(P("tabs.md"), "The agent prefers tabs over spaces in Go code."), 0);
  ASSERT_EQ(WritePath(P("deploy.md"), "Deploys run every Friday from the release branch."), 0);
  ASSERT_EQ(WritePath(P("lunch.md"), "Lunch is at noon; the team likes ramen."), 0);
  ASSERT_TRUE(Cli({"index", "wait"}).ok());
  // Dense mode ranks all three files, so the agreement covers a whole list.
  CommandResult cli = Cli({"search", "which release branch do deploys use", "-k", "3",
                           "--mode", "dense", "--json"});
  ASSERT_TRUE(cli.ok()) << cli.err;
  auto hits = nlohmann::json::parse(cli.out)["hits"];
  ASSERT_EQ(hits.size(), 3u);

  std::string dir = P(".vexfs/search/which release branch do deploys use@k=3,mode=dense");
  std::vector<std::string> names = ListDir(dir);
  ASSERT_EQ(names.size(), 4u);  // three links and results.jsonl
  EXPECT_EQ(names.back(), "results.jsonl");
  for (size_t i = 0; i < 3; ++i) {
    std::string path = hits[i]["path"];
    EXPECT_EQ(names[i], "0" + std::to_string(i + 1) + "-" + path);
    EXPECT_EQ(ReadLinkAt(dir + "/" + names[i]), "../../../" + path);
    EXPECT_EQ(ReadPath(dir + "/" + names[i]), ReadPath(P(path)));  // the link resolves
  }
  std::string jsonl = ReadPath(dir + "/results.jsonl");
  std::istringstream lines(jsonl);
  std::string line;
  for (size_t i = 0; std::getline(lines, line); ++i) {
    auto r = nlohmann::json::parse(line);
    EXPECT_EQ(r["path"], hits[i]["path"]);
    EXPECT_EQ(r["rank"], i + 1);
    EXPECT_NEAR(r["score"].get<double>(), hits[i]["score"].get<double>(), 1e-6);
  }
  // Options: a prefix filter, and a search of a snapshot.
  ASSERT_TRUE(Cli({"snapshot", "create", "s1"}).ok());
  ASSERT_EQ(::unlink(P("deploy.md").c_str()), 0);
  ASSERT_TRUE(Cli({"index", "wait"}).ok());
  // Lexical (the default): no file of the working tree has these words any more.
  EXPECT_EQ(ListDir(P(".vexfs/search/release branch deploys@k=1")),
            std::vector<std::string>{"results.jsonl"});
  auto now = ListDir(P(".vexfs/search/release branch deploys@k=1,mode=dense"));
  ASSERT_EQ(now.size(), 2u);
  EXPECT_NE(now[0], "01-deploy.md");
  std::string at = P(".vexfs/search/release branch deploys@k=1,at=s1");
  ASSERT_EQ(ListDir(at).front(), "01-deploy.md");
  EXPECT_EQ(ReadLinkAt(at + "/01-deploy.md"), "../../snapshots/s1/deploy.md");
  EXPECT_EQ(ReadPath(at + "/01-deploy.md"), "Deploys run every Friday from the release branch.");
  // Bad settings are EINVAL; an unknown snapshot is ENOENT.
  struct stat st {};
  EXPECT_EQ(::stat(P(".vexfs/search/x@k=0").c_str(), &st), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(::stat(P(".vexfs/search/x@at=nope").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(ViewsTest, ClosedFilesBecomeSearchableInTheBackground) {
  ASSERT_EQ(WritePath(P("note.txt"), "Remember: the staging database password rotates monthly."),
            0);
  // No CLI here: the mount's own indexer must pick the file up after close.
  auto deadline = Clock::now() + std::chrono::seconds(20);
  std::vector<std::string> found;
  while (Clock::now() < deadline) {
    found = ListDir(P(".vexfs/search/staging database password"));
    if (!found.empty() && found.front() == "01-note.txt") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front(), "01-note.txt");
}

TEST_F(ViewsTest, StatusShowsBranchQueueAndLastSnapshot) {
  ASSERT_TRUE(Cli({"snapshot", "create", "first", "-m", "hello"}).ok());
  auto status = nlohmann::json::parse(ReadPath(P(".vexfs/status")));
  EXPECT_EQ(status["branch"], "main");
  EXPECT_TRUE(status.contains("index_queue"));
  EXPECT_EQ(status["last_snapshot"]["names"][0], "first");
  EXPECT_EQ(status["last_snapshot"]["message"], "hello");
}

// .vexfs/graph/ shows the working graph's nodes as JSON files, by kind and by
// thread (percent-encoded), as valid now: what the CLI wrote, then invalidated.
TEST_F(ViewsTest, GraphViewShowsNodesByKindAndThread) {
  CommandResult fact = Cli({"graph", "add", "--kind", "fact", "--text", "standup at 9",
                            "--thread", "ops/daily"});
  ASSERT_TRUE(fact.ok()) << fact.err;
  std::string id = fact.out.substr(0, fact.out.find('\n'));
  ASSERT_TRUE(Cli({"graph", "add", "--kind", "turn", "--text", "hello"}).ok());

  EXPECT_EQ(ListDir(P(".vexfs/graph")), (std::vector<std::string>{"by-kind", "by-thread"}));
  EXPECT_EQ(ListDir(P(".vexfs/graph/by-kind")), (std::vector<std::string>{"fact", "turn"}));
  EXPECT_EQ(ListDir(P(".vexfs/graph/by-thread")), std::vector<std::string>{"ops%2Fdaily"});
  EXPECT_EQ(ListDir(P(".vexfs/graph/by-kind/fact")), std::vector<std::string>{id + ".json"});
  for (std::string dir : {"by-kind/fact", "by-thread/ops%2Fdaily"}) {
    auto node = nlohmann::json::parse(ReadPath(P(".vexfs/graph/" + dir + "/" + id + ".json")));
    EXPECT_EQ(node["id"], id) << dir;
    EXPECT_EQ(node["text"], "standup at 9") << dir;
    EXPECT_EQ(node["thread"], "ops/daily") << dir;
  }
  CommandResult get = Cli({"graph", "get", id, "--json"});
  ASSERT_TRUE(get.ok()) << get.err;
  EXPECT_EQ(nlohmann::json::parse(ReadPath(P(".vexfs/graph/by-kind/fact/" + id + ".json"))),
            nlohmann::json::parse(get.out));

  // Read-only, and a node of another group, or none, is not there.
  EXPECT_LT(::open(P(".vexfs/graph/by-kind/fact/new.json").c_str(), O_CREAT | O_WRONLY, 0644), 0);
  EXPECT_EQ(ReadPath(P(".vexfs/graph/by-kind/turn/" + id + ".json")), "<No such file or directory>");
  EXPECT_EQ(ReadPath(P(".vexfs/graph/by-kind/plan/x.json")), "<No such file or directory>");

  ASSERT_TRUE(Cli({"graph", "invalidate", id}).ok());
  auto start = Clock::now();
  while (ListDir(P(".vexfs/graph/by-kind")) != std::vector<std::string>{"turn"}) {
    ASSERT_LT(Clock::now() - start, std::chrono::seconds(2)) << "the invalidated fact still shows";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

TEST_F(ViewsTest, CliChangesShowWithinASecond) {
  ASSERT_EQ(WritePath(P("seen.txt"), "before"), 0);
  struct stat st {};
  ASSERT_EQ(::stat(P("seen.txt").c_str(), &st), 0);  // now cached by the kernel
  std::string local = store() + "/../cli-input";
  ASSERT_EQ(WritePath(local, "after the CLI"), 0);
  ASSERT_TRUE(Cli({"put", local, "seen.txt"}).ok());
  ASSERT_TRUE(Cli({"put", local, "new.txt"}).ok());
  auto start = Clock::now();
  while (ReadPath(P("seen.txt")) != "after the CLI" || ReadPath(P("new.txt")) != "after the CLI") {
    ASSERT_LT(Clock::now() - start, std::chrono::seconds(1)) << "not visible within a second";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

TEST_F(ViewsTest, VectorsAndMetadataAsXattrs) {
  ASSERT_EQ(WritePath(P("a.txt"), "alpha"), 0);
  ASSERT_EQ(WritePath(P("b.txt"), "beta"), 0);
  std::vector<float> va = {1, 0, 0, 0}, vb = {0, 1, 0, 0};
  ASSERT_EQ(::setxattr(P("a.txt").c_str(), "user.vexfs.embedding.agent", va.data(), 16, 0), 0);
  ASSERT_EQ(::setxattr(P("b.txt").c_str(), "user.vexfs.embedding.agent", vb.data(), 16, 0), 0);
  float back[4] = {};
  ASSERT_EQ(::getxattr(P("a.txt").c_str(), "user.vexfs.embedding.agent", back, sizeof(back)), 16);
  EXPECT_EQ(std::vector<float>(back, back + 4), va);
  CommandResult found = Cli({"search", "--model", "agent", "--vector", "[0.1,0.9,0,0]", "-k", "1",
                             "--json", "--no-wait"});
  ASSERT_TRUE(found.ok()) << found.err;
  EXPECT_EQ(nlohmann::json::parse(found.out)["hits"][0]["path"], "b.txt");
  char json[4096] = {};
  ssize_t n = ::getxattr(P("a.txt").c_str(), "user.vexfs.passages", json, sizeof(json));
  ASSERT_GT(n, 0);
  auto passages = nlohmann::json::parse(std::string(json, n));
  // Passages of every model are listed (the hash model's arrive whenever the
  // background indexer gets to the file); the agent's vector is among them.
  size_t agent_passages = 0;
  for (const auto& p : passages) agent_passages += p["model"] == "agent";
  EXPECT_EQ(agent_passages, 1u) << passages.dump();
  // Bad vectors are refused with EINVAL; passages are read-only.
  EXPECT_EQ(::setxattr(P("a.txt").c_str(), "user.vexfs.embedding.agent", va.data(), 7, 0), -1);
  EXPECT_EQ(errno, EINVAL);
  std::vector<float> wrong_dim = {1, 2};
  EXPECT_EQ(::setxattr(P("a.txt").c_str(), "user.vexfs.embedding.agent", wrong_dim.data(), 8, 0),
            -1);
  EXPECT_EQ(errno, EINVAL);
  float nan[4] = {NAN, 0, 0, 0};
  EXPECT_EQ(::setxattr(P("a.txt").c_str(), "user.vexfs.embedding.agent", nan, 16, 0), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(::setxattr(P("a.txt").c_str(), "user.vexfs.passages", "[]", 2, 0), -1);
  EXPECT_EQ(errno, EROFS);

  // Metadata xattrs are what search filters read.
  ASSERT_EQ(::setxattr(P("a.txt").c_str(), "user.vexfs.meta.topic", "greek", 5, 0), 0);
  // listxattr shows what was set, never the index's views: copying tools would
  // carry them elsewhere as the agent's own.
  char names[1024] = {};
  ssize_t listed = ::listxattr(P("a.txt").c_str(), names, sizeof(names));
  ASSERT_GE(listed, 0);
  EXPECT_EQ(std::string(names, listed), std::string("user.vexfs.meta.topic\0", 22));
  EXPECT_EQ(::listxattr(P("b.txt").c_str(), names, sizeof(names)), 0);
  CommandResult meta = Cli({"meta", "get", "a.txt", "--json"});
  ASSERT_TRUE(meta.ok()) << meta.err;
  EXPECT_NE(meta.out.find("greek"), std::string::npos);
  ASSERT_TRUE(Cli({"index", "wait"}).ok());  // the search is over what is indexed
  auto filtered = ListDir(P(".vexfs/search/alpha beta@where=topic=greek"));
  EXPECT_EQ(filtered, (std::vector<std::string>{"01-a.txt", "results.jsonl"}));
}

TEST_F(ViewsTest, SigtermUnmountsCleanlyAndKeepsData) {
  ASSERT_EQ(WritePath(P("kept.txt"), "kept"), 0);
  int fd = ::open(P("open.txt").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "buffered", 8), 8);  // still open: flushed at shutdown
  ASSERT_EQ(::kill(daemon_pid(), SIGTERM), 0);
  auto deadline = Clock::now() + std::chrono::seconds(10);
  while (IsMountPoint(mnt()) && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(IsMountPoint(mnt()));
  ::close(fd);
  int status = Unmount();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Cli({"cat", "kept.txt"}).out, "kept");
  EXPECT_EQ(Cli({"cat", "open.txt"}).out, "buffered");
  CommandResult fsck = Cli({"fsck"});
  EXPECT_TRUE(fsck.ok()) << fsck.out << fsck.err;
}

TEST_F(ViewsTest, KilledDaemonLeavesAStoreThatOpensAndRemounts) {
  int fd = ::open(P("synced.txt").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "synced", 6), 6);
  ASSERT_EQ(::fsync(fd), 0);
  KillDaemon();
  ::close(fd);  // the dead mount answers ENOTCONN; nothing to check here
  EXPECT_TRUE(IsMountPoint(mnt()));
  CommandResult umount = RunVexfs({"umount", mnt()});
  EXPECT_TRUE(umount.ok()) << umount.err;
  EXPECT_FALSE(IsMountPoint(mnt()));
  EXPECT_EQ(Cli({"cat", "synced.txt"}).out, "synced");
  CommandResult fsck = Cli({"fsck"});
  EXPECT_TRUE(fsck.ok()) << fsck.out << fsck.err;
  Mount();
  EXPECT_EQ(ReadPath(P("synced.txt")), "synced");
}

TEST_F(ViewsTest, MountHelperMountsInTheBackground) {
  Unmount();
  ASSERT_TRUE(std::filesystem::exists(VEXFS_MOUNT_HELPER)) << VEXFS_MOUNT_HELPER;
  std::string cmd = std::string(VEXFS_MOUNT_HELPER) + " " + store() + " " + mnt() +
                    " -o rw,defaults,noatime,branch=main";
  // The helper finds vexfs beside itself or on PATH: put the built one on PATH.
  std::string path = std::filesystem::path(std::getenv("VEXFS_BIN")).parent_path().string() + ":" +
                     std::getenv("PATH");
  std::string full = "PATH='" + path + "' " + cmd;
  ASSERT_EQ(std::system(full.c_str()), 0) << full;
  EXPECT_TRUE(IsMountPoint(mnt()));  // ready when the helper returned
  ASSERT_EQ(WritePath(P("via-helper"), "ok"), 0);
  EXPECT_EQ(ReadPath(P("via-helper")), "ok");
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(mnt().c_str(), &vfs), 0);
  // As root, mount(8)'s defaults: suid and dev (libfuse's own are nosuid,nodev).
  bool root = ::geteuid() == 0;
  EXPECT_EQ((vfs.f_flag & ST_NOSUID) != 0, !root);
  EXPECT_EQ((vfs.f_flag & ST_NODEV) != 0, !root);
  CommandResult umount = RunVexfs({"umount", mnt()});
  EXPECT_TRUE(umount.ok()) << umount.err;
  EXPECT_FALSE(IsMountPoint(mnt()));
  // Told nosuid, it is nosuid.
  std::string nosuid = "PATH='" + path + "' " + VEXFS_MOUNT_HELPER + " " + store() + " " +
                       mnt() + " -o nosuid";
  ASSERT_EQ(std::system(nosuid.c_str()), 0) << nosuid;
  ASSERT_EQ(::statvfs(mnt().c_str(), &vfs), 0);
  EXPECT_NE(vfs.f_flag & ST_NOSUID, 0u);
  EXPECT_TRUE(RunVexfs({"umount", mnt()}).ok());
}

TEST_F(ViewsTest, ASecondWritableMountOfTheBranchIsRefused) {
  // It would purge the orphans the first mount still serves.
  std::string second = store().substr(0, store().rfind('/')) + "/second";
  ASSERT_EQ(::mkdir(second.c_str(), 0755), 0);
  CommandResult refused = RunVexfs({"mount", store(), second});
  EXPECT_EQ(WEXITSTATUS(refused.status), 9) << refused.err;
  EXPECT_NE(refused.err.find("already mounted"), std::string::npos) << refused.err;
  EXPECT_FALSE(IsMountPoint(second));
  // Read-only, or another branch, is fine.
  ASSERT_TRUE(Cli({"branch", "other"}).ok());
  for (const auto& extra : {std::vector<std::string>{"-o", "ro"},
                            std::vector<std::string>{"--branch", "other"}}) {
    std::vector<std::string> args = {"mount", store(), second};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult mounted = RunVexfs(args);
    ASSERT_TRUE(mounted.ok()) << mounted.err;
    EXPECT_TRUE(IsMountPoint(second));
    EXPECT_TRUE(RunVexfs({"umount", second}).ok());
  }
}

TEST_F(ViewsTest, ABranchAWritableMountServesCannotBeDeleted) {
  std::string second = store().substr(0, store().rfind('/')) + "/second";
  ASSERT_EQ(::mkdir(second.c_str(), 0755), 0);
  ASSERT_TRUE(Cli({"branch", "work"}).ok());
  ASSERT_TRUE(RunVexfs({"mount", store(), second, "--branch", "work"}).ok());
  struct Unmounter {  // also when an assertion below ends the test early
    std::string at;
    ~Unmounter() { RunVexfs({"umount", at}); }
  } unmounter{second};
  ASSERT_EQ(WritePath(second + "/note.txt", "not snapshotted"), 0);
  CommandResult refused = Cli({"branch", "-d", "work"});
  EXPECT_EQ(WEXITSTATUS(refused.status), 9) << refused.err;
  EXPECT_NE(refused.err.find("mounted"), std::string::npos) << refused.err;
  EXPECT_EQ(ReadPath(second + "/note.txt"), "not snapshotted");
  ASSERT_TRUE(RunVexfs({"umount", second}).ok());
  CommandResult deleted = Cli({"branch", "-d", "work"});
  EXPECT_TRUE(deleted.ok()) << deleted.err;
}

TEST_F(ViewsTest, UmountOfAMountInUseSaysBusy) {
  ASSERT_EQ(WritePath(P("held.txt"), "held"), 0);
  int fd = ::open(P("held.txt").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  CommandResult busy = RunVexfs({"umount", mnt()});
  EXPECT_EQ(WEXITSTATUS(busy.status), 9) << busy.err;
  EXPECT_NE(busy.err.find("is in use"), std::string::npos) << busy.err;
  EXPECT_TRUE(IsMountPoint(mnt()));
  ::close(fd);
  EXPECT_EQ(ReadPath(P("held.txt")), "held");
}

TEST_F(ViewsTest, UmountReturnsOnlyOnceTheBranchIsFree) {
  std::string lock_file = store() + "/mounts/main";
  for (int round = 0; round < 3; ++round) {
    // Work for the daemon's shutdown: buffered bytes to flush, an index to stop.
    ASSERT_EQ(WritePath(P("round.txt"), std::string(4 << 20, 'a' + round)), 0);
    CommandResult umount = RunVexfs({"umount", mnt()});
    ASSERT_TRUE(umount.ok()) << umount.err;
    int fd = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0) << lock_file;
    EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0) << "round " << round
                                                   << ": the old daemon still holds the branch";
    ::close(fd);
    ASSERT_EQ(Unmount(), 0);  // reaps the daemon
    Mount();  // at once, as a script would
  }
  EXPECT_EQ(ReadPath(P("round.txt")), std::string(4 << 20, 'c'));
}

TEST_F(ViewsTest, RemountChangesFlagsWithoutRestartingTheDaemon) {
  ASSERT_EQ(WritePath(P("before"), "b"), 0);
  pid_t daemon = daemon_pid();
  CommandResult ro = RunVexfs({"mount", store(), mnt(), "-o", "remount,ro"});
  if (::geteuid() != 0) {  // mount(2) MS_REMOUNT needs root
    EXPECT_EQ(WEXITSTATUS(ro.status), 10) << ro.err;
    return;
  }
  ASSERT_TRUE(ro.ok()) << ro.err;
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(mnt().c_str(), &vfs), 0);
  EXPECT_NE(vfs.f_flag & ST_RDONLY, 0u);
  EXPECT_EQ(WritePath(P("refused"), "x"), EROFS);
  EXPECT_EQ(ReadPath(P("before")), "b");
  // Back to rw, and nosuid, naming the store as the mount table does.
  CommandResult rw = RunVexfs({"mount", "vexfs:" + store(), mnt(), "-o", "remount,rw,nosuid"});
  ASSERT_TRUE(rw.ok()) << rw.err;
  ASSERT_EQ(::statvfs(mnt().c_str(), &vfs), 0);
  EXPECT_EQ(vfs.f_flag & ST_RDONLY, 0u);
  EXPECT_NE(vfs.f_flag & ST_NOSUID, 0u);
  EXPECT_EQ(WritePath(P("after"), "a"), 0);
  EXPECT_EQ(daemon_pid(), daemon);
  EXPECT_EQ(::kill(daemon, 0), 0) << "the daemon was restarted";
  // What the daemon was started with cannot change, and is said so.
  for (const char* opts : {"remount,branch=other", "remount,allow_other", "remount,sync"}) {
    CommandResult refused = RunVexfs({"mount", store(), mnt(), "-o", opts});
    EXPECT_EQ(WEXITSTATUS(refused.status), 4) << opts << ": " << refused.err;
    EXPECT_NE(refused.err.find("remount"), std::string::npos) << refused.err;
  }
  std::string elsewhere = store().substr(0, store().rfind('/'));
  CommandResult none = RunVexfs({"mount", store(), elsewhere, "-o", "remount"});
  EXPECT_EQ(WEXITSTATUS(none.status), 3) << none.err;
  ASSERT_EQ(Unmount(), 0);
  Mount({"-o", "ro"});
  CommandResult to_rw = RunVexfs({"mount", store(), mnt(), "-o", "remount,rw"});
  EXPECT_EQ(WEXITSTATUS(to_rw.status), 4) << to_rw.err;
  EXPECT_NE(to_rw.err.find("served read-only"), std::string::npos) << to_rw.err;
}

TEST_F(ViewsTest, AMountWaitsForADepartingDaemonButNotForALiveOne) {
  // A lock held for a mount point that is no longer mounted is a daemon on its
  // way out: the next mount waits for it instead of failing as busy.
  std::string other_store = store().substr(0, store().rfind('/')) + "/lock-only";
  ASSERT_EQ(::mkdir(other_store.c_str(), 0755), 0);
  auto departing = fuse::MountLock::Acquire(other_store, "main", "/nowhere/mounted");
  ASSERT_TRUE(departing.ok()) << departing.status().ToString();
  std::thread exiting([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    departing->reset();
  });
  auto start = std::chrono::steady_clock::now();
  auto next = fuse::MountLock::Acquire(other_store, "main", "/new/mount");
  auto waited = std::chrono::steady_clock::now() - start;
  exiting.join();
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_GE(waited, std::chrono::milliseconds(250));
  // umount's wait: released in time is fine, held past the timeout is kBusy.
  EXPECT_TRUE(fuse::MountLock::AwaitRelease(other_store, "/elsewhere",
                                            std::chrono::milliseconds(50)).ok());
  Status held = fuse::MountLock::AwaitRelease(other_store, "/new/mount",
                                              std::chrono::milliseconds(50));
  EXPECT_EQ(held.code(), StatusCode::kBusy) << held.ToString();
  // The branch this fixture mounted is live: refused at once, naming where.
  start = std::chrono::steady_clock::now();
  auto live = fuse::MountLock::Acquire(store(), "main", "/another/place");
  EXPECT_EQ(live.status().code(), StatusCode::kBusy);
  EXPECT_NE(live.status().message().find(mnt()), std::string::npos) << live.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(MountTableTest, FindsTheStoreServedAtAPath) {
  const char* table =
      "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
      "40 22 0:35 / /tmp/a\\040b rw,nosuid,nodev - fuse.vexfs vexfs:/s/one\\040store rw\n"
      "41 22 0:36 / /tmp/c rw shared:5 - fuse.vexfs vexfs:/s/two rw\n"
      "42 41 0:37 / /tmp/c rw - tmpfs tmpfs rw\n"
      "43 22 0:38 / /tmp/d rw - fuse.other vexfs:/s/three rw\n";
  EXPECT_EQ(fuse::VexfsStoreMountedAt(table, "/tmp/a b"), "/s/one store");
  EXPECT_EQ(fuse::VexfsStoreMountedAt(table, "/tmp/c"), std::nullopt);  // hidden by tmpfs
  EXPECT_EQ(fuse::VexfsStoreMountedAt(table, "/tmp/d"), std::nullopt);  // not VexFS
  EXPECT_EQ(fuse::VexfsStoreMountedAt(table, "/proc"), std::nullopt);
  EXPECT_EQ(fuse::VexfsStoreMountedAt(table, "/tmp"), std::nullopt);
  EXPECT_EQ(fuse::VexfsStoreMountedAt("", "/tmp/a b"), std::nullopt);
}

TEST(MountErrorsTest, BadArgumentsFailWithClearErrors) {
  crash::TempDir dir("vexfs-mount-errors");
  CommandResult missing = RunVexfs({"mount", dir.path() + "/nope", dir.path()});
  EXPECT_EQ(WEXITSTATUS(missing.status), 3) << missing.err;
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
  ASSERT_TRUE(RunVexfs({"init", dir.path() + "/store"}).ok());
  CommandResult not_dir = RunVexfs({"mount", dir.path() + "/store", dir.path() + "/absent"});
  EXPECT_EQ(WEXITSTATUS(not_dir.status), 3) << not_dir.err;
  EXPECT_NE(not_dir.err.find("absent"), std::string::npos) << not_dir.err;
  CommandResult bad_opt = RunVexfs({"mount", dir.path() + "/store", dir.path(), "-o", "bogus"});
  EXPECT_EQ(WEXITSTATUS(bad_opt.status), 4) << bad_opt.err;
  EXPECT_NE(bad_opt.err.find("bogus"), std::string::npos) << bad_opt.err;
  ASSERT_EQ(::mkdir((dir.path() + "/mnt").c_str(), 0755), 0);
  CommandResult bad_branch =
      RunVexfs({"mount", dir.path() + "/store", dir.path() + "/mnt", "--branch", "nope"});
  EXPECT_EQ(WEXITSTATUS(bad_branch.status), 3) << bad_branch.err;
  // A failure the daemon found is said once, by the command, on one line.
  for (const CommandResult* failed : {&missing, &bad_branch}) {
    EXPECT_EQ(std::count(failed->err.begin(), failed->err.end(), '\n'), 1) << failed->err;
    EXPECT_EQ(failed->err.rfind("vexfs: ", 0), 0u) << failed->err;
  }
  CommandResult not_mounted = RunVexfs({"umount", dir.path() + "/mnt"});
  EXPECT_NE(WEXITSTATUS(not_mounted.status), 0);
}

TEST(MountErrorsTest, AMountThatWouldHideItsOwnStoreIsRefused) {
  // The daemon reaches its store through paths the mount would cover: every
  // access would wait on itself, and so would every process touching the mount.
  crash::TempDir dir("vexfs-mount-over-store");
  std::string store = dir.path() + "/store";
  ASSERT_TRUE(RunVexfs({"init", store}).ok());
  ASSERT_EQ(::mkdir((store + "/inside").c_str(), 0755), 0);
  for (const std::string& at :
       {dir.path(), store, store + "/inside", dir.path() + "/./store/../"}) {
    CommandResult refused = RunVexfs({"mount", store, at});
    EXPECT_EQ(WEXITSTATUS(refused.status), 4) << at << ": " << refused.err;
    EXPECT_NE(refused.err.find("outside the store"), std::string::npos) << refused.err;
    EXPECT_FALSE(IsMountPoint(at)) << at;
  }
  // A store reached through a symlink is where the link leads.
  std::string link = dir.path() + "/link";
  ASSERT_EQ(::symlink(store.c_str(), link.c_str()), 0);
  CommandResult through_link = RunVexfs({"mount", link, dir.path()});
  EXPECT_EQ(WEXITSTATUS(through_link.status), 4) << through_link.err;
  EXPECT_FALSE(IsMountPoint(dir.path()));
  // A neighbour whose name starts like the store's is outside it.
  std::string beside = dir.path() + "/store-mnt";
  ASSERT_EQ(::mkdir(beside.c_str(), 0755), 0);
  CommandResult mounted = RunVexfs({"mount", store, beside});
  ASSERT_TRUE(mounted.ok()) << mounted.err;
  EXPECT_TRUE(IsMountPoint(beside));
  EXPECT_TRUE(RunVexfs({"umount", beside}).ok());
}

}  // namespace
}  // namespace vexfs::mount_test
