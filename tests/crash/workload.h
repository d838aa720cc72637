// The crash test's workload: a seeded, endless stream of store operations and an
// in-memory model of what the store must hold after each of them.
//
// Operation `seq` is a pure function of (seed, seq, model before it), and the
// model is a pure function of the operations applied, so a writer that is killed
// and restarted at any committed position continues the very same stream. The
// writer needs only the shape of the model (paths, sizes, snapshot names) and can
// rebuild it from the store it resumes on; the test tracks contents too.
#ifndef VEXFS_TESTS_CRASH_WORKLOAD_H_
#define VEXFS_TESTS_CRASH_WORKLOAD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/store.h"

namespace vexfs::crash {

// Every tree edit also writes its sequence number here, in the same
// transaction, so each edit leaves a visible trace even when it changes
// nothing else.
inline constexpr char kSeqFile[] = ".seq";

// splitmix64: the same stream on every platform, unlike std distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  uint64_t Uniform(uint64_t n);              // [0, n); 0 when n == 0
  uint64_t Range(uint64_t lo, uint64_t hi);  // [lo, hi]
  bool Percent(int p) { return Uniform(100) < static_cast<uint64_t>(p); }

 private:
  uint64_t state_;
};

struct Entry {
  bool dir = false;
  uint64_t size = 0;
  // File bytes; null for directories and in shape-only models. Shared so that
  // snapshots of the model cost a map copy, not a copy of every file.
  std::shared_ptr<const std::string> data;
};

// Path ("a/b", no leading '/') -> entry. The root itself is not listed.
using Tree = std::map<std::string, Entry>;

enum class OpKind {
  kPut, kWrite, kTruncate, kRename, kUnlink, kMkdir, kRmdir,
  kSnapshot, kDeleteSnapshot, kRestore, kGc,
};

struct Op {
  uint64_t seq = 0;
  OpKind kind = OpKind::kPut;
  std::string path;     // the file or directory, or the snapshot name
  std::string path2;    // rename destination
  uint64_t offset = 0;  // write offset; new size for truncate
  uint64_t length = 0;  // data bytes of put and write
  int style = 0;        // what the data looks like (random, text, zeros, mixed)

  // One line without spaces at the ends, e.g. "put d3/f17 70000"; the writer
  // prints it with each ack so the test can check both sides agree.
  std::string Describe() const;
  // True for operations that run inside WorkingTree::Edit.
  bool EditsTree() const;
};

// The data bytes of a put or write: a pure function of (seed, op).
std::string OpData(uint64_t seed, const Op& op);

class Model {
 public:
  explicit Model(bool with_content) : with_content_(with_content) {}

  // The operation numbered `seq`, valid for this model.
  Op Generate(uint64_t seed, uint64_t seq) const;
  // The model after `op` succeeded.
  void Apply(uint64_t seed, const Op& op);

  const Tree& tree() const { return tree_; }
  const std::map<std::string, Tree>& snapshots() const { return snapshots_; }

  // Reads the working tree of the current branch and every named snapshot.
  static Result<Model> Load(Store* store, bool with_content);

 private:
  void ApplyEdit(uint64_t seed, const Op& op);
  void PutBytes(const std::string& path, std::string bytes, uint64_t size);
  void Resize(const std::string& path, uint64_t size);
  void Rename(const std::string& from, const std::string& to);

  bool with_content_;
  Tree tree_;
  std::map<std::string, Tree> snapshots_;
};

// Runs `op` against the store (`tree` is its current branch's working tree).
Status Execute(Store* store, WorkingTree* tree, uint64_t seed, const Op& op);

// "" when `got` equals `want` (contents compared where both have them);
// otherwise a description of the first differences.
std::string Compare(const Model& want, const Model& got);

}  // namespace vexfs::crash

#endif  // VEXFS_TESTS_CRASH_WORKLOAD_H_
