// DcerpcClient: one bound DCE/RPC association over a PipeTransport. Bind negotiates the
// fragment sizes; Call sends a request stub in as many fragments as the server accepts and
// reassembles the response stub from its fragments, checking call ids, packet types, the
// first/last flags and a ceiling on the total size, so a hostile server can make a call fail
// but never make the client read out of bounds or allocate without limit.

#ifndef PERFHIVE_SOURCES_MSRRP_DCERPC_CLIENT_H_
#define PERFHIVE_SOURCES_MSRRP_DCERPC_CLIENT_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sources/msrrp/dcerpc_pdu.h"
#include "sources/msrrp/pipe_transport.h"

namespace perfhive {

struct DcerpcClientOptions {
  // What the client proposes; the server may lower both. 4280 is what Windows uses on named
  // pipes.
  uint16_t max_transmit_fragment = 4280;
  uint16_t max_receive_fragment = 4280;
  // The largest reassembled response stub accepted: a winreg value is at most 64 MiB
  // (MS-RRP's range on lpData), plus the reply's other fields.
  size_t max_response_bytes = 0x4000000 + 4096;
};

class DcerpcClient {
 public:
  explicit DcerpcClient(PipeTransport& transport, DcerpcClientOptions options = {});

  // Binds the winreg interface with NDR.
  Status Bind();

  // One call: the reassembled response stub. `name` ("BaseRegQueryValue") prefixes errors.
  Result<std::vector<uint8_t>> Call(uint16_t opnum, std::span<const uint8_t> stub,
                                    std::string_view name);

  // What the bind settled on (valid after Bind).
  uint16_t transmit_fragment() const { return transmit_fragment_; }
  uint16_t receive_fragment() const { return receive_fragment_; }

 private:
  // One whole PDU: its header first, then exactly the rest.
  Result<std::vector<uint8_t>> ReadPdu();

  PipeTransport& transport_;
  DcerpcClientOptions options_;
  uint32_t next_call_id_ = 1;
  uint16_t transmit_fragment_ = 0;
  uint16_t receive_fragment_ = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_MSRRP_DCERPC_CLIENT_H_
