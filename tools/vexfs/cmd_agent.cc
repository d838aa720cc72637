// `vexfs agent export|import|inspect|send`, and `kv serve --import`: moving a whole agent (its files, memory
// graph and KV caches) as one signed USXF bundle (docs/agent-bundle.md).
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>

#include "cli.h"
#include "vexfs/agent_bundle.h"
#include "vexfs/kv/transport.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::cli {
// Named, since the CLI is a unity build: its files share anonymous namespaces.
namespace agent_commands {
namespace {

using nlohmann::json;

// The manifest in the bundle's own encoding, so every output shows one shape.
json BundleManifestJson(const agent::BundleManifest& m) { return json::parse(agent::EncodeManifest(m)); }

json BundleSignaturesJson(const std::vector<usxf::SignatureCheck>& checks) {
  json out = json::array();
  for (const auto& c : checks) {
    out.push_back({{"fingerprint", c.fingerprint}, {"trusted", c.trusted}, {"valid", c.valid},
                   {"keyring_entry", c.keyring_name}});
  }
  return out;
}

// Commit ids, one per line (blank lines and '#' comments skipped): what a
// target store lists with `vexfs log --json` for --have.
Result<std::vector<ObjectId>> ReadHaveFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read --have file " + path);
  std::vector<ObjectId> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto id = ObjectId::FromHex(line);
    if (!id.ok()) return Status::InvalidArgument(path + ":" + std::to_string(n) + ": not a 64-digit commit id");
    out.push_back(*id);
  }
  return out;
}

Result<agent::KvAttachment> ParseKvArg(const std::string& arg) {
  size_t eq = arg.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size()) {
    return Status::InvalidArgument("--kv wants NAME=STATE.usxf, not '" + arg + "'");
  }
  return agent::KvAttachment{arg.substr(0, eq), arg.substr(eq + 1)};
}

// Loads the keyring a command was given (--keyring or $VEXFS_KEYRING); none
// when neither is set.
Result<std::optional<usxf::Keyring>> LoadBundleKeyring(const std::string& given) {
  const std::string dir = KeyringDir(given);
  if (dir.empty()) return std::optional<usxf::Keyring>();
  VEXFS_ASSIGN_OR_RETURN(usxf::Keyring keyring, usxf::Keyring::Load(dir));
  if (keyring.keys().empty()) return Status::InvalidArgument("keyring " + dir + " holds no *.pub key");
  return std::optional<usxf::Keyring>(std::move(keyring));
}

struct ExportArgs {
  std::string snapshot, out, sign_key, agent, have_file;
  std::vector<std::string> kv, since;
  uint64_t pack_mib = 64;
};

Status RunExport(Context& ctx, const ExportArgs& a) {
  agent::ExportOptions o;
  o.snapshot = a.snapshot;
  o.agent = a.agent;
  o.since = a.since;
  o.pack_bytes = a.pack_mib << 20;
  if (!a.have_file.empty()) {
    VEXFS_ASSIGN_OR_RETURN(o.have, ReadHaveFile(a.have_file));
  }
  for (const std::string& arg : a.kv) {
    VEXFS_ASSIGN_OR_RETURN(agent::KvAttachment kv, ParseKvArg(arg));
    o.kv.push_back(std::move(kv));
  }
  std::optional<usxf::SigningKey> key;
  if (!a.sign_key.empty()) {
    VEXFS_ASSIGN_OR_RETURN(key, usxf::SigningKey::Load(a.sign_key));
    o.signers.push_back(&*key);
  }
  auto db = ctx.OpenDb(/*read_only=*/true);
  if (!db) return Status::Ok();  // reported
  Progress progress("agent export: bytes");
  o.progress = [&](uint64_t done, uint64_t total) { progress.Update(done, total); };
  VEXFS_ASSIGN_OR_RETURN(agent::ExportReport r, agent::ExportToPath(*db, o, a.out));
  if (ctx.global.json) {
    ctx.PrintJson({{"path", a.out}, {"file_bytes", r.file_bytes}, {"kv_bytes", r.kv_bytes},
                   {"signed", !a.sign_key.empty()}, {"select_seconds", r.select_seconds},
                   {"write_seconds", r.write_seconds}, {"manifest", BundleManifestJson(r.manifest)}});
    return Status::Ok();
  }
  std::cout << "exported snapshot " << r.manifest.snapshot.ToHex().substr(0, 12) << " of agent '" << r.manifest.agent
            << "' to " << a.out << ": " << r.manifest.objects << " objects (" << FormatBytes(r.manifest.object_bytes)
            << ")" << (r.manifest.base.empty() ? "" : ", incremental") << ", " << r.manifest.kv.size()
            << " KV cache(s) (" << FormatBytes(r.kv_bytes) << "), " << FormatBytes(r.file_bytes) << " in all"
            << (a.sign_key.empty() ? ", unsigned" : ", signed") << "\n";
  return Status::Ok();
}

void AddExport(CLI::App& agent_cmd, Context& ctx) {
  CLI::App* cmd = agent_cmd.add_subcommand("export", "Write a snapshot, its graph and KV caches to one USXF bundle");
  auto a = std::make_shared<ExportArgs>();
  cmd->add_option("snapshot", a->snapshot, "Snapshot name or commit id (default: the current branch's head)");
  cmd->add_option("-o,--output", a->out, "Bundle file to write")->required();
  cmd->add_option("--kv", a->kv, "NAME=STATE.usxf: a KV state file and the cache identity graph spans name it by");
  cmd->add_option("--sign,--sign-key", a->sign_key, "Sign the bundle with this Ed25519 key (vexfs usxf keygen)");
  cmd->add_option("--since", a->since, "Snapshots the target holds: only what they lack travels");
  cmd->add_option("--have", a->have_file, "File of commit ids the target holds, one per line");
  cmd->add_option("--agent", a->agent, "The agent's name (default: the snapshot's branch)");
  cmd->add_option("--pack-mib", a->pack_mib, "Objects per bundle section, in MiB")->check(CLI::Range(1, 4096));
  cmd->callback([&ctx, a] {
    Status st = RunExport(ctx, *a);
    if (!st.ok()) ctx.Fail(st);
  });
}

struct ImportArgs {
  std::string path, keyring_dir, branch;
  int threads = 2;
};

Status RunImport(Context& ctx, const ImportArgs& a) {
  VEXFS_ASSIGN_OR_RETURN(auto keyring, LoadBundleKeyring(a.keyring_dir));
  agent::ImportOptions o;
  o.keyring = keyring ? &*keyring : nullptr;
  o.branch = a.branch;
  o.threads = a.threads;
  auto db = ctx.OpenDb();
  if (!db) return Status::Ok();  // reported
  Progress progress("agent import: object bytes");
  o.progress = [&](uint64_t done, uint64_t total) { progress.Update(done, total); };
  VEXFS_ASSIGN_OR_RETURN(agent::ImportReport r, agent::Import(*db, a.path, o));
  if (ctx.global.json) {
    ctx.PrintJson({{"path", a.path}, {"objects_added", r.objects_added}, {"bytes_added", r.bytes_added},
                   {"kv_files", r.kv_files}, {"branch", a.branch}, {"signatures", BundleSignaturesJson(r.signatures)},
                   {"verify_seconds", r.verify_seconds}, {"import_seconds", r.import_seconds},
                   {"manifest", BundleManifestJson(r.manifest)}});
    return Status::Ok();
  }
  std::cout << "imported snapshot " << r.manifest.snapshot.ToHex().substr(0, 12) << " of agent '" << r.manifest.agent
            << "': " << r.objects_added << " new objects (" << FormatBytes(r.bytes_added) << "), "
            << r.kv_files.size() << " KV state(s)";
  if (!a.branch.empty()) std::cout << ", branch '" << a.branch << "'";
  std::cout << "\n";
  for (const auto& c : r.signatures) {
    if (c.valid) std::cout << "  signed by " << c.fingerprint << " (trusted: " << c.keyring_name << ")\n";
  }
  return Status::Ok();
}

void AddImport(CLI::App& agent_cmd, Context& ctx) {
  CLI::App* cmd = agent_cmd.add_subcommand(
      "import", "Verify a bundle whole, then import it: same commit ids, same graph, or nothing");
  auto a = std::make_shared<ImportArgs>();
  cmd->add_option("bundle", a->path, "Bundle file")->required();
  cmd->add_option("--keyring", a->keyring_dir,
                  "Directory of trusted public keys (*.pub); requires a valid trusted signature "
                  "(default: $VEXFS_KEYRING)");
  cmd->add_option("--branch", a->branch, "Make a branch at the imported snapshot");
  cmd->add_option("--threads", a->threads, "Threads hashing the bundle")->check(CLI::Range(1, 64));
  cmd->callback([&ctx, a] {
    Status st = RunImport(ctx, *a);
    if (!st.ok()) ctx.Fail(st);
  });
}

void AddInspect(CLI::App& agent_cmd, Context& ctx) {
  CLI::App* cmd = agent_cmd.add_subcommand("inspect", "Verify a bundle and show what it holds");
  auto a = std::make_shared<ImportArgs>();
  cmd->add_option("bundle", a->path, "Bundle file")->required();
  cmd->add_option("--keyring", a->keyring_dir, "Directory of trusted public keys (default: $VEXFS_KEYRING)");
  cmd->callback([&ctx, a] {
    auto keyring = LoadBundleKeyring(a->keyring_dir);
    if (!keyring.ok()) return (void)ctx.Fail(keyring.status());
    usxf::VerifyOptions o;
    o.keyring = *keyring ? &**keyring : nullptr;
    o.threads = a->threads;
    auto info = agent::Inspect(a->path, o);
    if (!info.ok()) return (void)ctx.Fail(info.status().WithContext(a->path));
    const agent::BundleManifest& m = info->manifest;
    if (ctx.global.json) {
      json j = BundleManifestJson(m);
      j["file_bytes"] = info->verify.summary.file_length;
      j["signatures"] = BundleSignaturesJson(info->verify.signatures);
      return ctx.PrintJson(j);
    }
    std::cout << a->path << ": agent '" << m.agent << "', snapshot " << m.snapshot.ToHex() << " (branch " << m.branch
              << ")\n  " << m.objects << " objects, " << FormatBytes(m.object_bytes) << "; "
              << (m.base.empty() ? "whole" : "incremental on " + std::to_string(m.base.size()) + " commit(s)") << "\n";
    for (const auto& [name, commit] : m.names) std::cout << "  snapshot " << name << " " << commit.ToHex().substr(0, 12) << "\n";
    for (const agent::BundleKv& k : m.kv) {
      std::cout << "  kv " << k.cache << ": " << FormatBytes(k.bytes) << ", " << k.nodes.size() << " graph node(s)\n";
    }
  });
}

struct SendArgs {
  std::string file, to;
  int attempts = 5;
};

Status RunSend(Context& ctx, const SendArgs& a) {
  // A cheap look (structure and checksums of the header and footer): what goes
  // out must be a bundle; the receiver verifies every byte.
  VEXFS_ASSIGN_OR_RETURN(auto file, usxf::MappedFile::Open(a.file));
  if (!agent::IsBundle(file->summary())) return Status::InvalidArgument(a.file + " is not an agent bundle");
  file.reset();
  kv::SendOptions options;
  options.max_attempts = a.attempts;
  Progress progress("agent send: bytes");
  options.progress = [&progress](uint64_t sent, uint64_t total) { progress.Update(sent, total); };
  kv::SendReport report;
  auto start = std::chrono::steady_clock::now();
  Status st = kv::SendFile(a.file, a.to, options, &report);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (ctx.global.json) {
    json j = {{"ok", st.ok()},          {"file", a.file},           {"to", a.to},
              {"bytes", report.total_bytes}, {"bytes_sent", report.bytes_sent}, {"resumed_from", report.resumed_from},
              {"attempts", report.attempts}, {"seconds", seconds},  {"receiver", report.receiver_message}};
    if (!st.ok()) j["error"] = st.message();
    ctx.PrintJson(j);
  }
  VEXFS_RETURN_IF_ERROR(st);
  if (!ctx.global.json) {
    std::cout << a.file << ": verified by " << a.to << " (" << FormatBytes(report.bytes_sent) << " sent in "
              << seconds << " s" << (report.resumed_from > 0 ? ", resumed at byte " + std::to_string(report.resumed_from) : "")
              << "): " << report.receiver_message << "\n";
  }
  return Status::Ok();
}

void AddSend(CLI::App& agent_cmd, Context& ctx) {
  CLI::App* cmd = agent_cmd.add_subcommand(
      "send", "Stream a bundle to a `vexfs kv serve`: verified as it arrives, resumed after a dropped connection");
  auto a = std::make_shared<SendArgs>();
  cmd->add_option("bundle", a->file, "Bundle file")->required();
  cmd->add_option("address", a->to, "Receiver, HOST:PORT")->required();
  cmd->add_option("--attempts", a->attempts, "Connections to try before giving up")->check(CLI::Range(1, 1000));
  cmd->callback([&ctx, a] {
    Status st = RunSend(ctx, *a);
    if (!st.ok()) ctx.Fail(st);
  });
}

}  // namespace
}  // namespace agent_commands

KvServeHook ImportBundlesOnArrival(Context& ctx) {
  struct Args {
    bool import = false;
    std::string branch;
  };
  auto a = std::make_shared<Args>();
  KvServeHook hook;
  hook.add_options = [a](CLI::App& serve) {
    serve.add_flag("--import", a->import, "Import each verified agent bundle into the store (--store)");
    serve.add_option("--import-branch", a->branch,
                     "Make this branch at the imported snapshot (one bundle: a later one finds it taken)");
  };
  hook.start = [&ctx, a](std::shared_ptr<const usxf::Keyring> keyring) -> Result<kv::OnVerified> {
    if (!a->import) return kv::OnVerified();
    if (!keyring) {
      std::cerr << "vexfs kv serve: warning: --import with --allow-unsigned imports any intact bundle from anyone "
                   "who can connect"
                << std::endl;
    }
    std::shared_ptr<Db> db = ctx.OpenDb();
    if (!db) return Status::InvalidArgument("--import: the store did not open (reported above)");
    return kv::OnVerified([&ctx, a, db](const kv::VerifiedStream& stream) -> Status {
      if (!agent::IsBundle(stream.summary)) return Status::Ok();
      agent::ImportOptions o;
      o.verified = &stream.summary;  // checked as it arrived, against serve's keyring
      o.branch = a->branch;
      VEXFS_ASSIGN_OR_RETURN(agent::ImportReport r, agent::Import(*db, stream.path, o));
      ::unlink(stream.path.c_str());  // its objects are in the store now
      if (ctx.global.json) {
        ctx.PrintJson({{"imported", stream.name}, {"snapshot", r.manifest.snapshot.ToHex()},
                       {"agent", r.manifest.agent}, {"objects_added", r.objects_added}, {"kv_files", r.kv_files}});
      } else {
        std::cout << "imported " << stream.name << ": snapshot " << r.manifest.snapshot.ToHex().substr(0, 12)
                  << " of agent '" << r.manifest.agent << "', " << r.objects_added << " new objects" << std::endl;
      }
      return Status::Ok();
    });
  };
  return hook;
}

void AddAgentCommands(CLI::App& app, Context& ctx) {
  using namespace agent_commands;
  CLI::App* agent_cmd = app.add_subcommand("agent", "Move a whole agent: files, memory graph and KV caches");
  agent_cmd->require_subcommand(1);
  AddExport(*agent_cmd, ctx);
  AddImport(*agent_cmd, ctx);
  AddInspect(*agent_cmd, ctx);
  AddSend(*agent_cmd, ctx);
  AddAgentResume(*agent_cmd, ctx);
}

}  // namespace vexfs::cli
