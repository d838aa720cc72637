// MappedFile: a USXF file mapped read-only; sections are handed out in place.
#include "usxf/layout.h"
#include "usxf/mapping.h"
#include "usxf/section_codec.h"
#include "vexfs/usxf.h"

namespace vexfs::usxf {

struct MappedFile::State {
  std::unique_ptr<Mapping> mapping;  // null for FromBytes
  std::string_view file;
  ParsedFile parsed;
};

MappedFile::MappedFile(std::unique_ptr<State> state) : state_(std::move(state)) {}
MappedFile::~MappedFile() = default;

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  auto state = std::make_unique<State>();
  VEXFS_ASSIGN_OR_RETURN(state->mapping, Mapping::Open(path));
  state->file = state->mapping->bytes();
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
