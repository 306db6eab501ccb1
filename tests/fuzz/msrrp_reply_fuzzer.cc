// The MS-RRP client's reply parsers on arbitrary bytes: what a hostile or broken server can
// send. The first byte picks the parser; the rest is the reply. Every path must return a value
// or an error, never read out of bounds, hang or allocate without limit.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "sources/msrrp/dcerpc_client.h"
#include "sources/msrrp/dcerpc_pdu.h"
#include "sources/msrrp/winreg_calls.h"
#include "tests/sources/msrrp_test_pipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace perfhive;
  if (size == 0) return 0;
  std::span<const uint8_t> reply(data + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      (void)dcerpc::ParseBindAnswer(reply);
      break;
    case 1:
      (void)dcerpc::ParseResponse(reply);
      break;
    case 2:
      (void)winreg::ParseQueryValueReply(reply, 1 << 20);
      break;
    case 3:
      (void)winreg::ParseHandleReply(reply, "OpenPerformanceData");
      break;
    case 4: {
      // A whole exchange: bind, then a call whose response fragments are the input.
      testing::ScriptedPipe pipe;
      pipe.Queue(testing::BindAckPdu(1, 4280, 4280));
      pipe.Queue(std::vector<uint8_t>(reply.begin(), reply.end()));
      DcerpcClient client(pipe, {.max_response_bytes = 1 << 20});
      if (client.Bind().ok()) (void)client.Call(17, {}, "BaseRegQueryValue");
      break;
    }
    case 5: {
      // A key's name never carries the NULs that end it on the wire.
      Result<winreg::EnumKeyReply> enumerated = winreg::ParseEnumKeyReply(reply);
      if (enumerated.ok() && enumerated->name.find('\0') != std::string::npos) std::abort();
      break;
    }
  }
  return 0;
}
