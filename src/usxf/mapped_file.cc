// MappedFile: a USXF file mapped read-only; sections are handed out in place.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_util.h"
#include "usxf/layout.h"
#include "usxf/section_codec.h"
#include "vexfs/usxf.h"

namespace vexfs::usxf {

struct MappedFile::State {
  void* map = nullptr;
  size_t map_length = 0;
  std::string_view file;
  ParsedFile parsed;
  ~State() {
    if (map != nullptr) ::munmap(map, map_length);
  }
};

MappedFile::MappedFile(std::unique_ptr<State> state) : state_(std::move(state)) {}
MappedFile::~MappedFile() = default;

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open " + path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = ErrnoStatus("stat " + path);
    ::close(fd);
    return s;
  }
  auto state = std::make_unique<State>();
  state->map_length = static_cast<size_t>(st.st_size);
  if (state->map_length > 0) {
    state->map = ::mmap(nullptr, state->map_length, PROT_READ, MAP_SHARED, fd, 0);
  }
  ::close(fd);
  if (state->map == MAP_FAILED) {
    state->map = nullptr;
    return ErrnoStatus("mmap " + path);
  }
  state->file = std::string_view(static_cast<const char*>(state->map), state->map_length);
  auto parsed = ParseFile(state->file);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  state->parsed = std::move(parsed).value();
  return std::unique_ptr<MappedFile>(new MappedFile(std::move(state)));
}

Result<std::unique_ptr<MappedFile>> MappedFile::FromBytes(std::string_view bytes) {
  auto state = std::make_unique<State>();
  state->file = bytes;
  VEXFS_ASSIGN_OR_RETURN(state->parsed, ParseFile(bytes));
  return std::unique_ptr<MappedFile>(new MappedFile(std::move(state)));
}

const FileSummary& MappedFile::summary() const { return state_->parsed.summary; }

Result<size_t> MappedFile::Find(std::string_view name) const {
  const auto& sections = summary().sections;
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].name == name) return i;
  }
  return Status::NotFound("no section named '" + std::string(name) + "'");
}

std::string_view MappedFile::StoredBytes(size_t i) const {
  const SectionInfo& s = summary().sections[i];
  return state_->file.substr(s.offset, s.stored_length);
}

Result<std::string_view> MappedFile::Values(size_t i, std::string* storage) const {
  return DecodeSection(summary().sections[i], i, StoredBytes(i), storage);
}

Status MappedFile::Verify(VerifyLevel level, int threads) const {
  return VerifySections(state_->parsed, state_->file, level, threads);
}

}  // namespace vexfs::usxf
