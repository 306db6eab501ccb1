// The Ingest service over a real gRPC server on loopback and a real store: what it stores, what
// it acknowledges and when, and what it refuses while the stream goes on.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/server/server_fixture.h"

namespace perfhive::testing {
namespace {

namespace v1 = perfhive::v1;
using ::testing::HasSubstr;

// Reads the Welcome that answers a Hello.
v1::Welcome ReadWelcome(IngestClient& client) {
  v1::ServerMessage reply;
  EXPECT_TRUE(client.Receive(&reply));
  EXPECT_TRUE(reply.has_welcome()) << reply.DebugString();
  return reply.welcome();
}

v1::ServerMessage ReadReply(IngestClient& client) {
  v1::ServerMessage reply;
  EXPECT_TRUE(client.Receive(&reply));
  return reply;
}

TEST(IngestSessionTest, StoresKeyframesAndDeltasBitIdenticalAndAcknowledgesEach) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  v1::Welcome welcome = ReadWelcome(client);
  ASSERT_EQ(welcome.needed_titles_size(), 1);
  EXPECT_EQ(welcome.needed_titles(0), AsString(DigestOf(titles)));
  EXPECT_EQ(welcome.durable_sequence(), 0u);
  ASSERT_TRUE(client.Titles(titles));

  std::vector<std::vector<uint8_t>> sent;
  for (int i = 0; i < 5; ++i) sent.push_back(SmallSnapshot(i, /*seed=*/i));
  for (int i = 0; i < 5; ++i) {
    const std::vector<uint8_t>* base = i == 0 ? nullptr : &sent[i - 1];
    ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", i + 1, sent[i], &titles, base,
                                                          static_cast<uint64_t>(i))));
  }
  for (int i = 0; i < 5; ++i) {
    v1::ServerMessage reply = ReadReply(client);
    ASSERT_TRUE(reply.has_ack()) << reply.DebugString();
    EXPECT_EQ(reply.ack().sequence(), static_cast<uint64_t>(i + 1));
    EXPECT_FALSE(reply.ack().duplicate());
  }
  EXPECT_TRUE(client.Finish().ok());

  Result<std::vector<SnapshotInfo>> stored = server.store().ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(stored.ok()) << stored.error();
  ASSERT_EQ(stored->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ((*stored)[i].sample_time_ns, SampleNs(i));
    Result<std::vector<uint8_t>> raw = server.store().ReadSnapshot((*stored)[i].id);
    ASSERT_TRUE(raw.ok()) << raw.error();
    EXPECT_EQ(*raw, sent[i]) << "snapshot " << i;
  }
  Result<std::optional<TitleDatabaseRecord>> in_force =
      server.store().TitlesInForce("web01", "009", SampleNs(3));
  ASSERT_TRUE(in_force.ok() && in_force->has_value());
  EXPECT_EQ((*in_force)->counters, titles.counters);
}

TEST(IngestSessionTest, AResendIsAcknowledgedAsDuplicateAndStoredOnce) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  std::vector<uint8_t> raw = SmallSnapshot(1);
  for (int attempt = 0; attempt < 2; ++attempt) {
    IngestClient client(server.address());
    ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
    v1::Welcome welcome = ReadWelcome(client);
    // The second stream learns where to resume and that the titles are held already.
    EXPECT_EQ(welcome.durable_sequence(), attempt == 0 ? 0u : 1u);
    EXPECT_EQ(welcome.needed_titles_size(), attempt == 0 ? 1 : 0);
    if (attempt == 0) {
      ASSERT_TRUE(client.Titles(titles));
    }
    ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 1, raw, &titles)));
    v1::ServerMessage reply = ReadReply(client);
    ASSERT_TRUE(reply.has_ack()) << reply.DebugString();
    EXPECT_EQ(reply.ack().duplicate(), attempt == 1);
    EXPECT_TRUE(client.Finish().ok());
  }
  EXPECT_EQ(server.store().ListSnapshots("web01", 0, INT64_MAX)->size(), 1u);
}

TEST(IngestSessionTest, MalformedSnapshotsAreRefusedAndTheStreamGoesOn) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  ReadWelcome(client);
  ASSERT_TRUE(client.Titles(titles));

  std::vector<uint8_t> good = SmallSnapshot(1);
  std::vector<uint8_t> bad = good;
  bad[0] = 'X';  // the signature is no longer "PERF" in UTF-16
  std::vector<uint8_t> later = SmallSnapshot(2);
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 1, good, &titles)));
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 2, bad, &titles)));
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 3, later, &titles)));

  std::map<uint64_t, v1::ServerMessage> replies;
  for (int i = 0; i < 3; ++i) {
    v1::ServerMessage reply = ReadReply(client);
    uint64_t sequence = reply.has_ack() ? reply.ack().sequence() : reply.refusal().sequence();
    replies[sequence] = reply;
  }
  EXPECT_TRUE(replies[1].has_ack());
  ASSERT_TRUE(replies[2].has_refusal());
  EXPECT_EQ(replies[2].refusal().code(), "INVALID_ARGUMENT");
  EXPECT_THAT(replies[2].refusal().message(), HasSubstr("Signature"));
  EXPECT_TRUE(replies[3].has_ack());
  EXPECT_TRUE(client.Finish().ok());
  EXPECT_EQ(server.store().ListSnapshots("web01", 0, INT64_MAX)->size(), 2u);
  EXPECT_EQ(server.ingest().counters().snapshots_refused.load(), 1u);
  EXPECT_EQ(server.store().FindHost("web01").value()->refusals, 1);
}

TEST(IngestSessionTest, RefusesOversizedCorruptAndUnanchoredSnapshotsByName) {
  TestServer server(TokenTable::AllowAll(), IngestLimits{.max_snapshot_bytes = 4096});
  TitleBytes titles = SmallTitles();
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  ReadWelcome(client);

  std::vector<uint8_t> big = SmallSnapshot(1, 0, /*processes=*/200);
  ASSERT_GT(big.size(), 4096u);
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 1, big, &titles)));
  v1::ServerMessage reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal());
  EXPECT_EQ(reply.refusal().code(), "RESOURCE_EXHAUSTED");
  EXPECT_THAT(reply.refusal().message(), HasSubstr("over the server's limit of 4096 bytes"));

  std::vector<uint8_t> small = SmallSnapshot(2);
  // The titles were never sent: the snapshot cannot be named, so it is refused.
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 2, small, &titles)));
  reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal());
  EXPECT_EQ(reply.refusal().code(), "FAILED_PRECONDITION");
  EXPECT_THAT(reply.refusal().message(), HasSubstr("unknown to the server"));
  ASSERT_TRUE(client.Titles(titles));

  v1::AgentMessage corrupt = IngestClient::SnapshotMessage("run-1", 3, small, &titles);
  corrupt.mutable_snapshot()->mutable_sha256()->at(0) ^= 1;
  ASSERT_TRUE(client.Send(corrupt));
  reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal());
  EXPECT_EQ(reply.refusal().code(), "DATA_LOSS");

  // A delta against a base this stream never carried.
  std::vector<uint8_t> other = SmallSnapshot(3);
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 4, other, &titles, &small, 99)));
  reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal());
  EXPECT_EQ(reply.refusal().code(), "FAILED_PRECONDITION");
  EXPECT_THAT(reply.refusal().message(), HasSubstr("send a keyframe"));

  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 5, small, &titles)));
  reply = ReadReply(client);
  EXPECT_TRUE(reply.has_ack()) << reply.DebugString();
  EXPECT_TRUE(client.Finish().ok());
}

TokenTable TwoTokens() {
  return TokenTable::Parse(R"(
[[token]]
name = "web agents"
secret = "web-agents-secret-0123456789"
write = ["web*"]

[[token]]
name = "reader"
secret = "reader-secret-0123456789"
read = true
)",
                           "tokens.toml")
      .value();
}

TEST(IngestSessionTest, AnUnknownTokenIsUnauthenticated) {
  TestServer server(TwoTokens());
  IngestClient client(server.address(), "not-a-token-at-all-0000");
  client.Hello("web01", "run-1");
  grpc::Status status = client.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(), "unknown token");
}

TEST(IngestSessionTest, ATokenMayWriteOnlyAsItsHosts) {
  TestServer server(TwoTokens());
  {
    IngestClient client(server.address(), "web-agents-secret-0123456789");
    ASSERT_TRUE(client.Hello("WEB07", "run-1"));
    ReadWelcome(client);
    EXPECT_TRUE(client.Finish().ok());
  }
  IngestClient client(server.address(), "web-agents-secret-0123456789");
  client.Hello("db01", "run-1");
  grpc::Status status = client.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(status.error_message(), "token \"web agents\" may not send snapshots as host \"db01\"");
  EXPECT_FALSE(server.store().FindHost("db01").value().has_value());
}

TEST(IngestSessionTest, ASnapshotBeforeHelloEndsTheStream) {
  TestServer server;
  IngestClient client(server.address());
  TitleBytes titles = SmallTitles();
  client.Send(IngestClient::SnapshotMessage("run-1", 1, SmallSnapshot(1), &titles));
  grpc::Status status = client.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message(), "a snapshot before Hello");
}

}  // namespace
}  // namespace perfhive::testing
