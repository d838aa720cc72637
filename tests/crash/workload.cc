// The crash test's operation stream, its model, and the store side of each op.
#include "crash/workload.h"

#include <algorithm>

namespace vexfs::crash {
namespace {

constexpr uint64_t kChunk = 64 * 1024;        // the store's chunk size
constexpr uint64_t kMaxPutSize = 300 * 1024;
constexpr uint64_t kMaxModelFileSize = 400 * 1024;
constexpr size_t kMaxFiles = 28;
constexpr uint64_t kMaxTotalBytes = uint64_t{4} << 20;
constexpr size_t kMaxSnapshots = 8;
constexpr size_t kMaxDirDepth = 3;

uint64_t Mix(uint64_t seed, uint64_t seq) {
  Rng rng(seed ^ (seq * 0x9E3779B97F4A7C15ull));
  return rng.Next();
}

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string Base(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

size_t Depth(const std::string& path) {
  return path.empty() ? 0 : 1 + std::count(path.begin(), path.end(), '/');
}

bool IsWithin(const std::string& path, const std::string& dir) {
  return path == dir || path.rfind(dir + "/", 0) == 0;
}

// What the generator chooses from, in the tree's (deterministic) key order.
struct Shape {
  std::vector<std::string> files;  // without kSeqFile
  std::vector<std::string> dirs;   // without the root
  std::vector<std::string> empty_dirs;
  uint64_t total_bytes = 0;
};

Shape ShapeOf(const Tree& tree) {
  Shape s;
  for (const auto& [path, e] : tree) {
    if (e.dir) {
      s.dirs.push_back(path);
      auto child = tree.lower_bound(path + "/");  // the first entry inside, if any
      if (child == tree.end() || !IsWithin(child->first, path)) s.empty_dirs.push_back(path);
    } else if (path != kSeqFile) {
      s.files.push_back(path);
      s.total_bytes += e.size;
    }
  }
  return s;
}

template <typename T>
const T& Pick(Rng& rng, const std::vector<T>& from) {
  return from[rng.Uniform(from.size())];
}

// A parent for a new entry: the root or a directory that is not too deep.
std::string PickParent(Rng& rng, const Shape& s, const std::string& exclude = "\x01") {
  std::vector<std::string> parents{""};
  for (const std::string& d : s.dirs) {
    if (Depth(d) < kMaxDirDepth && !IsWithin(d, exclude)) parents.push_back(d);
  }
  return Pick(rng, parents);
}

// Sizes that cover empty, small, chunk-boundary and multi-chunk files.
uint64_t PickSize(Rng& rng) {
  uint64_t r = rng.Uniform(100);
  if (r < 5) return 0;
  if (r < 25) return rng.Range(1, 4096);
  if (r < 45) return rng.Range(4097, kChunk - 1);
  if (r < 60) return rng.Range(1, 4) * kChunk + rng.Range(0, 2) - 1;
  return rng.Range(kChunk + 1, kMaxPutSize);
}

OpKind PickKind(Rng& rng, const Shape& s, size_t snapshots) {
  if (s.files.size() >= kMaxFiles || s.total_bytes >= kMaxTotalBytes) return OpKind::kUnlink;
  if (snapshots >= kMaxSnapshots) return OpKind::kDeleteSnapshot;
  static constexpr struct {
    int below;
    OpKind kind;
  } kTable[] = {
      {26, OpKind::kPut},      {40, OpKind::kWrite},    {48, OpKind::kTruncate},
      {56, OpKind::kRename},   {63, OpKind::kUnlink},   {69, OpKind::kMkdir},
      {72, OpKind::kRmdir},    {85, OpKind::kSnapshot}, {90, OpKind::kDeleteSnapshot},
      {94, OpKind::kRestore},  {100, OpKind::kGc},
  };
  int r = static_cast<int>(rng.Uniform(100));
  OpKind kind = OpKind::kGc;
  for (const auto& row : kTable) {
    if (r < row.below) {
      kind = row.kind;
      break;
    }
  }
  bool needs_file = kind == OpKind::kWrite || kind == OpKind::kTruncate ||
                    kind == OpKind::kRename || kind == OpKind::kUnlink;
  if (needs_file && s.files.empty()) return OpKind::kPut;
  if (kind == OpKind::kRmdir && s.empty_dirs.empty()) return OpKind::kMkdir;
  bool needs_snapshot = kind == OpKind::kDeleteSnapshot || kind == OpKind::kRestore;
  if (needs_snapshot && snapshots == 0) return OpKind::kSnapshot;
  return kind;
}

void FillOp(Rng& rng, const Shape& s, const Tree& tree, Op* op) {
  std::string seq = std::to_string(op->seq);
  switch (op->kind) {
    case OpKind::kPut:
      op->path = s.files.empty() || (s.files.size() + 1 < kMaxFiles && rng.Percent(50))
                     ? Join(PickParent(rng, s), "f" + seq)
                     : Pick(rng, s.files);
      op->length = PickSize(rng);
      op->style = static_cast<int>(rng.Uniform(4));
      return;
    case OpKind::kWrite: {
      op->path = Pick(rng, s.files);
      uint64_t size = tree.at(op->path).size;
      op->offset = rng.Percent(20) ? kChunk * rng.Range(0, size / kChunk)
                                   : rng.Range(0, std::min(size + 70000, kMaxModelFileSize - 1));
      op->offset = std::min(op->offset, kMaxModelFileSize - 1);
      op->length = std::min(rng.Range(1, 130000), kMaxModelFileSize - op->offset);
      op->style = static_cast<int>(rng.Uniform(4));
      return;
    }
    case OpKind::kTruncate: {
      op->path = Pick(rng, s.files);
      uint64_t size = tree.at(op->path).size;
      op->offset = rng.Percent(10)   ? kChunk * rng.Range(0, 5)
                   : rng.Percent(50) ? rng.Range(0, size)
                                     : rng.Range(0, kMaxModelFileSize);
      return;
    }
    case OpKind::kRename:
      if (!s.dirs.empty() && rng.Percent(25)) {
        op->path = Pick(rng, s.dirs);
        op->path2 = Join(PickParent(rng, s, op->path), "r" + seq);
        return;
      }
      op->path = Pick(rng, s.files);
      op->path2 = Join(PickParent(rng, s), "r" + seq);
      if (s.files.size() > 1 && rng.Percent(30)) {  // replaces an existing file
        do op->path2 = Pick(rng, s.files);
        while (op->path2 == op->path);
      }
      return;
    case OpKind::kUnlink: op->path = Pick(rng, s.files); return;
    case OpKind::kMkdir: op->path = Join(PickParent(rng, s), "d" + seq); return;
    case OpKind::kRmdir: op->path = Pick(rng, s.empty_dirs); return;
    case OpKind::kSnapshot: op->path = "s" + seq; return;
    case OpKind::kDeleteSnapshot:
    case OpKind::kRestore:
    case OpKind::kGc: return;  // filled by the caller, which knows the snapshots
  }
}

void FillRandom(Rng& rng, char* out, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng.Next();
    size_t take = std::min<size_t>(8, n - i);
    for (size_t b = 0; b < take; ++b) out[i + b] = static_cast<char>(v >> (8 * b));
  }
}

// Compressible text, so the zstd path of the object store is exercised too.
void FillText(Rng& rng, char* out, size_t n) {
  static const char* const kWords[] = {"memory ", "agent ",   "recall ", "vector ",
                                       "episode ", "context ", "plan ",  "tool\n"};
  size_t i = 0;
  while (i < n) {
    const char* w = kWords[rng.Uniform(8)];
    for (; *w != '\0' && i < n; ++w) out[i++] = *w;
  }
}

// Alternating zero and random blocks: chunk-sized zero runs become holes.
void FillMixed(Rng& rng, char* out, size_t n) {
  for (size_t i = 0; i < n; i += 16384) {
    size_t take = std::min<size_t>(16384, n - i);
    if (rng.Percent(50)) FillRandom(rng, out + i, take);
  }
}

std::string EntryText(const Entry* e) {
  if (e == nullptr) return "absent";
  if (e->dir) return "a directory";
  return "a file of " + std::to_string(e->size) + " bytes";
}

// Describes how `got` differs from `want` at `path` ("" when equal).
std::string CompareEntry(const std::string& path, const Entry* want, const Entry* got) {
  if (want && got && want->dir == got->dir && want->size == got->size) {
    if (want->dir || !want->data || !got->data) return "";
    if (got->data->size() != got->size) {
      return path + ": size says " + std::to_string(got->size) + " but " +
             std::to_string(got->data->size()) + " bytes read back";
    }
    if (*want->data == *got->data) return "";
    auto at = std::mismatch(want->data->begin(), want->data->end(), got->data->begin());
    return path + ": content differs from byte " +
           std::to_string(at.first - want->data->begin());
  }
  return path + ": expected " + EntryText(want) + ", found " + EntryText(got);
}

void CompareTrees(const std::string& what, const Tree& want, const Tree& got,
                  std::string* out) {
  std::vector<std::string> paths;
  for (const auto& [p, e] : want) paths.push_back(p);
  for (const auto& [p, e] : got) {
    if (!want.count(p)) paths.push_back(p);
  }
  int reported = 0;
  for (const std::string& p : paths) {
    auto w = want.find(p);
    auto g = got.find(p);
    std::string diff = CompareEntry(p, w == want.end() ? nullptr : &w->second,
                                    g == got.end() ? nullptr : &g->second);
    if (diff.empty()) continue;
    if (++reported > 6) {
      *out += "  " + what + ": ... more differences\n";
      return;
    }
    *out += "  " + what + ": " + diff + "\n";
  }
}

Status Walk(TreeView* view, const std::string& dir, bool with_content, Tree* out) {
  VEXFS_ASSIGN_OR_RETURN(auto entries, view->List(dir));
  for (const DirEntry& e : entries) {
    std::string path = Join(dir, e.name);
    Entry entry;
    entry.size = e.attr.size;
    if (e.attr.type == FileType::kDirectory) {
      entry = Entry{true, 0, nullptr};
      VEXFS_RETURN_IF_ERROR(Walk(view, path, with_content, out));
    } else if (e.attr.type != FileType::kRegular) {
      return Status::Corruption("'" + path + "' is neither a file nor a directory");
    } else if (with_content) {
      // One byte more than the size, so bytes past the recorded end show up.
      VEXFS_ASSIGN_OR_RETURN(std::string bytes, view->Read(path, 0, e.attr.size + 1));
      entry.data = std::make_shared<const std::string>(std::move(bytes));
    }
    (*out)[path] = entry;
  }
  return Status::Ok();
}

Status EditTree(TreeEditor& ed, const Op& op, std::string_view data) {
  if (op.kind == OpKind::kPut) return ed.PutFile(op.path, data, {}).status();
  if (op.kind == OpKind::kWrite || op.kind == OpKind::kTruncate) {
    VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(op.path));
    return op.kind == OpKind::kWrite ? ed.Write(ino, op.offset, data)
                                     : ed.Truncate(ino, op.offset);
  }
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ed.ResolvePath(Parent(op.path)));
  switch (op.kind) {
    case OpKind::kRename: {
      VEXFS_ASSIGN_OR_RETURN(uint64_t to, ed.ResolvePath(Parent(op.path2)));
      return ed.Rename(parent, Base(op.path), to, Base(op.path2));
    }
    case OpKind::kUnlink: return ed.Unlink(parent, Base(op.path));
    case OpKind::kMkdir: return ed.Mkdir(parent, Base(op.path), {0755, 0, 0}).status();
    case OpKind::kRmdir: return ed.Rmdir(parent, Base(op.path));
    default: return Status::InvalidArgument("not a tree edit: " + op.Describe());
  }
}

}  // namespace

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t Rng::Uniform(uint64_t n) { return n == 0 ? 0 : Next() % n; }

uint64_t Rng::Range(uint64_t lo, uint64_t hi) { return lo + Uniform(hi - lo + 1); }

std::string Op::Describe() const {
  auto n = [](uint64_t v) { return std::to_string(v); };
  switch (kind) {
    case OpKind::kPut: return "put " + path + " " + n(length) + " " + n(style);
    case OpKind::kWrite:
      return "write " + path + " " + n(offset) + " " + n(length) + " " + n(style);
    case OpKind::kTruncate: return "truncate " + path + " " + n(offset);
    case OpKind::kRename: return "rename " + path + " " + path2;
    case OpKind::kUnlink: return "unlink " + path;
    case OpKind::kMkdir: return "mkdir " + path;
    case OpKind::kRmdir: return "rmdir " + path;
    case OpKind::kSnapshot: return "snapshot " + path;
    case OpKind::kDeleteSnapshot: return "delete-snapshot " + path;
    case OpKind::kRestore: return "restore " + path;
    case OpKind::kGc: return "gc";
  }
  return "?";
}

bool Op::EditsTree() const {
  return kind != OpKind::kSnapshot && kind != OpKind::kDeleteSnapshot &&
         kind != OpKind::kRestore && kind != OpKind::kGc;
}

std::string OpData(uint64_t seed, const Op& op) {
  Rng rng(Mix(seed ^ 0xDA7A5EEDull, op.seq));
  std::string out(op.length, '\0');
  switch (op.style) {
    case 0: FillRandom(rng, out.data(), out.size()); break;
    case 1: FillText(rng, out.data(), out.size()); break;
    case 2: break;  // all zeros: stored as holes
    default: FillMixed(rng, out.data(), out.size()); break;
  }
  return out;
}

Op Model::Generate(uint64_t seed, uint64_t seq) const {
  Rng rng(Mix(seed, seq));
  Shape s = ShapeOf(tree_);
  Op op;
  op.seq = seq;
  op.kind = PickKind(rng, s, snapshots_.size());
  if (op.kind == OpKind::kDeleteSnapshot || op.kind == OpKind::kRestore) {
    auto it = snapshots_.begin();
    std::advance(it, rng.Uniform(snapshots_.size()));
    op.path = it->first;
  }
  FillOp(rng, s, tree_, &op);
  return op;
}

void Model::Apply(uint64_t seed, const Op& op) {
  switch (op.kind) {
    case OpKind::kSnapshot: snapshots_[op.path] = tree_; return;
    case OpKind::kDeleteSnapshot: snapshots_.erase(op.path); return;
    case OpKind::kRestore: tree_ = snapshots_.at(op.path); return;
    case OpKind::kGc: return;
    default: ApplyEdit(seed, op);
  }
}

void Model::ApplyEdit(uint64_t seed, const Op& op) {
  switch (op.kind) {
    case OpKind::kPut:
      PutBytes(op.path, with_content_ ? OpData(seed, op) : "", op.length);
      break;
    case OpKind::kWrite: {
      const Entry& old = tree_.at(op.path);
      uint64_t size = std::max(old.size, op.offset + op.length);
      std::string bytes;
      if (with_content_) {
        bytes = *old.data;
        bytes.resize(size, '\0');
        bytes.replace(op.offset, op.length, OpData(seed, op));
      }
      PutBytes(op.path, std::move(bytes), size);
      break;
    }
    case OpKind::kTruncate: Resize(op.path, op.offset); break;
    case OpKind::kRename: Rename(op.path, op.path2); break;
    case OpKind::kUnlink:
    case OpKind::kRmdir: tree_.erase(op.path); break;
    case OpKind::kMkdir: tree_[op.path] = Entry{true, 0, nullptr}; break;
    default: break;
  }
  std::string seq = std::to_string(op.seq);
  PutBytes(kSeqFile, seq, seq.size());
}

void Model::PutBytes(const std::string& path, std::string bytes, uint64_t size) {
  Entry e;
  e.size = size;
  if (with_content_) e.data = std::make_shared<const std::string>(std::move(bytes));
  tree_[path] = e;
}

void Model::Resize(const std::string& path, uint64_t size) {
  std::string bytes;
  if (with_content_) {
    bytes = *tree_.at(path).data;
    bytes.resize(size, '\0');
  }
  PutBytes(path, std::move(bytes), size);
}

void Model::Rename(const std::string& from, const std::string& to) {
  Tree moved;
  for (auto it = tree_.begin(); it != tree_.end();) {
    if (IsWithin(it->first, from)) {
      moved[to + it->first.substr(from.size())] = it->second;
      it = tree_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [path, e] : moved) tree_[path] = e;
}

Result<Model> Model::Load(Store* store, bool with_content) {
  Model m(with_content);
  VEXFS_ASSIGN_OR_RETURN(auto tree, store->Tree(""));
  VEXFS_RETURN_IF_ERROR(Walk(tree.get(), "", with_content, &m.tree_));
  VEXFS_ASSIGN_OR_RETURN(auto snapshots, store->ListSnapshots());
  for (const CommitInfo& info : snapshots) {
    for (const std::string& name : info.names) {
      VEXFS_ASSIGN_OR_RETURN(auto view, store->OpenSnapshot(name));
      VEXFS_RETURN_IF_ERROR(Walk(view.get(), "", with_content, &m.snapshots_[name])
                                .WithContext("snapshot '" + name + "'"));
    }
  }
  return m;
}

Status Execute(Store* store, WorkingTree* tree, uint64_t seed, const Op& op) {
  switch (op.kind) {
    case OpKind::kSnapshot:
      return store->CreateSnapshot(op.path, "crash test", {{"seq", std::to_string(op.seq)}})
          .status();
    case OpKind::kDeleteSnapshot: return store->DeleteSnapshotName(op.path);
    case OpKind::kRestore: return store->Restore(op.path);
    case OpKind::kGc: return store->Gc().status();
    default: break;
  }
  std::string data =
      op.kind == OpKind::kPut || op.kind == OpKind::kWrite ? OpData(seed, op) : "";
  return tree->Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(EditTree(ed, op, data));
    return ed.PutFile(kSeqFile, std::to_string(op.seq), {}).status();
  });
}

std::string Compare(const Model& want, const Model& got) {
  std::string out;
  CompareTrees("working tree", want.tree(), got.tree(), &out);
  for (const auto& [name, tree] : want.snapshots()) {
    auto it = got.snapshots().find(name);
    if (it == got.snapshots().end()) {
      out += "  snapshot '" + name + "' is missing\n";
    } else {
      CompareTrees("snapshot '" + name + "'", tree, it->second, &out);
    }
  }
  for (const auto& [name, tree] : got.snapshots()) {
    if (!want.snapshots().count(name)) out += "  snapshot '" + name + "' should not exist\n";
  }
  return out;
}

}  // namespace vexfs::crash
