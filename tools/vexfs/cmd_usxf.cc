// USXF commands: inspect, verify, keygen, sign, and pack/extract for moving plain
// files in and out of a container (docs/usxf.md, docs/cli.md).
#include <cstdlib>
#include <iostream>

#include "cli.h"
#include "vexfs/local_files.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::cli {
namespace {

using nlohmann::json;
namespace usxf = vexfs::usxf;

std::string Hex(const usxf::Digest& d) { return usxf::HexOf(d); }

std::string ShapeString(const std::vector<uint64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

json KvJson(const usxf::SectionInfo& s) {
  auto kv = usxf::KvCacheInfo::FromSection(s);
  if (!kv.ok()) return {{"error", kv.status().message()}};
  return {{"arch", kv->arch},
          {"weights_fingerprint", Hex(kv->weights_fingerprint)},
          {"hparams_fingerprint", Hex(kv->hparams_fingerprint)},
          {"tokenizer_fingerprint", Hex(kv->tokenizer_fingerprint)},
          {"n_layers", kv->n_layers},
          {"n_heads", kv->n_heads},
          {"n_kv_heads", kv->n_kv_heads},
          {"k_head_dim", kv->k_head_dim},
          {"v_head_dim", kv->v_head_dim},
          {"attention", kv->attention == usxf::AttentionKind::kMHA   ? "MHA"
                        : kv->attention == usxf::AttentionKind::kGQA ? "GQA"
                                                                     : "MQA"},
          {"rope", kv->rope == usxf::RopeType::kNeox          ? "neox"
                   : kv->rope == usxf::RopeType::kInterleaved ? "interleaved"
                                                              : "none"},
          {"rope_freq_base", kv->rope_freq_base},
          {"k_after_rope", kv->k_after_rope},
          {"n_tokens", kv->n_tokens()},
          {"positions", kv->positions_contiguous ? "contiguous from " + std::to_string(kv->position_start)
                                                 : std::string("explicit")},
          {"block_size", kv->block_size},
          {"blocks", kv->block_hashes.size()},
          {"k_rotation", kv->k_rotation},
          {"v_rotation", kv->v_rotation},
          {"runtime", kv->runtime}};
}

json SectionJson(const usxf::SectionInfo& s, const usxf::Xxh128& checksum) {
  json j = {{"name", s.name},
            {"kind", usxf::SectionKindName(s.kind)},
            {"dtype", usxf::DTypeName(s.dtype)},
            {"encoding", usxf::EncodingName(s.encoding)},
            {"compression", usxf::CompressionName(s.compression)},
            {"shape", s.shape},
            {"offset", s.offset},
            {"stored_bytes", s.stored_length},
            {"raw_bytes", s.raw_length},
            {"xxh3_128", usxf::HexOf(reinterpret_cast<const uint8_t*>(&checksum), 16)}};
  if (s.group_size != 0) j["group_size"] = s.group_size;
  if (s.kind == static_cast<uint32_t>(usxf::SectionKind::kKvCache)) j["kv"] = KvJson(s);
  return j;
}

json SummaryJson(const usxf::FileSummary& f) {
  json sections = json::array();
  for (size_t i = 0; i < f.sections.size(); ++i) sections.push_back(SectionJson(f.sections[i], f.section_checksums[i]));
  json sigs = json::array();
  for (const usxf::Signature& s : f.signatures) sigs.push_back(usxf::PublicKey{s.public_key}.Fingerprint());
  json j = {{"version", std::to_string(f.major) + "." + std::to_string(f.minor)},
            {"file_bytes", f.file_length},
            {"alignment", f.alignment},
            {"merkle_chunk_bytes", uint64_t{1} << f.chunk_log2},
            {"header_bytes", f.header_length},
            {"sealed", f.sealed},
            {"sections", sections},
            {"signed_by", sigs}};
  if (f.sealed) j["root"] = Hex(f.root);
  return j;
}

void PrintSummaryText(const usxf::FileSummary& f) {
  std::cout << "USXF " << f.major << "." << f.minor << ", " << FormatBytes(f.file_length) << ", "
            << f.sections.size() << " section(s), aligned to " << f.alignment << " bytes\n";
  for (size_t i = 0; i < f.sections.size(); ++i) {
    const usxf::SectionInfo& s = f.sections[i];
    std::cout << "  " << i << " " << s.name << ": " << usxf::SectionKindName(s.kind);
    if (s.kind != static_cast<uint32_t>(usxf::SectionKind::kBlob)) {
      std::cout << " " << usxf::DTypeName(s.dtype) << ShapeString(s.shape);
      if (s.encoding != 0) std::cout << " as " << usxf::EncodingName(s.encoding);
      if (s.group_size != 0) std::cout << " (group " << s.group_size << ")";
    }
    if (s.compression != 0) std::cout << ", " << usxf::CompressionName(s.compression);
    std::cout << ", " << FormatBytes(s.stored_length) << " stored\n";
    if (s.kind == static_cast<uint32_t>(usxf::SectionKind::kKvCache)) {
      json kv = KvJson(s);
      if (kv.contains("error")) {
        std::cout << "      kv metadata: " << kv["error"].get<std::string>() << "\n";
      } else {
        std::cout << "      " << kv["arch"].get<std::string>() << ", " << kv["n_layers"] << " layers, "
                  << kv["attention"].get<std::string>() << ", " << kv["n_tokens"] << " tokens, rope "
                  << kv["rope"].get<std::string>() << ", weights " << kv["weights_fingerprint"].get<std::string>().substr(0, 16)
                  << "\n";
      }
    }
  }
  std::cout << (f.sealed ? "sealed, root " + Hex(f.root) : std::string("not sealed (fast checksums only)")) << "\n";
  for (const usxf::Signature& s : f.signatures) {
    std::cout << "signed by " << usxf::PublicKey{s.public_key}.Fingerprint() << " (claimed; verify --keyring checks it)\n";
  }
}

void AddInspect(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("inspect", "Show a USXF file's header, sections, sizes and signers");
  auto path = std::make_shared<std::string>();
  cmd->add_option("file", *path, "USXF file")->required();
  cmd->callback([&ctx, path] {
    auto file = usxf::MappedFile::Open(*path);
    if (!file.ok()) return (void)ctx.Fail(file.status());
    const usxf::FileSummary& f = (*file)->summary();
    if (ctx.global.json) return ctx.PrintJson(SummaryJson(f));
    PrintSummaryText(f);
  });
}

json SignaturesJson(const std::vector<usxf::SignatureCheck>& checks) {
  json out = json::array();
  for (const auto& c : checks) {
    out.push_back({{"fingerprint", c.fingerprint}, {"trusted", c.trusted}, {"valid", c.valid},
                   {"keyring_entry", c.keyring_name}});
  }
  return out;
}

void AddVerify(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "verify", "Check every checksum, digest, the Merkle root and signatures (exit 0 only if all hold)");
  struct Args {
    std::string path, keyring_dir;
    bool fast = false;
    int threads = 2;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("file", a->path, "USXF file")->required();
  cmd->add_option("--keyring", a->keyring_dir,
                  "Directory of trusted public keys (*.pub); requires a valid trusted signature "
                  "(default: $VEXFS_KEYRING)");
  cmd->add_flag("--fast", a->fast, "Check the fast checksums only (accidents, not tampering)");
  cmd->add_option("--threads", a->threads, "Threads hashing SHA-256 chunks")->check(CLI::Range(1, 64));
  cmd->callback([&ctx, a] {
    const bool fast = a->fast;
    const std::string& path = a->path;
    usxf::Keyring keyring;
    usxf::VerifyOptions options;
    options.level = fast ? usxf::VerifyLevel::kFast : usxf::VerifyLevel::kFull;
    options.threads = a->threads;
    const std::string dir = KeyringDir(a->keyring_dir);
    if (!dir.empty()) {
      auto loaded = usxf::Keyring::Load(dir);
      if (!loaded.ok()) return (void)ctx.Fail(loaded.status());
      keyring = *loaded;
      options.keyring = &keyring;
    }
    usxf::VerifyReport r = usxf::VerifyFile(path, options);
    if (ctx.global.json) {
      json j = {{"ok", r.status.ok()}, {"level", fast ? "fast" : "full"}, {"signatures", SignaturesJson(r.signatures)}};
      if (!r.status.ok()) j["error"] = r.status.message();
      if (!r.summary.sections.empty() || r.summary.file_length != 0) j["file"] = SummaryJson(r.summary);
      ctx.PrintJson(j);
    }
    if (!r.status.ok()) return (void)ctx.Fail(r.status.WithContext(path));
    if (ctx.global.json) return;
    std::cout << path << ": ok (" << r.summary.sections.size() << " sections, "
              << (fast ? "fast checksums" : "checksums, SHA-256 digests and root " + Hex(r.summary.root).substr(0, 16))
              << ")\n";
    for (const auto& c : r.signatures) {
      std::cout << "  signed by " << c.fingerprint
                << (c.valid ? " (trusted: " + c.keyring_name + ", valid)" : " (not in the keyring; not checked)") << "\n";
    }
  });
}

void AddKeygen(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("keygen", "Create an Ed25519 signing key (KEY, and KEY.pub to share)");
  auto out_arg = std::make_shared<std::string>();
  cmd->add_option("-o,--output", *out_arg, "Private key file to create (KEY.pub is written beside it)")->required();
  cmd->callback([&ctx, out_arg] {
    const std::string& out = *out_arg;
    auto key = usxf::SigningKey::Generate();
    if (!key.ok()) return (void)ctx.Fail(key.status());
    if (Status st = key->Save(out); !st.ok()) return (void)ctx.Fail(st);
    if (ctx.global.json) {
      return ctx.PrintJson({{"private_key", out}, {"public_key", out + ".pub"},
                            {"fingerprint", key->public_key.Fingerprint()}});
    }
    std::cout << "wrote " << out << " (private, mode 0600) and " << out << ".pub\n"
              << "fingerprint " << key->public_key.Fingerprint() << "\n"
              << "receivers trust it by copying " << out << ".pub into their keyring directory\n";
  });
}

void AddSign(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("sign", "Add an Ed25519 signature over a USXF file's Merkle root");
  struct Args {
    std::string path, key_path;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("file", a->path, "USXF file (rewritten atomically)")->required();
  cmd->add_option("--key", a->key_path, "Private key from 'vexfs usxf keygen'")->required();
  cmd->callback([&ctx, a] {
    const std::string &path = a->path, &key_path = a->key_path;
    auto key = usxf::SigningKey::Load(key_path);
    if (!key.ok()) return (void)ctx.Fail(key.status());
    if (Status st = usxf::SignFile(path, *key); !st.ok()) return (void)ctx.Fail(st);
    if (ctx.global.json) return ctx.PrintJson({{"file", path}, {"signed_by", key->public_key.Fingerprint()}});
    std::cout << "signed " << path << " as " << key->public_key.Fingerprint() << "\n";
  });
}

void AddPack(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("pack", "Write plain files as blob sections of a new USXF file");
  struct Args {
    std::vector<std::string> blobs;
    std::string out, key_path;
    bool no_seal = false, zstd = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("blobs", a->blobs, "NAME=PATH pairs, one section each")->required();
  cmd->add_option("-o,--output", a->out, "USXF file to write")->required();
  cmd->add_option("--key", a->key_path, "Sign with this private key");
  cmd->add_flag("--no-seal", a->no_seal, "Skip the SHA-256 Merkle tree (cannot be signed)");
  cmd->add_flag("--zstd", a->zstd, "Compress each section with zstd");
  cmd->callback([&ctx, a] {
    const auto& blobs = a->blobs;
    const std::string &out = a->out, &key_path = a->key_path;
    const bool no_seal = a->no_seal, zstd = a->zstd;
    std::vector<std::string> contents;
    std::vector<usxf::SectionData> sections;
    for (const std::string& b : blobs) {
      size_t eq = b.find('=');
      if (eq == std::string::npos || eq == 0) return (void)ctx.Fail(Status::InvalidArgument("'" + b + "' is not NAME=PATH"));
      auto data = ReadLocalFile(b.substr(eq + 1));
      if (!data.ok()) return (void)ctx.Fail(data.status());
      contents.push_back(std::move(data).value());
    }
    for (size_t i = 0; i < blobs.size(); ++i) {
      usxf::SectionData s{{}, contents[i]};
      s.info.name = blobs[i].substr(0, blobs[i].find('='));
      s.info.compression = zstd ? 1 : 0;
      sections.push_back(s);
    }
    std::optional<usxf::SigningKey> key;
    if (!key_path.empty()) {
      auto loaded = usxf::SigningKey::Load(key_path);
      if (!loaded.ok()) return (void)ctx.Fail(loaded.status());
      key = *loaded;
    }
    usxf::WriterOptions options;
    options.seal = !no_seal;
    std::vector<const usxf::SigningKey*> signers;
    if (key) signers.push_back(&*key);
    if (Status st = usxf::WriteFileToPath(out, sections, usxf::Metadata(), options, signers); !st.ok()) {
      return (void)ctx.Fail(st);
    }
    if (ctx.global.json) return ctx.PrintJson({{"file", out}, {"sections", blobs.size()}});
    std::cout << "wrote " << out << " (" << blobs.size() << " section(s))\n";
  });
}

void AddExtract(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("extract", "Write one section's decoded values to a file (after a fast check)");
  struct Args {
    std::string path, name, out;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("file", a->path, "USXF file")->required();
  cmd->add_option("section", a->name, "Section name")->required();
  cmd->add_option("-o,--output", a->out, "Where to write the values")->required();
  cmd->callback([&ctx, a] {
    const std::string &path = a->path, &name = a->name, &out = a->out;
    auto file = usxf::MappedFile::Open(path);
    if (!file.ok()) return (void)ctx.Fail(file.status());
    if (Status st = (*file)->Verify(usxf::VerifyLevel::kFast); !st.ok()) return (void)ctx.Fail(st.WithContext(path));
    auto index = (*file)->Find(name);
    if (!index.ok()) return (void)ctx.Fail(index.status());
    std::string storage;
    auto values = (*file)->Values(*index, &storage);
    if (!values.ok()) return (void)ctx.Fail(values.status());
    if (Status st = WriteLocalFileAtomically(out, *values); !st.ok()) return (void)ctx.Fail(st);
    if (ctx.global.json) return ctx.PrintJson({{"section", name}, {"bytes", values->size()}, {"output", out}});
    std::cout << "wrote " << FormatBytes(values->size()) << " of '" << name << "' to " << out << "\n";
  });
}

}  // namespace

void AddUsxfCommands(CLI::App& app, Context& ctx) {
  CLI::App* usxf_cmd = app.add_subcommand("usxf", "Signed, verifiable state containers (USXF)");
  usxf_cmd->require_subcommand(1);
  AddInspect(*usxf_cmd, ctx);
  AddVerify(*usxf_cmd, ctx);
  AddKeygen(*usxf_cmd, ctx);
  AddSign(*usxf_cmd, ctx);
  AddPack(*usxf_cmd, ctx);
  AddExtract(*usxf_cmd, ctx);
}

}  // namespace vexfs::cli
