#include "store/frame_encoding.h"

#include <cstdio>
#include <string>

namespace perfhive {

namespace {

struct Tag {
  FrameEncoding encoding;
  uint8_t letter;
};

constexpr Tag kTags[] = {
    {FrameEncoding::kWholeDelta, 'D'},
    {FrameEncoding::kSectioned, 'S'},
    {FrameEncoding::kColumns, 'C'},
};
// Each encoding is at version 1; a new version of one gets a tag of its own here.
constexpr uint8_t kVersion = 1;

std::string TagText(std::span<const uint8_t> frame) {
  std::string text;
  for (size_t i = 0; i < kFrameTagBytes && i < frame.size(); ++i) {
    char hex[4];
    std::snprintf(hex, sizeof hex, "%s%02x", i == 0 ? "" : " ", frame[i]);
    text += hex;
  }
  return text.empty() ? "nothing" : text;
}

}  // namespace

Result<FrameEncoding> FrameEncodingOf(std::span<const uint8_t> frame) {
  if (frame.size() >= kFrameTagBytes && frame[0] == 'P' && frame[1] == 'H' &&
      frame[3] == kVersion) {
    for (const Tag& tag : kTags) {
      if (frame[2] == tag.letter) return tag.encoding;
    }
  }
  return Status::DataLoss("a stored frame begins with " + TagText(frame) +
                          ", the tag of no encoding this version reads (docs/store_format.md)");
}

void AppendFrameTag(FrameEncoding encoding, std::vector<uint8_t>& out) {
  for (const Tag& tag : kTags) {
    if (tag.encoding == encoding) out.insert(out.end(), {'P', 'H', tag.letter, kVersion});
  }
}

}  // namespace perfhive
