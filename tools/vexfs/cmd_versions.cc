// Versioning commands: snapshot, tag, log, diff, restore, branch, checkout.
#include <iostream>

#include "cli.h"

namespace vexfs::cli {
namespace {

Result<std::map<std::string, std::string>> ParseMeta(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> meta;
  for (const std::string& kv : pairs) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("metadata '" + kv + "' is not KEY=VALUE");
    }
    meta[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return meta;
}

void PrintCommitText(const CommitInfo& c) {
  std::cout << "snapshot " << c.id.ToHex();
  if (!c.names.empty()) {
    std::cout << " (";
    for (size_t i = 0; i < c.names.size(); ++i) std::cout << (i ? ", " : "") << c.names[i];
    std::cout << ")";
  }
  std::cout << "\nbranch:  " << c.branch << "\ndate:    " << FormatTime(c.time) << "\n";
  for (const ObjectId& p : c.parents) std::cout << "parent:  " << p.ToHex() << "\n";
  for (const auto& [k, v] : c.meta) std::cout << "meta:    " << k << "=" << v << "\n";
  if (!c.message.empty()) std::cout << "\n    " << c.message << "\n";
  std::cout << "\n";
}

void AddSnapshot(CLI::App& app, Context& ctx) {
  CLI::App* snap = app.add_subcommand("snapshot", "Create, list or delete named snapshots");
  snap->require_subcommand(1);

  struct CreateArgs {
    std::string name, message, branch;
    std::vector<std::string> meta;
  };
  auto args = std::make_shared<CreateArgs>();
  CLI::App* create = snap->add_subcommand("create", "Snapshot the working tree under a name");
  create->add_option("NAME", args->name, "Snapshot name: letters, digits, '.', '_', '-'")
      ->required();
  create->add_option("-m,--message", args->message, "What this snapshot records");
  create->add_option("--meta", args->meta, "KEY=VALUE metadata (repeatable)");
  create->add_option("--branch", args->branch, "Branch to snapshot (default: current)");
  create->callback([&ctx, args] {
    auto meta = ParseMeta(args->meta);
    if (!meta.ok()) return (void)ctx.Fail(meta.status());
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    auto info = store->CreateSnapshot(args->name, args->message, *meta, args->branch);
    if (!info.ok()) return (void)ctx.Fail(info.status());
    if (ctx.global.json) return ctx.PrintJson(CommitJson(*info));
    std::cout << "snapshot " << args->name << " " << info->id.ToHex() << " on " << info->branch
              << "\n";
  });

  CLI::App* list = snap->add_subcommand("list", "List named snapshots, oldest first");
  list->callback([&ctx] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    auto snaps = store->ListSnapshots();
    if (!snaps.ok()) return (void)ctx.Fail(snaps.status());
    nlohmann::json out = nlohmann::json::array();
    for (const CommitInfo& c : *snaps) {
      if (ctx.global.json) {
        out.push_back(CommitJson(c));
        continue;
      }
      for (const std::string& n : c.names) {
        std::cout << n << "\t" << c.id.ToHex().substr(0, 12) << "\t" << FormatTime(c.time)
                  << "\t" << c.branch << "\t" << c.message << "\n";
      }
    }
    if (ctx.global.json) ctx.PrintJson(out);
  });

  auto del_name = std::make_shared<std::string>();
  CLI::App* del = snap->add_subcommand(
      "delete", "Remove a snapshot name (its data goes at the next gc if nothing else holds it)");
  del->add_option("NAME", *del_name, "Snapshot name")->required();
  del->callback([&ctx, del_name] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    Status st = store->DeleteSnapshotName(*del_name);
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddTag(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* cmd = app.add_subcommand("tag", "Give an existing snapshot another name");
  cmd->add_option("NAME", args->first, "New name")->required();
  cmd->add_option("SNAPSHOT", args->second, "Existing snapshot name or id")->required();
  cmd->callback([&ctx, args] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    Status st = store->TagSnapshot(args->first, args->second);
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddLog(CLI::App& app, Context& ctx) {
  struct Args {
    std::string from;
    size_t limit = 0;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("log", "Show snapshot history, newest first");
  cmd->add_option("REF", args->from, "Branch or snapshot to start from (default: current branch)");
  cmd->add_option("-n,--max-count", args->limit, "Show at most N snapshots");
  cmd->callback([&ctx, args] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    auto log = store->Log(args->from, args->limit);
    if (!log.ok()) return (void)ctx.Fail(log.status());
    nlohmann::json out = nlohmann::json::array();
    for (const CommitInfo& c : *log) {
      if (ctx.global.json) out.push_back(CommitJson(c));
      else PrintCommitText(c);
    }
    if (ctx.global.json) ctx.PrintJson(out);
  });
}

void AddDiff(CLI::App& app, Context& ctx) {
  struct Args {
    std::string a, b = std::string(kWorkingName);
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("diff", "Show what changed from A to B");
  cmd->add_option("A", args->a, "Snapshot name or id, or WORKING")->required();
  cmd->add_option("B", args->b, "Snapshot name or id, or WORKING (default: WORKING)");
  cmd->callback([&ctx, args] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    auto diff = store->Diff(args->a, args->b);
    if (!diff.ok()) return (void)ctx.Fail(diff.status());
    nlohmann::json out = nlohmann::json::array();
    for (const DiffEntry& e : *diff) {
      if (ctx.global.json) {
        out.push_back(DiffEntryJson(e));
        continue;
      }
      static const char kLetters[] = {'A', 'D', 'M', 'R', 'T'};
      std::cout << kLetters[static_cast<int>(e.kind)] << "  ";
      if (!e.root.empty()) {
        std::cout << "(" << e.root << " data)\n";
        continue;
      }
      if (e.kind == DiffEntry::Kind::kRenamed) std::cout << e.old_path << " -> ";
      std::cout << e.path << (e.type == FileType::kDirectory ? "/" : "") << "\n";
    }
    if (ctx.global.json) ctx.PrintJson(out);
  });
}

void AddRestore(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "restore", "Make the working tree equal to a snapshot (history is kept)");
  cmd->add_option("SNAPSHOT", args->first, "Snapshot name or id")->required();
  cmd->add_option("--branch", args->second, "Branch to restore (default: current)");
  cmd->callback([&ctx, args] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    Status st = store->Restore(args->first, args->second);
    if (!st.ok()) return (void)ctx.Fail(st);
    if (!ctx.global.json) std::cout << "restored working tree to " << args->first << "\n";
  });
}

void ListBranches(Context& ctx, Store& store) {
  auto branches = store.ListBranches();
  if (!branches.ok()) return (void)ctx.Fail(branches.status());
  nlohmann::json out = nlohmann::json::array();
  for (const BranchInfo& b : *branches) {
    std::string head = b.head ? b.head->ToHex() : "";
    if (ctx.global.json) {
      out.push_back(BranchJson(b));
    } else {
      std::cout << (b.current ? "* " : "  ") << b.name << (head.empty() ? "" : "\t")
                << head.substr(0, 12) << "\n";
    }
  }
  if (ctx.global.json) ctx.PrintJson(out);
}

void AddBranch(CLI::App& app, Context& ctx) {
  struct Args {
    std::string name, from;
    bool remove = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "branch", "List branches, or create one (from a snapshot, or a copy of the working tree)");
  cmd->add_option("NAME", args->name, "Branch to create (or delete with -d)");
  cmd->add_option("--from", args->from, "Start the branch at this snapshot");
  cmd->add_flag("-d,--delete", args->remove, "Delete the branch and its working tree");
  cmd->callback([&ctx, args] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    if (args->name.empty()) return ListBranches(ctx, *store);
    Status st;
    if (args->remove) {
      st = store->DeleteBranch(args->name);
    } else {
      std::optional<std::string> from;
      if (!args->from.empty()) from = args->from;
      st = store->CreateBranch(args->name, from);
    }
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddCheckout(CLI::App& app, Context& ctx) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("checkout", "Make BRANCH the current branch");
  cmd->add_option("BRANCH", *name, "Branch name")->required();
  cmd->callback([&ctx, name] {
    auto db = ctx.OpenDb();
    if (!db) return;
    Store* store = &db->store();
    Status st = store->Checkout(*name);
    if (!st.ok()) return (void)ctx.Fail(st);
    if (!ctx.global.json) std::cout << "on branch " << *name << "\n";
  });
}

}  // namespace

void AddVersionCommands(CLI::App& app, Context& ctx) {
  AddSnapshot(app, ctx);
  AddTag(app, ctx);
  AddLog(app, ctx);
  AddDiff(app, ctx);
  AddRestore(app, ctx);
  AddBranch(app, ctx);
  AddCheckout(app, ctx);
}

}  // namespace vexfs::cli
