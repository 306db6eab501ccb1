#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "sources/msrrp/remote_target.h"
#include "sources/msrrp/smb_credentials.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SmbCredentials, ReadsSmbclientsAuthenticationFileFormat) {
  Result<SmbCredentials> parsed = ParseCredentialsText(
      "# poller account\nusername = perf reader\r\npassword =  s3cr=t \n\ndomain = CORP\n", "f");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->user, "perf reader");
  EXPECT_EQ(parsed->password, "s3cr=t");
  EXPECT_EQ(parsed->domain, "CORP");
}

TEST(SmbCredentials, DomainMayComeWithTheUserName) {
  Result<SmbCredentials> parsed = ParseCredentialsText("username=CORP\\svc\npassword=x", "f");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->user, "svc");
  EXPECT_EQ(parsed->domain, "CORP");
}

TEST(SmbCredentials, ErrorsNeverShowThePassword) {
  const char* password = "Tr0ub4dor&3";
  for (std::string text : {std::string("username = a\npassword ") + password + "\n",
                           std::string("password = ") + password + "\n",
                           std::string("username = a\npasswd = ") + password + "\n"}) {
    Result<SmbCredentials> parsed = ParseCredentialsText(text, "/etc/perfhive/web01.cred");
    ASSERT_FALSE(parsed.ok());
    EXPECT_THAT(parsed.error(), HasSubstr("/etc/perfhive/web01.cred"));
    EXPECT_THAT(parsed.error(), Not(HasSubstr(password)));
  }
  EXPECT_EQ(ParseCredentialsText("username = a\nuser password\n", "c").error(),
            "c line 2: expected `key = value`");
}

TEST(SmbCredentials, MissingFileSaysWhich) {
  Result<SmbCredentials> parsed = ReadCredentialsFile("/nonexistent/perfhive.cred");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error(), HasSubstr("/nonexistent/perfhive.cred"));
}

TEST(SmbCredentials, FromTheEnvironment) {
  setenv("PERFHIVE_SMB_USER", "reader", 1);
  setenv("PERFHIVE_SMB_PASSWORD", "pw", 1);
  unsetenv("PERFHIVE_SMB_DOMAIN");
  Result<SmbCredentials> parsed = CredentialsFromEnvironment();
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->user, "reader");
  EXPECT_EQ(parsed->password, "pw");
  EXPECT_EQ(parsed->domain, "");
  unsetenv("PERFHIVE_SMB_USER");
  EXPECT_THAT(CredentialsFromEnvironment().error(), HasSubstr("PERFHIVE_SMB_USER"));
  unsetenv("PERFHIVE_SMB_PASSWORD");
}

TEST(RemoteTarget, ParsesHostAndPort) {
  Result<RemoteTarget> plain = ParseRemoteTarget("\\\\web01");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->host, "web01");
  EXPECT_EQ(plain->port, 445);
  EXPECT_EQ(plain->Name(), "\\\\web01");
  Result<RemoteTarget> ported = ParseRemoteTarget("127.0.0.1:4455");
  ASSERT_TRUE(ported.ok());
  EXPECT_EQ(ported->host, "127.0.0.1");
  EXPECT_EQ(ported->port, 4455);
  EXPECT_EQ(ported->Name(), "\\\\127.0.0.1:4455");
  for (const char* bad : {"", "\\\\", "\\\\:445", "h:0", "h:65536", "h:x", "a/b", "u@h"}) {
    EXPECT_FALSE(ParseRemoteTarget(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace perfhive
