// Instance names as PDH builds them: parents through ParentObjectTitleIndex/ParentObjectInstance,
// #Index for duplicates of the same parent and name, UniqueID for unnamed instances.

#include "perfdata/instance_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfdata/snapshot_builder.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
namespace wp = winperf;

constexpr uint32_t kProcess = 230;
constexpr uint32_t kThread = 232;

// The PDH names of the object with title index `index`, as strings.
std::vector<std::string> NamesOf(const std::vector<uint8_t>& bytes, uint32_t index) {
  Result<SnapshotReader> snapshot = SnapshotReader::Open(bytes);
  EXPECT_TRUE(snapshot.ok()) << snapshot.error();
  std::vector<std::string> names;
  if (!snapshot.ok()) return names;
  std::optional<ObjectView> object = snapshot->FindObject(index);
  EXPECT_TRUE(object.has_value()) << index;
  if (!object) return names;
  for (const InstancePathName& name : NameInstances(*snapshot, *object)) {
    names.push_back(name.ToString());
  }
  return names;
}

ObjectBuilder& AddProcesses(SnapshotBuilder& builder, std::initializer_list<const char*> names) {
  ObjectBuilder& process = builder.AddObject(kProcess);
  process.AddCounter({.name_index = 784, .type = wp::kCounterRawcount});
  for (const char* name : names) process.AddInstance(name);
  return process;
}

ObjectBuilder& AddThreads(SnapshotBuilder& builder) {
  ObjectBuilder& thread = builder.AddObject(kThread);
  thread.AddCounter({.name_index = 804, .type = wp::kCounterRawcount});
  return thread;
}

TEST(InstanceNamesTest, DuplicatesCountFromTheSecondInOrderOfAppearance) {
  SnapshotBuilder builder;
  AddProcesses(builder, {"svchost", "explorer", "svchost", "System", "svchost", "explorer"});
  EXPECT_THAT(NamesOf(builder.Build(), kProcess),
              ElementsAre("svchost", "explorer", "svchost#1", "System", "svchost#2", "explorer#1"));
}

TEST(InstanceNamesTest, DuplicatesIgnoreCaseAsPathsMatchNames) {
  // Paths match names ignoring case, so "xorg" must be told from "Xorg" by its index (Linux
  // process names can differ in case only). "\xC3\x89" is É, "\xC3\xA9" é.
  SnapshotBuilder builder;
  AddProcesses(builder,
               {"Xorg", "xorg", "XORG", "\xC3\x89tat", "\xC3\xA9tat", "x\xC3\x97", "x\xC3\xB7"});
  EXPECT_THAT(NamesOf(builder.Build(), kProcess),
              ElementsAre("Xorg", "xorg#1", "XORG#2", "\xC3\x89tat", "\xC3\xA9tat#1", "x\xC3\x97",
                          "x\xC3\xB7"));  // × and ÷ are not a letter pair
  SnapshotBuilder children;
  AddProcesses(children, {"Xorg", "xorg"});
  ObjectBuilder& thread = AddThreads(children);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 0);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 1);  // xorg/0 reads as a second Xorg/0
  EXPECT_THAT(NamesOf(children.Build(), kThread), ElementsAre("Xorg/0", "xorg/0#1"));
}

TEST(InstanceNamesTest, DuplicatesIgnoreCaseInEveryScript) {
  SnapshotBuilder builder;
  AddProcesses(builder,
               {"Ява",         "ява",    "ЯВА",    "Ява2", "Σίσυφος", "ΣΊΣΥΦΟΣ", "σίσυφοσ", "Պ",
                "պ",           "ᲐᲑ", "აბ",     "Ⴀ",    "ⴀ",       "ＡＢ",    "ａｂ",    "ab",
                "\u212Aelvin",  // U+212A KELVIN SIGN, 3 bytes, folds to 'k'
                "kelvin",      "ß",      "\u1E9E", "ss"});
  EXPECT_THAT(NamesOf(builder.Build(), kProcess),
              ElementsAre("Ява", "ява#1", "ЯВА#2", "Ява2", "Σίσυφος", "ΣΊΣΥΦΟΣ#1", "σίσυφοσ#2", "Պ",
                          "պ#1", "ᲐᲑ", "აბ#1", "Ⴀ", "ⴀ#1", "ＡＢ", "ａｂ#1", "ab",
                          "\u212Aelvin", "kelvin#1", "ß", "\u1E9E#1", "ss"));
  SnapshotBuilder children;
  AddProcesses(children, {"Ява", "ява"});
  ObjectBuilder& thread = AddThreads(children);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 0);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 1);
  EXPECT_THAT(NamesOf(children.Build(), kThread), ElementsAre("Ява/0", "ява/0#1"));
}

TEST(InstanceNamesTest, ChildrenNameTheirParentByPosition) {
  SnapshotBuilder builder;
  AddProcesses(builder, {"svchost", "explorer", "svchost"});
  ObjectBuilder& thread = AddThreads(builder);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 1);
  thread.AddInstance("1", wp::kNoUniqueId, kProcess, 1);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 0);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 2);  // the other svchost: a duplicate
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 1);  // explorer/0 again
  EXPECT_THAT(NamesOf(builder.Build(), kThread),
              ElementsAre("explorer/0", "explorer/1", "svchost/0", "svchost/0#1", "explorer/0#1"));
}

TEST(InstanceNamesTest, ChildrenListedBeforeTheirParentObjectStillNameIt) {
  SnapshotBuilder builder;
  AddThreads(builder).AddInstance("3", wp::kNoUniqueId, kProcess, 0);
  AddProcesses(builder, {"lsass"});
  EXPECT_THAT(NamesOf(builder.Build(), kThread), ElementsAre("lsass/3"));
}

TEST(InstanceNamesTest, MissingOrOutOfRangeParentsNameNoParent) {
  SnapshotBuilder builder;
  AddProcesses(builder, {"a", "b"});
  ObjectBuilder& thread = AddThreads(builder);
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 2);  // position past the two processes
  thread.AddInstance("0", wp::kNoUniqueId, 9999, 0);      // object not in the snapshot
  thread.AddInstance("0", wp::kNoUniqueId, 0, 5);         // no parent object at all
  thread.AddInstance("0", wp::kNoUniqueId, kProcess, 1);
  EXPECT_THAT(NamesOf(builder.Build(), kThread), ElementsAre("0", "0#1", "0#2", "b/0"));
}

TEST(InstanceNamesTest, UnnamedInstancesAreNamedByUniqueId) {
  SnapshotBuilder builder;
  ObjectBuilder& process = AddProcesses(builder, {"x"});
  process.AddInstance("", 4242);
  process.AddInstance("", 4242);
  process.AddInstance("", -7);
  process.AddInstance("");  // neither a name nor a UniqueID
  AddThreads(builder).AddInstance("0", wp::kNoUniqueId, kProcess, 1);
  std::vector<uint8_t> bytes = builder.Build();
  EXPECT_THAT(NamesOf(bytes, kProcess), ElementsAre("x", "4242", "4242#1", "-7", ""));
  EXPECT_THAT(NamesOf(bytes, kThread), ElementsAre("4242/0"));
}

TEST(InstanceNamesTest, ParentAndNameAreComparedAsAPairNotAsJoinedText) {
  // "a/b" + "c" and "a" + "b/c" both print as a/b/c but are different instances.
  SnapshotBuilder builder;
  AddProcesses(builder, {"a/b", "a"});
  ObjectBuilder& thread = AddThreads(builder);
  thread.AddInstance("c", wp::kNoUniqueId, kProcess, 0);
  thread.AddInstance("b/c", wp::kNoUniqueId, kProcess, 1);
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> snapshot = SnapshotReader::Open(bytes);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  std::vector<InstancePathName> names = NameInstances(*snapshot, *snapshot->FindObject(kThread));
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].parent, "a/b");
  EXPECT_EQ(names[0].name, "c");
  EXPECT_EQ(names[0].duplicate, 0u);
  EXPECT_EQ(names[1].parent, "a");
  EXPECT_EQ(names[1].name, "b/c");
  EXPECT_EQ(names[1].duplicate, 0u);
}

TEST(InstanceNamesTest, ObjectsWithoutInstancesHaveOneNamelessInstanceMetadataNone) {
  SnapshotBuilder builder;
  ObjectBuilder& memory = builder.AddObject(4);
  memory.AddCounter({.name_index = 24, .type = wp::kCounterLargeRawcount});
  memory.set_no_instances();
  ObjectBuilder& metadata = builder.AddObject(5);
  metadata.AddCounter({.name_index = 26, .type = wp::kCounterRawcount});
  metadata.set_metadata(wp::kMetadataMultipleInstances);
  std::vector<uint8_t> bytes = builder.Build();
  EXPECT_THAT(NamesOf(bytes, 4), ElementsAre(""));
  EXPECT_THAT(NamesOf(bytes, 5), IsEmpty());
}

}  // namespace
}  // namespace perfhive
