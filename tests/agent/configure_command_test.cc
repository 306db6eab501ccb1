#include "agent/configure_command.h"

#include <gtest/gtest.h>

#ifndef _WIN32
#include <sys/stat.h>
#endif

#include <algorithm>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "tests/agent/agent_test_util.h"

namespace perfhive {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;

constexpr char kPem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

class ConfigureTest : public ::testing::Test {
 protected:
  std::string Text(const std::string& path) {
    Result<std::vector<uint8_t>> bytes = env_.ReadFile(path);
    EXPECT_TRUE(bytes.ok()) << bytes.error();
    return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
  }
  AgentConfig Load(const std::string& path) {
    AgentConfig config;
    Status status = LoadConfigFile(env_, path, config);
    EXPECT_TRUE(status.ok()) << status.message();
    return config;
  }
  std::vector<std::string> Names(const std::string& dir) {
    std::vector<std::string> names = *env_.ListDirectory(dir);
    std::sort(names.begin(), names.end());
    return names;
  }

  // Options naming this test's file and nothing else; each test sets what it gives.
  ConfigureOptions Given() {
    ConfigureOptions options;
    options.file = file_;
    return options;
  }
  // Configure given `set` on top of Given().
  template <typename Set>
  Result<ConfigureOutcome> Run(Set set) {
    ConfigureOptions options = Given();
    set(options);
    return Configure(env_, options);
  }

  Env& env_ = Env::Default();
  TempDir dir_;
  std::string file_ = dir_ / "perfhive/agent.toml";
};

// Proves: the first run makes the folder, agent.toml with every setting given (read back by the
// agent's own parser), and the token file agent.toml names, holding the token; nothing else is
// left in the folder.
TEST_F(ConfigureTest, CreatesTheFolderTheSettingsAndTheTokenFile) {
  Result<ConfigureOutcome> outcome = Run([](ConfigureOptions& o) {
    o.server = "collector.example:7443";
    o.token = "s3cr3t-token";
    o.host_name = "WEB01";
    o.queries = "Global@10s;Processor,Memory@1m;Costly";
    o.interval = "30s";
    o.targets = "\\\\web02;\\\\10.0.0.7:445=DB01";
  });
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_TRUE(outcome->changed);
  EXPECT_EQ(outcome->changes, (std::vector<std::string>{"server", "token", "host_name", "query",
                                                        "interval", "target"}));

  AgentConfig config = Load(file_);
  EXPECT_EQ(config.server, "collector.example:7443");
  EXPECT_EQ(config.host_name, "WEB01");
  EXPECT_EQ(config.interval, milliseconds(30000));
  EXPECT_EQ(config.queries, (std::vector<QuerySchedule>{*ParseQueryFlag("Global@10s"),
                                                        *ParseQueryFlag("Processor,Memory@1m"),
                                                        *ParseQueryFlag("Costly")}));
  ASSERT_EQ(config.targets.size(), 2u);
  EXPECT_EQ(config.targets[0].address, "\\\\web02");
  EXPECT_EQ(config.targets[1].Name(), "DB01");
  EXPECT_EQ(config.token_file, dir_ / "perfhive/agent.token");
  EXPECT_EQ(Text(config.token_file), "s3cr3t-token\n");
  EXPECT_EQ(Text(file_).find("s3cr3t"), std::string::npos);
  EXPECT_EQ(Names(dir_ / "perfhive"), (std::vector<std::string>{"agent.token", "agent.toml"}));
#ifndef _WIN32
  struct stat info;
  ASSERT_EQ(::stat(config.token_file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
#endif
}

// Proves: a second run changes only what it is given; an empty value is not given (the MSI passes
// every property), and a run given nothing leaves the file byte for byte as it was, comments
// and all.
TEST_F(ConfigureTest, ChangesOnlyTheSettingsGivenAndNothingWhenGivenNothing) {
  ASSERT_TRUE(env_.CreateDirectories(dir_ / "perfhive").ok());
  const std::string before =
      "# kept while nothing is given\nserver = \"old:7443\"\nhost_name = \"WEB01\"\n"
      "spool_max_bytes = 4096\n";
  ASSERT_TRUE(
      env_.WriteFileAtomically(file_, std::vector<uint8_t>(before.begin(), before.end())).ok());

  Result<ConfigureOutcome> nothing = Configure(env_, Given());
  ASSERT_TRUE(nothing.ok()) << nothing.error();
  EXPECT_FALSE(nothing->changed);
  EXPECT_EQ(Text(file_), before);

  Result<ConfigureOutcome> server = Run([](ConfigureOptions& o) {
    o.server = "new:7443";
    o.host_name = "";
  });
  ASSERT_TRUE(server.ok()) << server.error();
  EXPECT_TRUE(server->changed);
  AgentConfig config = Load(file_);
  EXPECT_EQ(config.server, "new:7443");
  EXPECT_EQ(config.host_name, "WEB01");
  EXPECT_EQ(config.spool_max_bytes, 4096u);

  Result<ConfigureOutcome> again = Run([](ConfigureOptions& o) { o.server = "new:7443"; });
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_FALSE(again->changed);
}

// Proves: LABELS (role=web;site=ams) becomes agent.toml's labels table, which the agent reads
// back, and a second run replaces the table rather than adding to it.
TEST_F(ConfigureTest, LabelsReplaceTheLabelsTable) {
  Result<ConfigureOutcome> first = Run([](ConfigureOptions& o) {
    o.server = "a:1";
    o.labels = "role=web;site=ams;";
  });
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_NE(Text(file_).find("labels = { role = 'web', site = 'ams' }"), std::string::npos)
      << Text(file_);
  EXPECT_EQ(Load(file_).labels, (query::HostLabels{{"role", "web"}, {"site", "ams"}}));
  Result<ConfigureOutcome> second = Run([](ConfigureOptions& o) { o.labels = "env=prod"; });
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(Load(file_).labels, (query::HostLabels{{"env", "prod"}}));
  EXPECT_EQ(Load(file_).server, "a:1");
}

// Proves: a new token goes to the file agent.toml already names, wherever it is.
TEST_F(ConfigureTest, ANewTokenGoesWhereTokenFileSays) {
  ASSERT_TRUE(env_.CreateDirectories(dir_ / "perfhive").ok());
  std::string token_file = dir_ / "elsewhere.token";
  std::string text = "server = \"a:1\"\ntoken_file = '" + token_file + "'\n";
  ASSERT_TRUE(env_.WriteFileAtomically(file_, std::vector<uint8_t>(text.begin(), text.end())).ok());
  Result<ConfigureOutcome> outcome = Run([](ConfigureOptions& o) { o.token = "second"; });
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_EQ(Load(file_).token_file, token_file);
  EXPECT_EQ(Text(token_file), "second\n");
  EXPECT_EQ(Names(dir_ / "perfhive"), std::vector<std::string>{"agent.toml"});
}

// Proves: the CA is copied beside agent.toml, which names the copy; a file without a PEM
// certificate is refused.
TEST_F(ConfigureTest, TheCaIsCopiedBesideTheSettings) {
  std::string source = dir_ / "share-ca.pem";
  ASSERT_TRUE(
      env_.WriteFileAtomically(source, std::vector<uint8_t>(kPem, kPem + sizeof kPem - 1)).ok());
  Result<ConfigureOutcome> outcome = Run([&](ConfigureOptions& o) {
    o.server = "a:1";
    o.ca_file = source;
  });
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_EQ(Load(file_).ca_file, dir_ / "perfhive/ca.pem");
  EXPECT_EQ(Text(dir_ / "perfhive/ca.pem"), kPem);

  std::string not_pem = dir_ / "not.pem";
  ASSERT_TRUE(env_.WriteFileAtomically(not_pem, std::vector<uint8_t>{'x'}).ok());
  Result<ConfigureOutcome> refused = Run([&](ConfigureOptions& o) { o.ca_file = not_pem; });
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("holds no PEM certificate"), std::string::npos) << refused.error();
}

// Proves: the server's CA is given one way: a fingerprint replaces a CA file (and the other way
// round), is kept as perfhive prints it whatever form it was given in, and both at once, or a
// malformed fingerprint, are refused writing nothing.
TEST_F(ConfigureTest, ACaFingerprintReplacesACaFileAndTheOtherWayRound) {
  std::string source = dir_ / "share-ca.pem";
  ASSERT_TRUE(
      env_.WriteFileAtomically(source, std::vector<uint8_t>(kPem, kPem + sizeof kPem - 1)).ok());
  ASSERT_TRUE(Run([&](ConfigureOptions& o) {
                o.server = "a:1";
                o.ca_file = source;
              }).ok());
  const std::string copied =
      "0C:4E:9B:0B:49:B5:A9:E6:68:DA:9D:86:35:6C:AA:78:4F:83:50:CA:CD:D1:03:3F:85:48:C8:3F:EF:A9:"
      "21:C6";
  const std::string printed =
      "sha256:0c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6";
  Result<ConfigureOutcome> pinned = Run([&](ConfigureOptions& o) { o.ca_sha256 = copied; });
  ASSERT_TRUE(pinned.ok()) << pinned.error();
  AgentConfig config = Load(file_);
  EXPECT_EQ(config.ca_sha256, printed);
  EXPECT_EQ(config.ca_file, "");
  EXPECT_EQ(config.server, "a:1");

  ASSERT_TRUE(Run([&](ConfigureOptions& o) { o.ca_file = source; }).ok());
  config = Load(file_);
  EXPECT_EQ(config.ca_file, dir_ / "perfhive/ca.pem");
  EXPECT_EQ(config.ca_sha256, "");

  std::string before = Text(file_);
  Result<ConfigureOutcome> both = Run([&](ConfigureOptions& o) {
    o.ca_file = source;
    o.ca_sha256 = printed;
  });
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().find("not both"), std::string::npos) << both.error();
  Result<ConfigureOutcome> malformed =
      Run([&](ConfigureOptions& o) { o.ca_sha256 = "sha256:abc"; });
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.error().find("is not a SHA-256 fingerprint"), std::string::npos);
  EXPECT_EQ(Text(file_), before);
}

// Proves: an enrollment token goes to a file of its own beside the settings, readable as the
// token is, which enroll_file names; never into agent.toml.
TEST_F(ConfigureTest, AnEnrollmentTokenGoesToItsOwnSecretFile) {
  const std::string token = "phe1_0123abcd_00112233445566778899aabbccddeeff";
  Result<ConfigureOutcome> outcome = Run([&](ConfigureOptions& o) {
    o.server = "central.example:7470";
    o.ca_sha256 = "sha256:0c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6";
    o.enroll_token = token;
  });
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  AgentConfig config = Load(file_);
  EXPECT_EQ(config.enroll_file, dir_ / "perfhive/enroll.token");
  EXPECT_EQ(config.enroll_token, "");
  EXPECT_EQ(Text(config.enroll_file), token + "\n");
  EXPECT_EQ(Text(file_).find(token), std::string::npos);
#ifndef _WIN32
  struct stat info;
  ASSERT_EQ(stat(config.enroll_file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
#endif
  Result<ConfigureOutcome> spaced = Run([&](ConfigureOptions& o) { o.enroll_token = "a b"; });
  EXPECT_FALSE(spaced.ok());
}

// Proves: plain text is allowed to a server on this host only, and not beside TLS settings; a
// refusal writes nothing.
TEST_F(ConfigureTest, PlainTextIsOnlyForAServerOnThisHost) {
  for (const char* server : {"perfhive.example:7400", "10.0.0.1:7400", "[2001:db8::1]:7400"}) {
    Result<ConfigureOutcome> refused = Run([&](ConfigureOptions& o) {
      o.server = server;
      o.insecure = "1";
    });
    ASSERT_FALSE(refused.ok()) << server;
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.error().find("only for a server on this host"), std::string::npos)
        << refused.error();
    EXPECT_EQ(env_.ReadFile(file_).status().code(), StatusCode::kNotFound) << server;
  }
  for (const char* server : {"127.0.0.1:7400", "localhost:7400", "[::1]:7400"}) {
    Result<ConfigureOutcome> allowed = Run([&](ConfigureOptions& o) {
      o.server = server;
      o.insecure = "1";
    });
    ASSERT_TRUE(allowed.ok()) << server << ": " << allowed.error();
    EXPECT_TRUE(Load(file_).insecure);
  }
  std::string source = dir_ / "ca.source.pem";
  ASSERT_TRUE(
      env_.WriteFileAtomically(source, std::vector<uint8_t>(kPem, kPem + sizeof kPem - 1)).ok());
  Result<ConfigureOutcome> with_ca = Run([&](ConfigureOptions& o) { o.ca_file = source; });
  ASSERT_FALSE(with_ca.ok());
  EXPECT_NE(with_ca.error().find("cannot go with ca"), std::string::npos) << with_ca.error();
  Result<ConfigureOutcome> tls = Run([&](ConfigureOptions& o) {
    o.ca_file = source;
    o.insecure = "0";
  });
  ASSERT_TRUE(tls.ok()) << tls.error();
  EXPECT_FALSE(Load(file_).insecure);
}

// Proves: each malformed setting is refused saying which, and nothing is written.
TEST_F(ConfigureTest, RefusesMalformedSettingsWritingNothing) {
  struct Case {
    void (*set)(ConfigureOptions&);
    std::string message;
  };
  const Case cases[] = {
      {[](ConfigureOptions& o) { o.interval = "10 seconds"; }, "interval: "},
      {[](ConfigureOptions& o) { o.queries = ";;"; }, "expected queries separated by ';'"},
      {[](ConfigureOptions& o) { o.queries = "Global@soon"; }, "queries: query Global@soon"},
      {[](ConfigureOptions& o) { o.targets = "\\\\web01=a/b"; }, "is not a host name"},
      {[](ConfigureOptions& o) { o.host_name = "web 01"; }, "host name: "},
      {[](ConfigureOptions& o) { o.insecure = "yes please"; }, "expected 1 or 0"},
      {[](ConfigureOptions& o) { o.source = "wmi"; }, "expected procfs, hkpd or replay"},
      {[](ConfigureOptions& o) { o.token = "two words"; }, "printable ASCII without spaces"},
      // What `--replay "C:\dir\" --source replay` on a command line makes of the value.
      {[](ConfigureOptions& o) { o.replay_dir = "C:\\dir\" --source replay"; },
       "replay holds a double quote"},
      {[](ConfigureOptions& o) { o.server = ""; }, "names no server"},
      {[](ConfigureOptions& o) { o.labels = "role=web;role"; },
       "labels: label \"role\" is not KEY=VALUE"},
      {[](ConfigureOptions& o) { o.labels = ";"; }, "expected labels separated by ';'"},
  };
  for (const Case& c : cases) {
    Result<ConfigureOutcome> outcome = Run([&](ConfigureOptions& o) {
      o.server = "a:1";
      c.set(o);
    });
    ASSERT_FALSE(outcome.ok()) << c.message;
    EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument) << outcome.error();
    EXPECT_NE(outcome.error().find(c.message), std::string::npos) << outcome.error();
    EXPECT_EQ(env_.ReadFile(file_).status().code(), StatusCode::kNotFound) << c.message;
  }
}

// Proves: a file the agent would not read is refused, not overwritten.
TEST_F(ConfigureTest, RefusesToMergeIntoAFileTheAgentWouldNotRead) {
  ASSERT_TRUE(env_.CreateDirectories(dir_ / "perfhive").ok());
  const std::string broken = "server = \"a:1\"\nservr = \"typo:1\"\n";
  ASSERT_TRUE(
      env_.WriteFileAtomically(file_, std::vector<uint8_t>(broken.begin(), broken.end())).ok());
  Result<ConfigureOutcome> outcome = Run([](ConfigureOptions& o) { o.server = "b:1"; });
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error(), file_ + ":2: unknown setting \"servr\"");
  EXPECT_EQ(Text(file_), broken);
}

}  // namespace
}  // namespace perfhive
