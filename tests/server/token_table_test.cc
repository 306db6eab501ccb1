// The token file: what it grants, and errors that say what is wrong without showing a secret.

#include "server/enrollment/token_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(TokenTableTest, GrantsWritePatternsIgnoringCaseAndReadOnlyWhenSaid) {
  // The second token is given by a digest nobody's secret has.
  Result<TokenTable> table = TokenTable::Parse(R"(
[[token]]
name = "agents"
secret = "agents-secret-0123456789"
write = ["web*", "db01"]

[[token]]
name = "cli"
secret_sha256 = "5c9e8ba4e6a3bcae6a1e5c9f1d5e6d6e0e2f9f0d3c4b2a1908f7e6d5c4b3a291"
read = true
)",
                                               "t.toml");
  ASSERT_TRUE(table.ok()) << table.error();
  Result<Principal> agents = table->Authenticate("Bearer agents-secret-0123456789");
  ASSERT_TRUE(agents.ok()) << agents.error();
  EXPECT_EQ(agents->name, "agents");
  EXPECT_TRUE(agents->MayWriteAs("WEB-07"));
  EXPECT_TRUE(agents->MayWriteAs("DB01"));
  EXPECT_FALSE(agents->MayWriteAs("db02"));
  EXPECT_FALSE(agents->read);
  EXPECT_EQ(table->Authenticate("Bearer agents-secret-012345678").status().code(),
            StatusCode::kUnauthenticated);
  EXPECT_EQ(table->Authenticate("").status().code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(table->Authenticate("Basic xyz").error(), HasSubstr("not a Bearer token"));
}

TEST(TokenTableTest, ASecretGivenByItsDigestAuthenticates) {
  // sha256("reader-secret-0123456789"), computed with `printf %s ... | sha256sum`.
  Result<TokenTable> table = TokenTable::Parse(
      "[[token]]\nname = \"cli\"\nread = true\n"
      "secret_sha256 = \"E37C4E779555CE6C5238BBD719816A8713F38FB0750F6EE04FD92F482F721E8F\"\n",
      "t.toml");
  ASSERT_TRUE(table.ok()) << table.error();
  Result<Principal> cli = table->Authenticate("Bearer reader-secret-0123456789");
  ASSERT_TRUE(cli.ok()) << cli.error();
  EXPECT_TRUE(cli->read);
  EXPECT_FALSE(cli->MayWriteAs("anything"));
}

TEST(TokenTableTest, ErrorsNameTheFileAndTokenButNeverTheSecret) {
  Result<TokenTable> short_secret =
      TokenTable::Parse("[[token]]\nname = \"x\"\nsecret = \"tooshort\"\n", "t.toml");
  EXPECT_EQ(short_secret.error(), "t.toml: token 1 (x): the secret is shorter than 16 characters");
  EXPECT_THAT(short_secret.error(), Not(HasSubstr("tooshort")));
  EXPECT_EQ(TokenTable::Parse("", "t.toml").error(), "t.toml: no [[token]] entries");
  EXPECT_THAT(TokenTable::Parse("[[token]\n", "t.toml").error(), HasSubstr("t.toml:1:"));
  EXPECT_EQ(TokenTable::Parse("[[token]]\nname = \"y\"\n", "t.toml").error(),
            "t.toml: token 1 (y): give exactly one of secret and secret_sha256");
  EXPECT_EQ(TokenTable::Load("/nonexistent/tokens.toml").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace perfhive
