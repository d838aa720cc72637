// Turning a section's logical values into its stored bytes (quantise, compress)
// and back.
#ifndef VEXFS_USXF_SECTION_CODEC_H_
#define VEXFS_USXF_SECTION_CODEC_H_

#include <string>

#include "vexfs/usxf.h"

namespace vexfs::usxf {

// Fills info->raw_length and info->stored_length; `stored` gets the bytes unless
// the section is stored as given (then `stored` is empty and values go as they are).
Status EncodeSection(const SectionData& data, SectionInfo* info, std::string* stored);

// The logical values of a section from its stored bytes (see MappedFile::Values).
Result<std::string_view> DecodeSection(const SectionInfo& info, size_t index,
                                       std::string_view stored, std::string* storage);

}  // namespace vexfs::usxf

#endif  // VEXFS_USXF_SECTION_CODEC_H_
