// Feeds arbitrary bytes to the spool's file decoders: what an agent reads back from its spool
// folder after a crash, a full disk or a hand that edited it. The bytes are decoded as they are,
// and again with a valid SHA-256 trailer appended, so the fields behind the checksum are
// reached. Whatever decodes must encode back to what decodes to the same record.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "agent/spool_format.h"
#include "port/sha256.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  (void)perfhive::DecodeSpoolRecord(bytes);
  std::vector<uint8_t> sealed(bytes.begin(), bytes.end());
  perfhive::Sha256Digest digest = perfhive::Sha256(bytes);
  sealed.insert(sealed.end(), digest.begin(), digest.end());
  perfhive::Result<perfhive::SnapshotRecord> record = perfhive::DecodeSpoolRecord(sealed);
  if (record.ok()) {
    perfhive::Result<perfhive::SnapshotRecord> again =
        perfhive::DecodeSpoolRecord(perfhive::EncodeSpoolRecord(*record));
    if (!again.ok() || !(*again == *record)) std::abort();
  }
  perfhive::Result<perfhive::TitleBytes> titles = perfhive::DecodeSpoolTitles(bytes);
  if (titles.ok()) {
    perfhive::Result<perfhive::TitleBytes> again =
        perfhive::DecodeSpoolTitles(perfhive::EncodeSpoolTitles(*titles));
    if (!again.ok() || !(*again == *titles)) std::abort();
  }
  return 0;
}
