// Whole workflows through the `vexfs` binary: an agent that snapshots its notes,
// replans, compares, branches and rolls back; and many writers at once.
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

TEST_F(CliTest, AgentReplansComparesBranchesAndRollsBack) {
  VexfsOk({"init"});
  ExpectFsckClean();
  PutText("notes/goal.md", "ship the parser");
  PutText("notes/plan.md", "1. lex\n2. parse\n");
  PutText("notes/facts/tokens.md", "tokens are bytes");
  PutText("notes/facts/grammar.md", "LL(1) grammar");
  PutText("scratch.txt", "temporary thoughts");
  json before = VexfsJson({"snapshot", "create", "before-replan", "-m", "plan v1", "--meta",
                           "agent=planner", "--meta", "step=7"});
  ExpectFsckClean();

  PutText("notes/plan.md", "1. parse with a PEG\n");
  VexfsOk({"rm", "scratch.txt"});
  VexfsOk({"mv", "notes/facts/grammar.md", "notes/facts/peg.md"});
  json after = VexfsJson({"snapshot", "create", "after", "-m", "plan v2"});
  EXPECT_EQ(after.at("parents"), json::array({before.at("id")}));
  ExpectFsckClean();

  std::set<std::string> changes;
  for (const json& e : VexfsJson({"diff", "before-replan", "after"})) {
    changes.insert(e.at("change").get<std::string>() + " " + e.value("old_path", "") + ">" +
                   e.at("path").get<std::string>());
  }
  EXPECT_EQ(changes, (std::set<std::string>{"modified >notes/plan.md", "removed >scratch.txt",
                                            "renamed notes/facts/grammar.md>notes/facts/peg.md"}));
  EXPECT_EQ(VexfsOk({"cat", "--at", "before-replan", "notes/plan.md"}), "1. lex\n2. parse\n");
  EXPECT_EQ(VexfsOk({"cat", "--at", "before-replan", "scratch.txt"}), "temporary thoughts");

  VexfsOk({"branch", "retry", "--from", "before-replan"});
  EXPECT_EQ(VexfsOk({"cat", "--branch", "retry", "notes/plan.md"}), "1. lex\n2. parse\n");
  EXPECT_EQ(VexfsOk({"cat", "notes/plan.md"}), "1. parse with a PEG\n");
  ExpectFsckClean();

  // Work that is never snapshotted, then abandoned: the rollback makes it garbage.
  PutText("notes/draft.bin", vexfs::test::RandomBytes(31, 120000));
  VexfsOk({"snapshot", "delete", "after"});
  VexfsOk({"restore", "before-replan"});
  EXPECT_EQ(VexfsJson({"diff", "before-replan"}), json::array());
  EXPECT_EQ(VexfsOk({"cat", "scratch.txt"}), "temporary thoughts");
  json gc = VexfsJson({"gc"});
  EXPECT_GT(gc.at("objects_freed").get<uint64_t>(), 0u);
  EXPECT_GE(gc.at("bytes_freed").get<uint64_t>(), 120000u);
  ExpectFsckClean();

  // History survives: the branch head still records the replan.
  json log = VexfsJson({"log"});
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].at("id"), after.at("id"));
  EXPECT_EQ(log[1].at("meta"), json({{"agent", "planner"}, {"step", "7"}}));
  EXPECT_EQ(VexfsOk({"cat", "--at", after.at("id"), "notes/facts/peg.md"}), "LL(1) grammar");
}

TEST_F(CliStoreTest, ConcurrentPutProcessesAllLand) {
  constexpr int kProcesses = 8;
  constexpr int kFiles = 20;
  std::map<std::string, std::string> expected;
  for (int p = 0; p < kProcesses; ++p) {
    std::string dir = Local("w" + std::to_string(p));
    std::filesystem::create_directories(dir);
    for (int f = 0; f < kFiles; ++f) {
      std::string name = "f" + std::to_string(f) + ".txt";
      std::string data = "writer " + std::to_string(p) + " file " + std::to_string(f) + "\n" +
                         vexfs::test::RandomBytes(p * 100 + f, 3000);
      WriteLocalFile(dir + "/" + name, data);
      expected["w" + std::to_string(p) + "/" + name] = data;
    }
  }
  // Each process copies its directory one file per command, so the writers
  // interleave commit by commit rather than one after another.
  std::vector<std::vector<ProcessResult>> results(kProcesses);
  std::vector<std::thread> writers;
  for (int p = 0; p < kProcesses; ++p) {
    writers.emplace_back([&, p] {
      std::string w = "w" + std::to_string(p);
      for (int f = 0; f < kFiles; ++f) {
        std::string name = w + "/f" + std::to_string(f) + ".txt";
        results[p].push_back(Vexfs({"put", Local(name), name}));
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (const auto& per_writer : results) {
    for (const ProcessResult& r : per_writer) EXPECT_TRUE(r.ok() && r.err.empty()) << r;
  }
  VexfsOk({"get", "/", Local("copy")});
  for (const auto& [path, data] : expected) {
    EXPECT_EQ(ReadLocalFile(Local("copy/" + path)), data) << path;
  }
  EXPECT_EQ(VexfsJson({"ls", "-R"}).size(), static_cast<size_t>(kProcesses * (kFiles + 1)));
  ExpectFsckClean();
}

TEST_F(CliStoreTest, ConcurrentDirectoryPutsStartedAtOnce) {
  constexpr int kProcesses = 8;
  constexpr int kFiles = 20;
  for (int p = 0; p < kProcesses; ++p) {
    std::string dir = Local("d" + std::to_string(p));
    std::filesystem::create_directories(dir);
    for (int f = 0; f < kFiles; ++f) {
      WriteLocalFile(dir + "/" + std::to_string(f), std::to_string(p * 1000 + f));
    }
  }
  std::vector<std::unique_ptr<Process>> processes;
  for (int p = 0; p < kProcesses; ++p) {
    processes.push_back(std::make_unique<Process>());
    std::string error;
    std::string dir = "d" + std::to_string(p);
    ASSERT_TRUE(processes.back()->Start({VexfsBinary(), "--store", store(), "put", Local(dir), dir},
                                        {}, &error))
        << error;
  }
  for (auto& process : processes) {
    ProcessResult r = process->Finish();
    EXPECT_TRUE(r.ok() && r.err.empty()) << r;
  }
  VexfsOk({"get", "/", Local("copy")});
  for (int p = 0; p < kProcesses; ++p) {
    for (int f = 0; f < kFiles; ++f) {
      std::string path = "copy/d" + std::to_string(p) + "/" + std::to_string(f);
      EXPECT_EQ(ReadLocalFile(Local(path)), std::to_string(p * 1000 + f)) << path;
    }
  }
  ExpectFsckClean();
}

}  // namespace
}  // namespace vexfs::cli_test
