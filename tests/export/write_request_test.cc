// The remote-write body: snappy-decompressed and parsed back with the generated message, it
// holds the series, labels and samples given, in the spec's field layout.

#include "export/write_request.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include "export/remote_write.pb.h"
#include "export/series_labels.h"

namespace perfhive {
namespace {

prometheus::WriteRequest Decode(const std::string& body) {
  std::string serialized;
  EXPECT_TRUE(snappy::Uncompress(body.data(), body.size(), &serialized));
  prometheus::WriteRequest request;
  EXPECT_TRUE(request.ParseFromString(serialized));
  return request;
}

TEST(WriteRequestTest, SeriesLabelsAreSortedWithNameFirst) {
  ComputedSample sample;
  sample.host = "web01";
  sample.instance = "svchost#2";
  sample.parent = "";
  sample.pid = 4242;
  Labels labels = SeriesLabels(sample, "pdh_process_handles");
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[0], (Label{"__name__", "pdh_process_handles"}));
  EXPECT_EQ(labels[1], (Label{"host", "web01"}));
  EXPECT_EQ(labels[2], (Label{"instance", "svchost#2"}));
  EXPECT_EQ(labels[3], (Label{"pid", "4242"}));
  EXPECT_TRUE(std::is_sorted(labels.begin(), labels.end(),
                             [](const Label& a, const Label& b) { return a.name < b.name; }));
  sample.instance = "0/C:";
  sample.parent = "0";
  sample.pid.reset();
  Labels disk = SeriesLabels(sample, "pdh_logical_disk_free_mbytes_as_bytes");
  ASSERT_EQ(disk.size(), 4u);
  EXPECT_EQ(disk[2], (Label{"instance", "0/C:"}));
  EXPECT_EQ(disk[3], (Label{"parent", "0"}));
}

// A host's labels join the series' labels in name order; those that would replace a series' own
// or a reserved name are prefixed, names Prometheus refuses are made ones it takes, and of two
// keys that come to one name the first is kept (docs/prometheus.md, "Labels").
TEST(WriteRequestTest, HostLabelsJoinTheSeriesWithoutReplacingItsOwn) {
  Labels host = HostLabelsForExport({{"role", "web"},
                                     {"site", "fra"},
                                     {"instance", "blue"},
                                     {"__name__", "x"},
                                     {"job", "j"},
                                     {"team.owner", "ops"},
                                     {"team_owner", "dev"},
                                     {"a-b", "c"}});
  EXPECT_EQ(host, (Labels{{"a_b", "c"},
                          {"label___name__", "x"},
                          {"label_instance", "blue"},
                          {"label_job", "j"},
                          {"role", "web"},
                          {"site", "fra"},
                          {"team_owner", "ops"}}));
  ComputedSample sample;
  sample.host = "web01";
  sample.instance = "svchost#2";
  sample.pid = 4242;
  Labels labels = SeriesLabels(sample, "pdh_process_handles", host);
  EXPECT_EQ(labels, (Labels{{"__name__", "pdh_process_handles"},
                            {"a_b", "c"},
                            {"host", "web01"},
                            {"instance", "svchost#2"},
                            {"label___name__", "x"},
                            {"label_instance", "blue"},
                            {"label_job", "j"},
                            {"pid", "4242"},
                            {"role", "web"},
                            {"site", "fra"},
                            {"team_owner", "ops"}}));
}

TEST(WriteRequestTest, DecodesBackToTheSameSeries) {
  Labels cpu = {{"__name__", "pdh_processor_processor_time_ratio"},
                {"host", "web01"},
                {"instance", "_Total"}};
  Labels handles = {{"__name__", "pdh_process_handles"}, {"host", "db \"2\""}};
  std::vector<SeriesSamples> series = {
      {&cpu, {{1700000000000, 0.125}, {1700000010000, 0.5}}},
      {&handles, {{1700000000000, 1234}}},
  };
  prometheus::WriteRequest request = Decode(EncodeWriteRequest(series));
  ASSERT_EQ(request.timeseries_size(), 2);
  const prometheus::TimeSeries& first = request.timeseries(0);
  ASSERT_EQ(first.labels_size(), 3);
  EXPECT_EQ(first.labels(0).name(), "__name__");
  EXPECT_EQ(first.labels(0).value(), "pdh_processor_processor_time_ratio");
  EXPECT_EQ(first.labels(2).name(), "instance");
  EXPECT_EQ(first.labels(2).value(), "_Total");
  ASSERT_EQ(first.samples_size(), 2);
  EXPECT_EQ(first.samples(0).timestamp(), 1700000000000);
  EXPECT_EQ(first.samples(0).value(), 0.125);
  EXPECT_EQ(first.samples(1).timestamp(), 1700000010000);
  EXPECT_EQ(first.samples(1).value(), 0.5);
  const prometheus::TimeSeries& second = request.timeseries(1);
  EXPECT_EQ(second.labels(1).value(), "db \"2\"");
  EXPECT_EQ(second.samples(0).value(), 1234);
}

TEST(WriteRequestTest, WireBytesFollowTheSpecFieldNumbers) {
  // One series, one label, one sample, built by hand from the spec's numbering: WriteRequest
  // field 1 (TimeSeries) { 1: Label {1: "a", 2: "b"}, 2: Sample {1: double 1.0, 2: varint 5} }.
  Labels labels = {{"a", "b"}};
  std::vector<SeriesSamples> series = {{&labels, {{5, 1.0}}}};
  std::string body = EncodeWriteRequest(series);
  std::string serialized;
  ASSERT_TRUE(snappy::Uncompress(body.data(), body.size(), &serialized));
  const std::string expected(
      "\x0a\x15"  // timeseries, 21 bytes
      "\x0a\x06\x0a\x01"
      "a\x12\x01"
      "b"                                                      // labels: name "a", value "b"
      "\x12\x0b\x09\x00\x00\x00\x00\x00\x00\xf0\x3f\x10\x05",  // samples: 1.0, timestamp 5
      23);
  EXPECT_EQ(serialized, expected);
}

}  // namespace
}  // namespace perfhive
