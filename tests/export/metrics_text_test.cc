// The text exposition page.

#include "export/metrics_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "perfdata/winperf.h"

namespace perfhive {
namespace {

TEST(MetricsTextTest, OneFamilyPerNameWithHelpTypeAndEscapedLabels) {
  MetricsText text;
  text.Add("perfhive_export_samples_sent_total", MetricType::kCounter, "Samples sent.",
           {{"receiver", "http://a/b"}}, 12);
  text.Add("b_gauge", MetricType::kGauge, "Help with \\ and\nnewline",
           {{"v", "quote \" back \\ nl \n end"}}, 0.5);
  text.Add("perfhive_export_samples_sent_total", MetricType::kCounter, "ignored",
           {{"receiver", "http://c"}}, 3, 1700000000000);
  text.Add("c", MetricType::kGauge, "Special values.", {}, std::numeric_limits<double>::infinity());
  text.Add("c", MetricType::kGauge, "", {{"k", "nan"}}, std::nan(""));
  EXPECT_EQ(text.Render(),
            "# HELP b_gauge Help with \\\\ and\\nnewline\n"
            "# TYPE b_gauge gauge\n"
            "b_gauge{v=\"quote \\\" back \\\\ nl \\n end\"} 0.5\n"
            "# HELP c Special values.\n"
            "# TYPE c gauge\n"
            "c +Inf\n"
            "c{k=\"nan\"} NaN\n"
            "# HELP perfhive_export_samples_sent_total Samples sent.\n"
            "# TYPE perfhive_export_samples_sent_total counter\n"
            "perfhive_export_samples_sent_total{receiver=\"http://a/b\"} 12\n"
            "perfhive_export_samples_sent_total{receiver=\"http://c\"} 3 1700000000000\n");
}

TEST(MetricsTextTest, ComputedSamplesUseTheMappedNameLabelsAndScale) {
  MetricNamer namer;
  MetricsText text;
  ComputedSample cpu;
  cpu.host = "web01";
  cpu.object_english = "Processor";
  cpu.counter_english = "% Processor Time";
  cpu.instance = "_Total";
  cpu.counter_type = winperf::k100NsecTimerInv;
  cpu.timestamp_ms = 1700000000000;
  cpu.value = 37.5;
  ComputedSample handles = cpu;
  handles.object_english = "Process";
  handles.counter_english = "Handle Count";
  handles.instance = "svchost#1";
  handles.counter_type = winperf::kCounterRawcount;
  handles.pid = 812;
  handles.value = 455;
  text.AddComputed(cpu, namer);
  text.AddComputed(handles, namer);
  EXPECT_EQ(text.Render(),
            "# HELP pdh_process_handles PDH counter \\\\Process\\\\Handle Count "
            "(PERF_COUNTER_RAWCOUNT)\n"
            "# TYPE pdh_process_handles gauge\n"
            "pdh_process_handles{host=\"web01\",instance=\"svchost#1\",pid=\"812\"} 455\n"
            "# HELP pdh_processor_processor_time_ratio PDH counter \\\\Processor\\\\% Processor "
            "Time (PERF_100NSEC_TIMER_INV), as a ratio (percent / 100)\n"
            "# TYPE pdh_processor_processor_time_ratio gauge\n"
            "pdh_processor_processor_time_ratio{host=\"web01\",instance=\"_Total\"} 0.375\n");
}

}  // namespace
}  // namespace perfhive
