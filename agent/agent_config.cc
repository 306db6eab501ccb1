#include "agent/agent_config.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <map>

#include "agent/duration.h"

namespace perfhive {

using namespace std::chrono_literals;

std::chrono::milliseconds ScheduleInterval(const QuerySchedule& query,
                                           std::chrono::milliseconds interval) {
  if (query.every) return *query.every;
  if (query.name == "Costly") return 5min;
  return interval;
}

Result<QuerySchedule> ParseQueryFlag(std::string_view text) {
  QuerySchedule query;
  size_t at = text.rfind('@');
  if (at != std::string_view::npos) {
    Result<std::chrono::milliseconds> every = ParseDuration(text.substr(at + 1));
    if (!every.ok()) return every.status().Prefixed("--query " + std::string(text) + ": ");
    query.every = *every;
    text = text.substr(0, at);
  }
  if (text == "Global" || text == "Costly") {
    query.name = std::string(text);
    return query;
  }
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view object = text.substr(0, comma);
    if (!object.empty()) query.objects.emplace_back(object);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  if (query.objects.empty()) {
    return Status::InvalidArgument(
        "--query needs Global, Costly or object names, e.g. --query Global@10s or "
        "--query 'Processor,Memory@1m'");
  }
  return query;
}

std::string QueryLabel(const QuerySchedule& query) {
  if (!query.name.empty()) return query.name;
  std::string label;
  for (const std::string& object : query.objects) {
    if (!label.empty()) label += ',';
    label += object;
  }
  return label;
}

namespace {

std::string Where(std::string_view origin, const toml::node& node) {
  const toml::source_region& source = node.source();
  return std::string(origin) + ":" + std::to_string(source.begin.line) + ": ";
}

Result<std::string> StringValue(std::string_view origin, const toml::node& node,
                                std::string_view key) {
  if (const auto* value = node.as_string()) return value->get();
  return Status::InvalidArgument(Where(origin, node) + std::string(key) + " must be a string");
}

Result<std::chrono::milliseconds> DurationValue(std::string_view origin, const toml::node& node,
                                                std::string_view key) {
  Result<std::string> text = StringValue(origin, node, key);
  if (!text.ok()) return text.status();
  Result<std::chrono::milliseconds> duration = ParseDuration(*text);
  if (!duration.ok()) {
    return duration.status().Prefixed(Where(origin, node) + std::string(key) + ": ");
  }
  return duration;
}

Result<QuerySchedule> QueryValue(std::string_view origin, const toml::node& node) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return Status::InvalidArgument(Where(origin, node) + "each [[query]] must be a table");
  }
  QuerySchedule query;
  for (const auto& [key, value] : *table) {
    if (key == "name") {
      Result<std::string> name = StringValue(origin, value, "name");
      if (!name.ok()) return name.status();
      query.name = *name;
    } else if (key == "objects") {
      const toml::array* objects = value.as_array();
      if (objects == nullptr) {
        return Status::InvalidArgument(Where(origin, value) + "objects must be a list of names");
      }
      for (const toml::node& object : *objects) {
        Result<std::string> name = StringValue(origin, object, "objects");
        if (!name.ok()) return name.status();
        query.objects.push_back(*name);
      }
    } else if (key == "every") {
      Result<std::chrono::milliseconds> every = DurationValue(origin, value, "every");
      if (!every.ok()) return every.status();
      query.every = *every;
    } else {
      return Status::InvalidArgument(Where(origin, value) + "unknown key \"" +
                                     std::string(key.str()) +
                                     "\" in [[query]] (name, objects, every)");
    }
  }
  bool named = query.name == "Global" || query.name == "Costly";
  if (named == !query.objects.empty() || (!named && !query.name.empty())) {
    return Status::InvalidArgument(Where(origin, node) +
                                   "a [[query]] has either name = \"Global\" or \"Costly\", or "
                                   "objects = [\"Processor\", ...]");
  }
  return query;
}

}  // namespace

Status LoadConfigText(std::string_view text, std::string_view origin, AgentConfig& config) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    return Status::InvalidArgument(std::string(origin) + ":" +
                                   std::to_string(error.source().begin.line) + ": " +
                                   std::string(error.description()));
  }
  const std::map<std::string_view, std::string*> strings = {
      {"server", &config.server},         {"ca", &config.ca_file},
      {"cert", &config.cert_file},        {"key", &config.key_file},
      {"token_file", &config.token_file}, {"host_name", &config.host_name},
      {"source", &config.source},         {"replay", &config.replay_dir},
      {"proc_root", &config.proc_root},   {"sys_root", &config.sys_root},
      {"spool_dir", &config.spool_dir},
  };
  for (const auto& [key, value] : root) {
    if (auto field = strings.find(key.str()); field != strings.end()) {
      Result<std::string> text_value = StringValue(origin, value, key.str());
      if (!text_value.ok()) return text_value.status();
      *field->second = *text_value;
    } else if (key == "insecure") {
      const auto* flag = value.as_boolean();
      if (flag == nullptr) {
        return Status::InvalidArgument(Where(origin, value) + "insecure must be true or false");
      }
      config.insecure = flag->get();
    } else if (key == "interval" || key == "timeout") {
      Result<std::chrono::milliseconds> duration = DurationValue(origin, value, key.str());
      if (!duration.ok()) return duration.status();
      if (key == "interval") {
        config.interval = *duration;
      } else {
        config.timeout = *duration;
      }
    } else if (key == "spool_max_bytes") {
      const auto* number = value.as_integer();
      if (number == nullptr || number->get() <= 0) {
        return Status::InvalidArgument(Where(origin, value) +
                                       "spool_max_bytes must be a positive integer");
      }
      config.spool_max_bytes = static_cast<uint64_t>(number->get());
    } else if (key == "query") {
      const toml::array* queries = value.as_array();
      if (queries == nullptr) {
        return Status::InvalidArgument(Where(origin, value) + "query must be [[query]] tables");
      }
      config.queries.clear();
      for (const toml::node& node : *queries) {
        Result<QuerySchedule> query = QueryValue(origin, node);
        if (!query.ok()) return query.status();
        config.queries.push_back(std::move(query).value());
      }
    } else {
      return Status::InvalidArgument(Where(origin, value) + "unknown setting \"" +
                                     std::string(key.str()) + "\"");
    }
  }
  return Status();
}

Status LoadConfigFile(Env& env, const std::string& path, AgentConfig& config) {
  Result<std::vector<uint8_t>> bytes = env.ReadFile(path);
  if (!bytes.ok()) return bytes.status().Prefixed("config file: ");
  std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return LoadConfigText(text, path, config);
}

std::string AgentStateDirectory() {
#ifdef _WIN32
  const char* program_data = std::getenv("ProgramData");
  std::string base = program_data != nullptr ? program_data : "C:\\ProgramData";
  return base + "\\perfhive\\agent";
#else
  // systemd's StateDirectory= sets $STATE_DIRECTORY (several paths are separated by ':').
  if (const char* state = std::getenv("STATE_DIRECTORY"); state != nullptr && *state != '\0') {
    std::string dir = state;
    return dir.substr(0, dir.find(':'));
  }
  return "/var/lib/perfhive-agent";
#endif
}

std::string DefaultSpoolDirectory() {
#ifdef _WIN32
  return AgentStateDirectory() + "\\spool";
#else
  return AgentStateDirectory() + "/spool";
#endif
}

}  // namespace perfhive
