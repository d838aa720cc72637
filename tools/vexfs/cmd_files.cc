// File commands: init, cat, ls, stat, mkdir, rm, rmdir, mv.
#include <sys/sysmacros.h>

#include <cctype>
#include <cstdint>
#include <iostream>
#include <sstream>

#include "cli.h"
#include "vexfs/index.h"
#include "vexfs/local_files.h"
#include "vexfs/paths.h"
#include "vexfs/tree_ops.h"

namespace vexfs::cli {
namespace {

// Parses "64M", "1G", "1048576" into bytes.
Result<uint64_t> ParseSize(const std::string& text) {
  size_t used = 0;
  uint64_t value = 0;
  // stoull would accept " 5" and wrap "-1" to 2^64-1.
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) {
    return Status::InvalidArgument("size '" + text + "' is not a number");
  }
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    return Status::InvalidArgument("size '" + text + "' is not a number");
  }
  std::string unit = text.substr(used);
  uint64_t mult = 1;
  if (unit == "K" || unit == "KiB") mult = 1 << 10;
  else if (unit == "M" || unit == "MiB") mult = 1 << 20;
  else if (unit == "G" || unit == "GiB") mult = uint64_t{1} << 30;
  else if (unit == "T" || unit == "TiB") mult = uint64_t{1} << 40;
  else if (!unit.empty()) return Status::InvalidArgument("size '" + text + "' has unknown unit");
  if (value > UINT64_MAX / mult) return Status::InvalidArgument("size '" + text + "' is too large");
  return value * mult;
}

void AddInit(CLI::App& app, Context& ctx) {
  struct Args {
    std::string path, map_size;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("init", "Create a new, empty store");
  cmd->add_option("PATH", args->path, "Store directory (default: --store, $VEXFS_STORE or .)");
  cmd->add_option("--map-size", args->map_size,
                  "Most the store may hold, e.g. 64G (default 256G; only address space "
                  "is reserved)");
  cmd->callback([&ctx, args] {
    std::string path = args->path.empty() ? ctx.StorePath() : args->path;
    DbOptions options = DefaultDbOptions();
    options.background_indexing = false;
    if (!args->map_size.empty()) {
      auto size = ParseSize(args->map_size);
      if (!size.ok()) return (void)ctx.Fail(size.status());
      options.map_size = *size;
    }
    auto db = Db::Create(path, options);
    if (!db.ok()) return (void)ctx.Fail(db.status());
    if (ctx.global.json) {
      ctx.PrintJson({{"store", path}, {"branch", "main"}});
    } else {
      std::cout << "Initialized empty VexFS store in " << path << " (branch main)\n";
    }
  });
}

struct ViewArgs {
  std::string path, at, branch;
};

void AddViewOptions(CLI::App* cmd, ViewArgs* args) {
  cmd->add_option("--at", args->at, "Read a snapshot (name or id) instead of the working tree");
  cmd->add_option("--branch", args->branch, "Read this branch's working tree (default: current)");
}

void AddCat(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ViewArgs>();
  CLI::App* cmd = app.add_subcommand("cat", "Print a file's bytes to stdout");
  cmd->add_option("STORE_PATH", args->path, "File in the store")->required();
  AddViewOptions(cmd, args.get());
  cmd->callback([&ctx, args] {
    OpenedView view = OpenViewOrFail(ctx, args->at, args->branch);
    if (!view.view) return;
    Status st = PrintFileContent(ctx, *view.view, args->path);
    if (!st.ok()) ctx.Fail(st);
  });
}

// A symlink's target, for the long and JSON listings; "" for anything else.
Result<std::string> TargetOf(TreeView& view, const std::string& path, const Attributes& a) {
  if (a.type != FileType::kSymlink) return std::string();
  return view.ReadLink(path);
}

void PrintEntryText(const std::string& path, const Attributes& a, bool long_format,
                    const std::string& target) {
  std::string shown = path + (a.type == FileType::kDirectory ? "/" : "");
  if (!target.empty()) shown += " -> " + target;
  if (long_format) {
    std::printf("%s %10llu %s %s\n", ModeString(a).c_str(),
                static_cast<unsigned long long>(a.size), FormatTime(a.mtime).c_str(),
                shown.c_str());
  } else {
    std::printf("%s\n", shown.c_str());
  }
}

Status ListInto(TreeView& view, const std::string& dir, const std::string& shown_prefix,
                bool recursive, nlohmann::json* out, bool json, bool long_format) {
  VEXFS_ASSIGN_OR_RETURN(auto entries, view.List(dir));
  for (const DirEntry& e : entries) {
    std::string shown = JoinPath(shown_prefix, e.name);
    std::string target;
    if (json || long_format) {
      VEXFS_ASSIGN_OR_RETURN(target, TargetOf(view, JoinPath(dir, e.name), e.attr));
    }
    if (json) {
      nlohmann::json j = AttributesJson(e.attr);
      j["name"] = e.name;
      j["path"] = JoinPath(dir, e.name);
      if (e.attr.type == FileType::kSymlink) j["target"] = target;
      out->push_back(j);
    } else {
      PrintEntryText(shown, e.attr, long_format, target);
    }
    if (recursive && e.attr.type == FileType::kDirectory) {
      VEXFS_RETURN_IF_ERROR(
          ListInto(view, JoinPath(dir, e.name), shown, true, out, json, long_format));
    }
  }
  return Status::Ok();
}

void AddLs(CLI::App& app, Context& ctx) {
  struct Args : ViewArgs {
    bool recursive = false, long_format = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("ls", "List a directory (or show one file)");
  cmd->add_option("PATH", args->path, "Directory in the store (default: root)");
  cmd->add_flag("-R,--recursive", args->recursive, "List subdirectories too");
  cmd->add_flag("-l,--long", args->long_format, "Show mode, size and modification time");
  AddViewOptions(cmd, args.get());
  cmd->callback([&ctx, args] {
    OpenedView view = OpenViewOrFail(ctx, args->at, args->branch);
    if (!view.view) return;
    auto attr = view.view->Stat(args->path);
    if (!attr.ok()) return (void)ctx.Fail(attr.status());
    // Paths in the output are canonical ("/" and "a/" list as "" and "a").
    auto canonical = CanonicalPath(args->path);
    if (!canonical.ok()) return (void)ctx.Fail(canonical.status());
    nlohmann::json out = nlohmann::json::array();
    if (attr->type != FileType::kDirectory) {
      auto target = TargetOf(*view.view, *canonical, *attr);
      if (!target.ok()) return (void)ctx.Fail(target.status());
      nlohmann::json j = AttributesJson(*attr);
      j["path"] = *canonical;
      if (attr->type == FileType::kSymlink) j["target"] = *target;
      out.push_back(j);
      if (!ctx.global.json) {
        PrintEntryText(*canonical, *attr, args->long_format, args->long_format ? *target : "");
      }
    } else {
      Status st = ListInto(*view.view, *canonical, "", args->recursive, &out, ctx.global.json,
                           args->long_format);
      if (!st.ok()) return (void)ctx.Fail(st);
    }
    if (ctx.global.json) ctx.PrintJson(out);
  });
}

void AddStat(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ViewArgs>();
  CLI::App* cmd = app.add_subcommand("stat", "Show a path's attributes and xattrs");
  cmd->add_option("STORE_PATH", args->path, "Path in the store")->required();
  AddViewOptions(cmd, args.get());
  cmd->callback([&ctx, args] {
    OpenedView view = OpenViewOrFail(ctx, args->at, args->branch);
    if (!view.view) return;
    auto attr = view.view->Stat(args->path);
    if (!attr.ok()) return (void)ctx.Fail(attr.status());
    auto xattrs = view.view->Xattrs(args->path);
    if (!xattrs.ok()) return (void)ctx.Fail(xattrs.status());
    auto target = TargetOf(*view.view, args->path, *attr);
    if (!target.ok()) return (void)ctx.Fail(target.status());
    if (ctx.global.json) {
      nlohmann::json j = AttributesJson(*attr);
      j["path"] = args->path;
      j["xattrs"] = *xattrs;
      if (attr->type == FileType::kSymlink) j["target"] = *target;
      return ctx.PrintJson(j);
    }
    std::printf("path:  %s\ntype:  %s\nmode:  %s (%04o)\nsize:  %llu\nowner: %u:%u\n"
                "links: %u\nmtime: %s\n",
                args->path.c_str(), FileTypeName(attr->type), ModeString(*attr).c_str(),
                attr->mode, static_cast<unsigned long long>(attr->size), attr->uid, attr->gid,
                attr->nlink, FormatTime(attr->mtime).c_str());
    if (IsDeviceFile(attr->type)) {
      std::printf("device: %u:%u\n", ::major(attr->rdev), ::minor(attr->rdev));
    }
    if (attr->type == FileType::kSymlink) std::printf("target: %s\n", target->c_str());
    for (const auto& [k, v] : *xattrs) std::printf("xattr: %s=%s\n", k.c_str(), v.c_str());
  });
}

// Runs `fn` on the working tree of `branch` in one transaction; reports errors.
void EditTree(Context& ctx, const std::string& branch,
              const std::function<Status(TreeEditor&)>& fn) {
  auto db = ctx.OpenDb();
  if (!db) return;
  Store* store = &db->store();
  auto tree = store->Tree(branch);
  if (!tree.ok()) return (void)ctx.Fail(tree.status());
  Status st = (*tree)->Edit(fn);
  if (!st.ok()) ctx.Fail(st);
}

struct PathsArgs {
  std::vector<std::string> paths;
  std::string branch;
  bool flag = false;
};

CLI::App* AddPathsCommand(CLI::App& app, const char* name, const char* help, PathsArgs* args) {
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->add_option("PATH", args->paths, "Paths in the store")->required();
  cmd->add_option("--branch", args->branch, "Branch to change (default: current)");
  return cmd;
}

Status MakeDir(TreeEditor& ed, const std::string& path, bool parents) {
  return MakeDirectory(ed, path, parents, CallerOwnedNode(0755));
}

Status Remove(TreeEditor& ed, const std::string& path, bool recursive, bool dir_only) {
  if (dir_only) return RemoveEmptyDirectory(ed, path);
  Status st = RemovePath(ed, path, recursive);
  if (st.code() == StatusCode::kIsDirectory && !recursive) {
    return Status::IsDirectory("'" + path + "' is a directory (use rm -r or rmdir)");
  }
  return st;
}

void AddChangeCommands(CLI::App& app, Context& ctx) {
  auto mkdir_args = std::make_shared<PathsArgs>();
  CLI::App* mkdir = AddPathsCommand(app, "mkdir", "Create directories", mkdir_args.get());
  mkdir->add_flag("-p,--parents", mkdir_args->flag, "Create missing parents; no error if present");
  mkdir->callback([&ctx, mkdir_args] {
    EditTree(ctx, mkdir_args->branch, [&](TreeEditor& ed) -> Status {
      for (const auto& p : mkdir_args->paths) VEXFS_RETURN_IF_ERROR(MakeDir(ed, p, mkdir_args->flag));
      return Status::Ok();
    });
  });

  auto rm_args = std::make_shared<PathsArgs>();
  CLI::App* rm = AddPathsCommand(app, "rm", "Remove files (directories with -r)", rm_args.get());
  rm->add_flag("-r,--recursive", rm_args->flag, "Remove directories and their contents");
  rm->callback([&ctx, rm_args] {
    EditTree(ctx, rm_args->branch, [&](TreeEditor& ed) -> Status {
      for (const auto& p : rm_args->paths) VEXFS_RETURN_IF_ERROR(Remove(ed, p, rm_args->flag, false));
      return Status::Ok();
    });
  });

  auto rmdir_args = std::make_shared<PathsArgs>();
  CLI::App* rmdir = AddPathsCommand(app, "rmdir", "Remove empty directories", rmdir_args.get());
  rmdir->callback([&ctx, rmdir_args] {
    EditTree(ctx, rmdir_args->branch, [&](TreeEditor& ed) -> Status {
      for (const auto& p : rmdir_args->paths) VEXFS_RETURN_IF_ERROR(Remove(ed, p, false, true));
      return Status::Ok();
    });
  });
}

void AddMv(CLI::App& app, Context& ctx) {
  struct Args {
    std::string from, to, branch;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("mv", "Move or rename a file or directory");
  cmd->add_option("SRC", args->from, "Existing path")->required();
  cmd->add_option("DST", args->to, "New path, or an existing directory to move into")->required();
  cmd->add_option("--branch", args->branch, "Branch to change (default: current)");
  cmd->callback([&ctx, args] {
    EditTree(ctx, args->branch, [&](TreeEditor& ed) {
      return MovePath(ed, args->from, args->to, /*replace=*/true);
    });
  });
}

}  // namespace

Status PrintFileContent(const Context& ctx, TreeView& view, const std::string& path) {
  if (!ctx.global.json) {
    Status st = CopyFileTo(view, path, std::cout);
    // Said as every command says it (main.cc): a full disk or a closed pipe.
    if (!st.ok() && !std::cout) return Status::IOError("cannot write to standard output");
    return st;
  }
  // The document holds the file twice (bytes, then text or base64): bounded.
  constexpr uint64_t kMaxJsonFile = uint64_t{64} << 20;
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, view.Stat(path));
  if (attr.type == FileType::kRegular && attr.size > kMaxJsonFile) {
    return Status::InvalidArgument("'" + path + "' is " + FormatBytes(attr.size) +
                                   "; --json prints files up to 64 MiB (copy it with get)");
  }
  std::ostringstream bytes;
  VEXFS_RETURN_IF_ERROR(CopyFileTo(view, path, bytes));
  ctx.PrintJson(FileContentJson(path, bytes.str()));
  return Status::Ok();
}

void AddFileCommands(CLI::App& app, Context& ctx) {
  AddInit(app, ctx);
  AddPutGetCommands(app, ctx);
  AddCat(app, ctx);
  AddLs(app, ctx);
  AddStat(app, ctx);
  AddChangeCommands(app, ctx);
  AddMv(app, ctx);
}

}  // namespace vexfs::cli
