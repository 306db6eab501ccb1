// Test doubles for the MS-RRP client: a pipe that records what the client writes and replays
// bytes a test wrote by hand, and builders for the PDUs a server sends, laid out field by field
// from C706/MS-RPCE so that the client's own encoder is not used to check itself.

#ifndef PERFHIVE_TESTS_SOURCES_MSRRP_TEST_PIPE_H_
#define PERFHIVE_TESTS_SOURCES_MSRRP_TEST_PIPE_H_

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <span>
#include <vector>

#include "base/status.h"
#include "sources/msrrp/pipe_transport.h"

namespace perfhive::testing {

class ScriptedPipe : public PipeTransport {
 public:
  Status Write(std::span<const uint8_t> bytes) override {
    written.insert(written.end(), bytes.begin(), bytes.end());
    ++writes;
    return Status();
  }
  Status ReadExactly(std::span<uint8_t> out) override {
    if (out.size() > replies.size()) return Status::Unavailable("the script ran out of bytes");
    for (uint8_t& b : out) {
      b = replies.front();
      replies.pop_front();
    }
    return Status();
  }
  void Queue(const std::vector<uint8_t>& bytes) {
    replies.insert(replies.end(), bytes.begin(), bytes.end());
  }

  std::vector<uint8_t> written;
  int writes = 0;
  std::deque<uint8_t> replies;
};

inline void Put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}
inline void Put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// The 16-byte common header with the fragment length filled in for `body_size` more bytes.
inline std::vector<uint8_t> PduHeader(uint8_t type, uint8_t flags, uint32_t call_id,
                                      size_t body_size) {
  std::vector<uint8_t> pdu = {5, 0, type, flags, 0x10, 0, 0, 0};
  Put16(pdu, static_cast<uint16_t>(16 + body_size));
  Put16(pdu, 0);
  Put32(pdu, call_id);
  return pdu;
}

// A response PDU (type 2) carrying `stub`.
inline std::vector<uint8_t> ResponsePdu(uint32_t call_id, uint8_t flags,
                                        const std::vector<uint8_t>& stub, uint32_t alloc_hint) {
  std::vector<uint8_t> pdu = PduHeader(2, flags, call_id, 8 + stub.size());
  Put32(pdu, alloc_hint);
  Put16(pdu, 0);  // context id
  pdu.push_back(0);
  pdu.push_back(0);
  pdu.insert(pdu.end(), stub.begin(), stub.end());
  return pdu;
}

// A bind_ack accepting the first context, with the fragment limits given and the secondary
// address "\PIPE\winreg" (13 bytes with its NUL, as Windows and Samba send it).
inline std::vector<uint8_t> BindAckPdu(uint32_t call_id, uint16_t max_transmit,
                                       uint16_t max_receive) {
  std::vector<uint8_t> body;
  Put16(body, max_transmit);
  Put16(body, max_receive);
  Put32(body, 0x1234);
  const char address[] = "\\PIPE\\winreg";
  Put16(body, sizeof address);
  body.insert(body.end(), address, address + sizeof address);
  while ((16 + body.size()) % 4 != 0) body.push_back(0);
  body.insert(body.end(), {1, 0, 0, 0});  // one result
  Put16(body, 0);                         // acceptance
  Put16(body, 0);
  // NDR 2.0: 8a885d04-1ceb-11c9-9fe8-08002b104860, little-endian fields.
  body.insert(body.end(), {0x04, 0x5d, 0x88, 0x8a, 0xeb, 0x1c, 0xc9, 0x11, 0x9f, 0xe8, 0x08, 0x00,
                           0x2b, 0x10, 0x48, 0x60});
  Put32(body, 2);
  std::vector<uint8_t> pdu = PduHeader(12, 3, call_id, body.size());
  pdu.insert(pdu.end(), body.begin(), body.end());
  return pdu;
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SOURCES_MSRRP_TEST_PIPE_H_
