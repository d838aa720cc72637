// Shared CLI plumbing: store opening, errors, exit codes, output formatting.
#include "cli.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>

namespace vexfs::cli {

OpenedView OpenViewOrFail(Context& ctx, const std::string& at, const std::string& branch) {
  OpenedView opened;
  opened.db = ctx.OpenDb();
  if (!opened.db) return opened;
  auto view = opened.db->store().OpenView(at, branch);
  if (!view.ok()) {
    ctx.Fail(view.status());
    return opened;
  }
  opened.view = std::move(view).value();
  return opened;
}

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kNotFound: return kExitNotFound;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotDirectory:
    case StatusCode::kIsDirectory:
    case StatusCode::kNameTooLong:
    case StatusCode::kFileTooLarge:
    case StatusCode::kNotSupported: return kExitInvalid;
    case StatusCode::kAlreadyExists:
    case StatusCode::kNotEmpty: return kExitConflict;
    case StatusCode::kCorruption: return kExitCorrupt;
    case StatusCode::kNoSpace: return kExitNoSpace;
    case StatusCode::kReadOnly: return kExitReadOnly;
    case StatusCode::kBusy: return kExitBusy;
    case StatusCode::kIOError: return kExitFailure;
    case StatusCode::kPermissionDenied: return kExitUntrusted;
  }
  return kExitFailure;
}

std::string Context::StorePath() const {
  if (!global.store.empty()) return global.store;
  const char* env = std::getenv("VEXFS_STORE");
  if (env != nullptr && *env != '\0') return env;
  return ".";
}

std::unique_ptr<Db> Context::OpenDb(bool read_only) {
  DbOptions options = DefaultDbOptions();
  options.read_only = read_only;
  options.background_indexing = false;
  auto db = Db::Open(StorePath(), options);
  if (!db.ok()) {
    Fail(db.status());
    return nullptr;
  }
  opened_store = StorePath();
  return std::move(db).value();
}

int Context::Fail(const Status& status) {
  // These come from deep in the core, which does not know the path the user gave,
  // and their messages ("object ... does not match its hash") do not say what kind
  // of failure they are; scripts and people reading logs need both.
  std::string message = status.message();
  if (!opened_store.empty()) {
    std::string store = "store '" + opened_store + "'";
    switch (status.code()) {
      case StatusCode::kCorruption:
        message = "corruption detected in " + store + ": " + message;
        break;
      case StatusCode::kReadOnly:
        message = "cannot change " + store + ": " + message;
        break;
      case StatusCode::kNoSpace:
      case StatusCode::kBusy:
        message = store + ": " + message;
        break;
      default:
        break;
    }
  }
  return Fail(ExitCodeFor(status), message);
}

int Context::Fail(int code, const std::string& message) {
  std::fflush(stdout);
  std::cerr << "vexfs: " << message << std::endl;
  exit_code = code;
  return code;
}

void Context::PrintJson(const nlohmann::json& value) const {
  // Replace invalid UTF-8 (file names are bytes) instead of throwing.
  std::cout << value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

Progress::Progress(std::string label)
    : label_(std::move(label)), enabled_(::isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (shown_) std::cerr << "\n";
}

void Progress::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  shown_ = true;
  std::cerr << "\r" << label_ << " " << done;
  if (total > 0) std::cerr << "/" << total;
  std::cerr << std::flush;
}

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

// The first letter of `ls -l`.
static const char* TypeLetter(FileType type) {
  switch (type) {
    case FileType::kDirectory: return "d";
    case FileType::kSymlink: return "l";
    case FileType::kFifo: return "p";
    case FileType::kSocket: return "s";
    case FileType::kCharDevice: return "c";
    case FileType::kBlockDevice: return "b";
    case FileType::kRegular: break;
  }
  return "-";
}

std::string ModeString(const Attributes& a) {
  std::string s = TypeLetter(a.type);
  const char* rwx = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i) s += (a.mode & (0400 >> i)) ? rwx[i] : '-';
  // As ls(1): setuid and setgid over the owner's and group's x, sticky over the
  // others'; lowercase where that x is set too, uppercase where it is not.
  auto overlay = [&](uint32_t bit, size_t at, char letter) {
    if ((a.mode & bit) == 0) return;
    s[at] = s[at] == 'x' ? letter : static_cast<char>(std::toupper(letter));
  };
  overlay(04000, 3, 's');
  overlay(02000, 6, 's');
  overlay(01000, 9, 't');
  return s;
}

std::string KeyringDir(const std::string& given) {
  if (!given.empty()) return given;
  const char* env = std::getenv("VEXFS_KEYRING");
  return env != nullptr ? env : "";
}

}  // namespace vexfs::cli
