#include "store/sectioned_frame.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "base/varint.h"
#include "codec/snapshot_delta.h"
#include "store/frame_encoding.h"

namespace perfhive {

namespace {

// Reads the table's numbers, each a LEB128 varint of at most 32 bits.
class TableReader {
 public:
  explicit TableReader(std::span<const uint8_t> frame, size_t at) : frame_(frame), at_(at) {}

  size_t at() const { return at_; }
  size_t left() const { return frame_.size() - at_; }

  Result<uint32_t> Varint(const char* what) {
    uint64_t value = 0;
    switch (GetVarint(frame_, at_, 32, value)) {
      case VarintRead::kOk:
        return static_cast<uint32_t>(value);
      case VarintRead::kTruncated:
        return Status::DataLoss("sectioned frame: the table ends inside " + std::string(what));
      case VarintRead::kTooLong:
        break;
    }
    return Status::DataLoss("sectioned frame: " + std::string(what) + " at byte " +
                            std::to_string(at_) + " is not a 32-bit number");
  }

  Result<uint8_t> Byte(const char* what) {
    if (at_ >= frame_.size()) {
      return Status::DataLoss("sectioned frame: the table ends inside " + std::string(what));
    }
    return frame_[at_++];
  }

 private:
  std::span<const uint8_t> frame_;
  size_t at_;
};

// The section of `base` that a section (the `index`th of `count`) is made against.
class BaseMatcher {
 public:
  explicit BaseMatcher(std::span<const SnapshotSection> base) : base_(base) {
    for (uint32_t i = 0; i < base.size(); ++i) {
      for (uint32_t object : base[i].objects) holding_.try_emplace(object, i);
    }
  }

  uint32_t Find(const SnapshotSection& section, size_t index, size_t count) const {
    if (base_.empty()) return kNoBaseSection;
    if (section.objects.empty()) {
      // The header, the tail, or a snapshot that is one section: the same place in the base.
      if (index == 0 && base_[0].objects.empty()) return 0;
      if (index + 1 == count && index > 0 && base_.size() > 1 && base_.back().objects.empty()) {
        return static_cast<uint32_t>(base_.size() - 1);
      }
      return kNoBaseSection;
    }
    auto it = holding_.find(section.objects[0]);
    return it == holding_.end() ? kNoBaseSection : it->second;
  }

 private:
  std::span<const SnapshotSection> base_;
  std::unordered_map<uint32_t, uint32_t> holding_;  // object → the first section holding it
};

std::span<const uint8_t> BytesOf(std::span<const uint8_t> raw, const SnapshotSection& section) {
  return raw.subspan(section.offset, section.size);
}

}  // namespace

std::vector<uint8_t> EncodeSectionedFrame(std::span<const uint8_t> raw,
                                          std::span<const SnapshotSection> sections,
                                          const SectionedBase* base, int level) {
  std::vector<uint8_t> out;
  AppendFrameTag(FrameEncoding::kSectioned, out);
  PutVarint64(out, static_cast<uint32_t>(sections.size()));
  std::vector<std::vector<uint8_t>> bodies;
  bodies.reserve(sections.size());
  BaseMatcher matcher(base != nullptr ? base->sections : std::span<const SnapshotSection>());
  for (size_t i = 0; i < sections.size(); ++i) {
    const SnapshotSection& section = sections[i];
    const std::span<const uint8_t> bytes = BytesOf(raw, section);
    uint32_t base_index = matcher.Find(section, i, sections.size());
    std::span<const uint8_t> base_bytes;
    if (base_index != kNoBaseSection) base_bytes = BytesOf(base->raw, base->sections[base_index]);
    SectionMethod method = SectionMethod::kSameAsBase;
    if (base_index == kNoBaseSection ||
        !std::equal(bytes.begin(), bytes.end(), base_bytes.begin(), base_bytes.end())) {
      DeltaBody body = EncodeDeltaBody(base_bytes, bytes, level);
      method = static_cast<SectionMethod>(body.method);
      // A section made alone names no base.
      if (body.method == DeltaMethod::kFull) base_index = kNoBaseSection;
      bodies.push_back(std::move(body.compressed));
    } else {
      bodies.emplace_back();
    }
    PutVarint64(out, section.size);
    out.push_back(static_cast<uint8_t>(method));
    PutVarint64(out, base_index == kNoBaseSection ? 0 : base_index + 1);
    PutVarint64(out, static_cast<uint32_t>(bodies.back().size()));
    PutVarint64(out, static_cast<uint32_t>(section.objects.size()));
    PutVarint64(out, static_cast<uint32_t>(section.parents.size()));
    for (uint32_t object : section.objects) PutVarint64(out, object);
    for (uint32_t parent : section.parents) PutVarint64(out, parent);
  }
  for (const std::vector<uint8_t>& body : bodies) out.insert(out.end(), body.begin(), body.end());
  return out;
}

Result<SectionedFrame> ParseSectionedFrame(std::span<const uint8_t> frame) {
  SectionedFrame table;
  if (Status s = ParseSectionedFrameInto(frame, table); !s.ok()) return s;
  return table;
}

Status ParseSectionedFrameInto(std::span<const uint8_t> frame, SectionedFrame& parsed) {
  if (Result<FrameEncoding> encoding = FrameEncodingOf(frame);
      !encoding.ok() || *encoding != FrameEncoding::kSectioned) {
    return Status::DataLoss("sectioned frame: its tag at byte 0 is not a sectioned frame's");
  }
  TableReader table(frame, kFrameTagBytes);
  Result<uint32_t> count = table.Varint("the section count");
  if (!count.ok()) return count.status();
  // Each entry takes at least six bytes.
  if (*count == 0 || *count > table.left() / 6) {
    return Status::DataLoss("sectioned frame: section count " + std::to_string(*count) +
                            " does not fit in " + std::to_string(frame.size()) + " bytes");
  }
  parsed.sections.resize(*count);
  parsed.methods.resize(*count);
  parsed.bases.resize(*count);
  parsed.bodies.resize(*count);
  std::vector<uint32_t> body_sizes(*count);
  uint64_t restored = 0;
  for (uint32_t i = 0; i < *count; ++i) {
    SnapshotSection& section = parsed.sections[i];
    // Named only in errors: building the text for every entry would cost more than parsing it.
    auto entry = [i, at = table.at()] {
      return "sectioned frame: section " + std::to_string(i) + " (table byte " +
             std::to_string(at) + ")";
    };
    Result<uint32_t> size = table.Varint("a section size");
    Result<uint8_t> method = size.ok() ? table.Byte("a method") : size.status();
    Result<uint32_t> base = method.ok() ? table.Varint("a base") : method.status();
    Result<uint32_t> body = base.ok() ? table.Varint("a body size") : base.status();
    Result<uint32_t> objects = body.ok() ? table.Varint("an object count") : body.status();
    Result<uint32_t> parents = objects.ok() ? table.Varint("a parent count") : objects.status();
    if (!parents.ok()) return parents.status().Prefixed("section " + std::to_string(i) + ": ");
    if (*method > static_cast<uint8_t>(SectionMethod::kSameAsBase)) {
      return Status::DataLoss(entry() + " has unknown method " + std::to_string(*method));
    }
    const bool needs_base = *method == static_cast<uint8_t>(SectionMethod::kDifference) ||
                            *method == static_cast<uint8_t>(SectionMethod::kPrefix) ||
                            *method == static_cast<uint8_t>(SectionMethod::kSameAsBase);
    if (*size == 0 || needs_base != (*base != 0) ||
        (*method == static_cast<uint8_t>(SectionMethod::kSameAsBase)) != (*body == 0)) {
      return Status::DataLoss(entry() + ": size " + std::to_string(*size) + ", method " +
                              std::to_string(*method) + ", base " + std::to_string(*base) +
                              ", body " + std::to_string(*body) + " bytes do not hold together");
    }
    if (uint64_t{*objects} + *parents > table.left()) {
      return Status::DataLoss(entry() + " lists " + std::to_string(uint64_t{*objects} + *parents) +
                              " title indexes, more than the frame holds");
    }
    section.offset = static_cast<uint32_t>(restored);
    section.size = *size;
    parsed.methods[i] = static_cast<SectionMethod>(*method);
    parsed.bases[i] = *base == 0 ? kNoBaseSection : *base - 1;
    body_sizes[i] = *body;
    section.objects.resize(*objects);
    section.parents.resize(*parents);
    for (uint32_t& object : section.objects) {
      Result<uint32_t> index = table.Varint("an object index");
      if (!index.ok()) return index.status();
      object = *index;
    }
    for (uint32_t& parent : section.parents) {
      Result<uint32_t> index = table.Varint("a parent index");
      if (!index.ok()) return index.status();
      parent = *index;
    }
    restored += section.size;
    if (restored > kMaxSnapshotBytes) {
      return Status::DataLoss(entry() + ": the sections restore to more than " +
                              std::to_string(kMaxSnapshotBytes) + " bytes");
    }
  }
  size_t at = table.at();
  for (uint32_t i = 0; i < *count; ++i) {
    const size_t body_size = body_sizes[i];
    if (body_size > frame.size() - at) {
      return Status::DataLoss("sectioned frame: section " + std::to_string(i) + "'s " +
                              std::to_string(body_size) + "-byte body at byte " +
                              std::to_string(at) + " runs past the end");
    }
    parsed.bodies[i] = frame.subspan(at, body_size);
    at += body_size;
  }
  if (at != frame.size()) {
    return Status::DataLoss("sectioned frame: " + std::to_string(frame.size() - at) +
                            " bytes after the last section");
  }
  return Status();
}

Status DecodeSectionInto(const SectionedFrame& frame, size_t index, std::span<const uint8_t> base,
                         std::span<uint8_t> out) {
  if (out.size() != frame.sections[index].size) {
    return Status::Internal("a section of " + std::to_string(frame.sections[index].size) +
                            " bytes decoded into " + std::to_string(out.size()));
  }
  if (frame.methods[index] == SectionMethod::kSameAsBase) {
    if (base.size() != out.size()) {
      return Status::DataLoss("a section of " + std::to_string(out.size()) +
                              " bytes the same as a base of " + std::to_string(base.size()));
    }
    std::copy(base.begin(), base.end(), out.begin());
    return Status();
  }
  Status decoded = DecodeDeltaBodyInto(static_cast<DeltaMethod>(frame.methods[index]), base,
                                       frame.bodies[index], out);
  if (!decoded.ok()) return Status::DataLoss(decoded.message());
  return Status();
}

Result<std::vector<uint8_t>> DecodeSection(const SectionedFrame& frame, size_t index,
                                           std::span<const uint8_t> base) {
  std::vector<uint8_t> bytes(frame.sections[index].size);
  if (Status s = DecodeSectionInto(frame, index, base, bytes); !s.ok()) return s;
  return bytes;
}

}  // namespace perfhive
