// A host's effective labels (server/policies/host_labels.h): its agent's, with its policy's over
// them key by key, each override reported; and the directory the query engine and the exporters
// ask, over a real store and policies file.

#include "server/policies/host_labels.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace perfhive {
namespace {

using ::testing::ElementsAre;

TEST(HostLabelsTest, ThePolicyWinsWhereBothGiveAKey) {
  CollectionPlan plan;
  plan.policy = "web";
  plan.labels = {{"site", "fra"}, {"env", "prod"}, {"role", "web"}};
  EffectiveLabels effective = LabelsUnder(plan, {{"role", "web"}, {"site", "ams"}, {"rack", "b2"}});
  EXPECT_EQ(effective.labels,
            (query::HostLabels{{"env", "prod"}, {"rack", "b2"}, {"role", "web"}, {"site", "fra"}}));
  // The same value on both sides is no conflict.
  EXPECT_THAT(effective.overridden,
              ElementsAre("agent label site=ams is overridden by policy web: site=fra"));
  // No policy: the agent's labels as they are.
  EffectiveLabels own = LabelsUnder(CollectionPlan(), {{"role", "sql"}});
  EXPECT_EQ(own.labels, (query::HostLabels{{"role", "sql"}}));
  EXPECT_TRUE(own.overridden.empty());
}

TEST(HostLabelsTest, TheDirectoryReadsTheStoreAndThePoliciesInForce) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("host-labels-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Result<std::unique_ptr<Store>> store = Store::Open(dir / "store");
  ASSERT_TRUE(store.ok()) << store.error();
  HostInfo web{"WEB01", "Linux", "6.1", "agent", "1", "boot"};
  web.labels = query::HostLabels{{"role", "web"}, {"site", "ams"}};
  ASSERT_TRUE((*store)->catalog().UpsertHost(web, 1).ok());

  HostLabelDirectory without_policies(**store, nullptr);
  EXPECT_EQ(without_policies.Lookup()("web01"),
            (query::HostLabels{{"role", "web"}, {"site", "ams"}}));
  EXPECT_TRUE(without_policies.LabelsOf("unknown").empty());

  const std::string path = dir / "policies.toml";
  std::ofstream(path) << "[[policy]]\nname = \"fra\"\nhosts = [\"web*\"]\n"
                         "labels = { site = \"fra\" }\n";
  Result<std::unique_ptr<PolicyFile>> policies = PolicyFile::Open(Env::Default(), path);
  ASSERT_TRUE(policies.ok()) << policies.error();
  HostLabelDirectory directory(**store, policies->get());
  EXPECT_EQ(directory.LabelsOf("web01"), (query::HostLabels{{"role", "web"}, {"site", "fra"}}));
  // A host the store does not know yet has its policy's labels.
  EXPECT_EQ(directory.LabelsOf("web99"), (query::HostLabels{{"site", "fra"}}));
  // A reload is seen at the next question.
  std::ofstream(path, std::ios::trunc) << "[[policy]]\nname = \"ams\"\nhosts = [\"web*\"]\n"
                                          "labels = { env = \"prod\" }\n";
  ASSERT_TRUE((*policies)->Reload().ok());
  EXPECT_EQ(directory.LabelsOf("web01"),
            (query::HostLabels{{"env", "prod"}, {"role", "web"}, {"site", "ams"}}));
  // The directory keeps what it read; an agent's new labels are seen at the next question all the
  // same, and a Hello without labels changes nothing.
  web.labels = query::HostLabels{{"role", "api"}};
  ASSERT_TRUE((*store)->catalog().UpsertHost(web, 2).ok());
  EXPECT_EQ(directory.LabelsOf("web01"), (query::HostLabels{{"env", "prod"}, {"role", "api"}}));
  EXPECT_EQ(directory.LabelsOf("web99"), (query::HostLabels{{"env", "prod"}}));
  const uint64_t changes = (*store)->catalog().host_labels_changes();
  web.labels.reset();
  ASSERT_TRUE((*store)->catalog().UpsertHost(web, 3).ok());
  EXPECT_EQ((*store)->catalog().host_labels_changes(), changes);
  EXPECT_EQ(directory.LabelsOf("web01"), (query::HostLabels{{"env", "prod"}, {"role", "api"}}));
  HostInfo newcomer{"WEB99", "Linux", "6.1", "agent", "1", "boot"};
  newcomer.labels = query::HostLabels{{"rack", "b2"}};
  ASSERT_TRUE((*store)->catalog().UpsertHost(newcomer, 4).ok());
  EXPECT_EQ(directory.LabelsOf("web99"), (query::HostLabels{{"env", "prod"}, {"rack", "b2"}}));
  store->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace perfhive
