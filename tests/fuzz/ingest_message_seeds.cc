// Seeds for ingest_message_fuzzer: a keyframe, a delta against the stream's base, a raw
// snapshot, a Hello and a title database, each as AgentMessage bytes.

#include "tests/fuzz/ingest_message_base.h"
#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  auto write = [&](const std::string& name, const perfhive::v1::AgentMessage& message) {
    std::string bytes = message.SerializeAsString();
    corpus.Write(name, std::vector<uint8_t>(bytes.begin(), bytes.end()));
  };
  std::vector<uint8_t> base = perfhive::testing::FuzzSnapshot(1);
  std::vector<uint8_t> next = perfhive::testing::FuzzSnapshot(2);
  perfhive::v1::AgentMessage message;
  *message.mutable_snapshot() = perfhive::testing::SnapshotMessage(next, 2, &base);
  write("delta", message);
  *message.mutable_snapshot() = perfhive::testing::SnapshotMessage(next, 2, nullptr);
  write("keyframe", message);
  message.mutable_snapshot()->set_encoding(perfhive::v1::ENCODING_RAW);
  message.mutable_snapshot()->set_payload(std::string(next.begin(), next.end()));
  write("raw", message);
  perfhive::v1::AgentMessage hello;
  hello.mutable_hello()->set_host_name("fuzz");
  hello.mutable_hello()->set_instance_id("fuzz");
  write("hello", hello);
  return 0;
}
