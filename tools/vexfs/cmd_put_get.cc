// `vexfs put` and `vexfs get`: the command line over vexfs/local_files.h.
#include <iostream>
#include <iterator>

#include "cli.h"
#include "vexfs/local_files.h"

namespace vexfs::cli {
namespace {

struct PutArgs {
  std::string local;
  std::string dest;
  std::string branch;
};

Result<PutReport> RunPut(Store& store, const PutArgs& args) {
  Progress progress("put: files");
  PutOptions options;
  options.branch = args.branch;
  options.progress = [&progress](uint64_t done, uint64_t total) { progress.Update(done, total); };
  if (args.local != "-") return PutLocalPath(store, args.local, args.dest, options);
  // A wrong branch or destination fails before stdin is read, not after its EOF.
  VEXFS_RETURN_IF_ERROR(store.Tree(args.branch).status());
  if (args.dest.empty() || args.dest.back() == '/') {
    return Status::InvalidArgument("put from stdin needs a file path, not '" + args.dest + "'");
  }
  std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  return PutBytes(store, args.dest, data, {args.branch, {}});
}

void PrintPutReport(Context& ctx, const PutReport& report) {
  if (ctx.global.json) {
    ctx.PrintJson({{"files", report.files}, {"dirs", report.dirs}, {"bytes", report.bytes}});
  } else {
    std::cout << "put " << report.files << " file(s), " << FormatBytes(report.bytes) << "\n";
  }
}

}  // namespace

void AddPutGetCommands(CLI::App& app, Context& ctx) {
  auto put_args = std::make_shared<PutArgs>();
  CLI::App* put = app.add_subcommand(
      "put", "Copy a local file or directory (recursively), or stdin ('-'), into the store");
  put->add_option("LOCAL", put_args->local, "Local file or directory, or - for stdin")->required();
  put->add_option("STORE_PATH", put_args->dest, "Destination in the store")->required();
  put->add_option("--branch", put_args->branch, "Branch to write (default: current)");
  put->callback([&ctx, put_args] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    auto report = RunPut(*store, *put_args);
    if (!report.ok()) return (void)ctx.Fail(report.status());
    PrintPutReport(ctx, *report);
  });

  struct GetArgs {
    std::string path, local = "-", at, branch;
  };
  auto get_args = std::make_shared<GetArgs>();
  CLI::App* get = app.add_subcommand(
      "get", "Copy a file or directory out of the store (to stdout when LOCAL is - or absent)");
  get->add_option("STORE_PATH", get_args->path, "Path in the store")->required();
  get->add_option("LOCAL", get_args->local, "Local destination (default: stdout)");
  get->add_option("--at", get_args->at, "Read from this snapshot instead of the working tree");
  get->add_option("--branch", get_args->branch, "Branch to read (default: current)");
  get->callback([&ctx, get_args] {
    OpenedView view = OpenViewOrFail(ctx, get_args->at, get_args->branch);
    if (!view.view) return;
    if (get_args->local == "-") {
      // A directory, link or node has no bytes to print, but copies to a path.
      auto attr = view.view->Stat(get_args->path);
      if (!attr.ok()) return (void)ctx.Fail(attr.status());
      if (attr->type != FileType::kRegular) {
        return (void)ctx.Fail(Status::InvalidArgument(
            "'" + get_args->path + "' is a " + FileTypeName(attr->type) +
            ", which has no bytes to print; give a local path to copy it"));
      }
      Status st = PrintFileContent(ctx, *view.view, get_args->path);
      if (!st.ok()) ctx.Fail(st);
      return;
    }
    auto files = GetToLocalPath(*view.view, get_args->path, get_args->local);
    if (!files.ok()) return (void)ctx.Fail(files.status());
    if (ctx.global.json) {
      ctx.PrintJson({{"path", get_args->path}, {"local", get_args->local}, {"files", *files}});
    }
  });
}

}  // namespace vexfs::cli
